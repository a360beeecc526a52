/**
 * Context window sizes (tokens) by model id, matched like prices (exact id, longest prefix, without a
 * `vendor/` prefix: see `model-table.ts`). A worker extends or overrides the table
 * (`createWorker({ contextWindows })`); an agent may name its window itself (`context.windowTokens`).
 * A model found nowhere has an unknown window: only a provider's "prompt is too long" compacts its context.
 */
import { modelEntry } from './model-table';

/** Context windows in tokens by model id or id prefix. */
export type ContextWindowTable = Readonly<Record<string, number>>;

/** Windows of Claude models and common OpenAI models (their standard windows, not beta extensions). */
export const DEFAULT_CONTEXT_WINDOWS: ContextWindowTable = Object.freeze({
  claude: 200_000,
  'gpt-3.5-turbo': 16_385,
  'gpt-4': 8_192,
  'gpt-4-turbo': 128_000,
  'gpt-4o': 128_000,
  'gpt-4.1': 1_047_576,
  'gpt-5': 400_000,
  o1: 200_000,
  'o1-mini': 128_000,
  o3: 200_000,
  'o3-mini': 200_000,
  'o4-mini': 200_000,
});

/** The context window of `model` in tokens, or undefined when the table does not know it. */
export function contextWindowFor(model: string, table: ContextWindowTable = DEFAULT_CONTEXT_WINDOWS): number | undefined {
  return modelEntry(table, model);
}
