/**
 * Model prices, turning token usage into US dollars. Prices are list prices per million tokens; a
 * model is matched by its exact id, then by the longest id prefix (so dated snapshots such as
 * `claude-sonnet-4-20250514` or `gpt-4o-mini-2024-07-18` find their family), then the same after a
 * `vendor/` prefix (`openai/gpt-4o`). Override or extend the table for negotiated or newer prices.
 */
import type { Usage } from '../../core/budget/usage';
import { modelEntry } from './model-table';

/** Prices of one model in USD per million tokens. */
export interface ModelPrice {
  /** Uncached input tokens. */
  input: number;
  output: number;
  /** Input tokens read from the prompt cache. */
  cacheRead: number;
  /** Input tokens written to the prompt cache (Anthropic's 5-minute cache; OpenAI charges no write). */
  cacheWrite: number;
}

/** Prices by model id or id prefix. */
export type PriceTable = Readonly<Record<string, ModelPrice>>;

const openai = (input: number, output: number, cacheRead: number): ModelPrice => ({ input, output, cacheRead, cacheWrite: input });

/**
 * List prices (USD per million tokens) of Claude models (4.x, 3.x and the 5 family) and common OpenAI
 * models. Long-context surcharges, batch discounts and prompt-length tiers (Claude Haiku 5.5, which is
 * therefore left out) are not modelled: add such models to a table of your own.
 */
export const DEFAULT_PRICES: PriceTable = Object.freeze({
  // Anthropic: cache reads cost 0.1× (0.05× on the 5.5 models) and 5-minute cache writes 1.25× the input price.
  'claude-fable-5-1': { input: 10, output: 50, cacheRead: 0.25, cacheWrite: 12.5 },
  'claude-opus-5-5': { input: 4, output: 20, cacheRead: 0.2, cacheWrite: 5 },
  'claude-opus-5': { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 },
  'claude-sonnet-5-5': { input: 2, output: 10, cacheRead: 0.1, cacheWrite: 2.5 },
  'claude-sonnet-5': { input: 2, output: 10, cacheRead: 0.2, cacheWrite: 2.5 },
  'claude-opus-4-8': { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 },
  'claude-opus-4-7': { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 },
  'claude-opus-4-6': { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 },
  'claude-opus-4-5': { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 },
  'claude-opus-4-1': { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75 },
  'claude-opus-4': { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75 },
  'claude-sonnet-4-6': { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
  'claude-sonnet-4-5': { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
  'claude-sonnet-4': { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
  'claude-haiku-4-5': { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 },
  'claude-3-7-sonnet': { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
  'claude-3-5-sonnet': { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
  'claude-3-5-haiku': { input: 0.8, output: 4, cacheRead: 0.08, cacheWrite: 1 },
  'claude-3-opus': { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75 },
  'claude-3-haiku': { input: 0.25, output: 1.25, cacheRead: 0.03, cacheWrite: 0.3 },
  // OpenAI: cached input is billed at the cached rate; there is no separate write charge.
  'gpt-4o': openai(2.5, 10, 1.25),
  'gpt-4o-mini': openai(0.15, 0.6, 0.075),
  'gpt-4.1': openai(2, 8, 0.5),
  'gpt-4.1-mini': openai(0.4, 1.6, 0.1),
  'gpt-4.1-nano': openai(0.1, 0.4, 0.025),
  'gpt-5': openai(1.25, 10, 0.125),
  'gpt-5-mini': openai(0.25, 2, 0.025),
  'gpt-5-nano': openai(0.05, 0.4, 0.005),
  o1: openai(15, 60, 7.5),
  'o1-mini': openai(1.1, 4.4, 0.55),
  'o1-pro': openai(150, 600, 150),
  o3: openai(2, 8, 0.5),
  'o3-mini': openai(1.1, 4.4, 0.55),
  'o3-pro': openai(20, 80, 20),
  'o4-mini': openai(1.1, 4.4, 0.275),
});

/** The price entry for `model`: exact id, then longest prefix, then the same without a `vendor/` prefix. */
export function priceFor(model: string, prices: PriceTable = DEFAULT_PRICES): ModelPrice | undefined {
  return modelEntry(prices, model);
}

/**
 * What `usage` of `model` cost in USD, or undefined when the model has no price. `usage.inputTokens`
 * are uncached input tokens (cache reads and writes are counted apart, as both providers report them).
 */
export function costUsd(model: string, usage: Usage, prices: PriceTable = DEFAULT_PRICES): number | undefined {
  const p = priceFor(model, prices);
  if (!p) return undefined;
  return (
    (usage.inputTokens * p.input +
      usage.outputTokens * p.output +
      usage.cacheReadTokens * p.cacheRead +
      usage.cacheWriteTokens * p.cacheWrite) /
    1_000_000
  );
}
