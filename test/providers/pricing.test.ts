/** The price table (providers/pricing.ts): lookup by exact id and prefix, and usage turned into USD. */
import { describe, expect, it } from 'vitest';
import type { PriceTable } from '../../src/integrations/providers/pricing';
import { costUsd, DEFAULT_PRICES, priceFor } from '../../src/integrations/providers/pricing';

const usage = (inputTokens: number, outputTokens: number, cacheReadTokens = 0, cacheWriteTokens = 0) => ({
  inputTokens,
  outputTokens,
  cacheReadTokens,
  cacheWriteTokens,
});

describe('priceFor', () => {
  it('matches an exact id', () => {
    expect(priceFor('claude-sonnet-4-5')).toEqual({ input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 });
    expect(priceFor('gpt-4o-mini')).toEqual({ input: 0.15, output: 0.6, cacheRead: 0.075, cacheWrite: 0.15 });
  });

  it('matches dated snapshots by their longest prefix', () => {
    expect(priceFor('claude-sonnet-4-20250514')).toBe(DEFAULT_PRICES['claude-sonnet-4']);
    expect(priceFor('claude-sonnet-4-5-20250929')).toBe(DEFAULT_PRICES['claude-sonnet-4-5']);
    expect(priceFor('claude-opus-4-1-20250805')).toBe(DEFAULT_PRICES['claude-opus-4-1']);
    expect(priceFor('claude-3-5-haiku-20241022')).toBe(DEFAULT_PRICES['claude-3-5-haiku']);
    expect(priceFor('gpt-4o-mini-2024-07-18')).toBe(DEFAULT_PRICES['gpt-4o-mini']);
    expect(priceFor('gpt-4o-2024-08-06')).toBe(DEFAULT_PRICES['gpt-4o']);
    expect(priceFor('gpt-4.1-nano-2025-04-14')).toBe(DEFAULT_PRICES['gpt-4.1-nano']);
    expect(priceFor('o3-mini-2025-01-31')).toBe(DEFAULT_PRICES['o3-mini']);
    expect(priceFor('o1-2024-12-17')).toBe(DEFAULT_PRICES.o1);
  });

  it('prices the Opus generations apart (4 and 4.1 at $15, 4.5 on at $5)', () => {
    expect(priceFor('claude-opus-4-20250514')?.input).toBe(15);
    expect(priceFor('claude-opus-4-5-20251101')?.input).toBe(5);
    expect(priceFor('claude-opus-4-8')?.input).toBe(5);
  });

  it('only matches a prefix at a separator', () => {
    expect(priceFor('o10-preview')).toBeUndefined();
    expect(priceFor('gpt-4oz')).toBeUndefined();
  });

  it('matches after a vendor/ prefix', () => {
    expect(priceFor('openai/gpt-4o-mini')).toBe(DEFAULT_PRICES['gpt-4o-mini']);
    expect(priceFor('anthropic/claude-haiku-4-5')).toBe(DEFAULT_PRICES['claude-haiku-4-5']);
  });

  it('knows nothing of local models', () => {
    expect(priceFor('qwen3:8b')).toBeUndefined();
    expect(priceFor('openai/gpt-oss-20b')).toBeUndefined();
  });
});

describe('costUsd', () => {
  it('charges input, output, cache reads and cache writes at their own rates', () => {
    // Sonnet 4.5: $3 in, $15 out, $0.30 cache read, $3.75 cache write per million
    expect(costUsd('claude-sonnet-4-5-20250929', usage(1_000_000, 0))).toBeCloseTo(3, 10);
    expect(costUsd('claude-sonnet-4-5-20250929', usage(0, 1_000_000))).toBeCloseTo(15, 10);
    expect(costUsd('claude-sonnet-4-5-20250929', usage(12, 30, 40_000, 1500))).toBeCloseTo(
      (12 * 3 + 30 * 15 + 40_000 * 0.3 + 1500 * 3.75) / 1e6,
      12,
    );
  });

  it('makes cached input cheaper than uncached input', () => {
    const cold = costUsd('claude-haiku-4-5', usage(50_000, 500))!;
    const warm = costUsd('claude-haiku-4-5', usage(500, 500, 49_500))!;
    expect(warm).toBeLessThan(cold / 5);
  });

  it('prices OpenAI cached tokens at the cached rate', () => {
    expect(costUsd('gpt-4o-mini-2024-07-18', usage(76, 4, 1024))).toBeCloseTo((76 * 0.15 + 4 * 0.6 + 1024 * 0.075) / 1e6, 12);
  });

  it('is undefined for a model without a price', () => {
    expect(costUsd('llama3.2:3b', usage(100, 100))).toBeUndefined();
  });

  it('uses a table given to it, which can extend the defaults', () => {
    const prices: PriceTable = {
      ...DEFAULT_PRICES,
      'qwen3:8b': { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
      'gpt-4o': { input: 1, output: 2, cacheRead: 0.5, cacheWrite: 1 },
    };
    expect(costUsd('qwen3:8b', usage(1000, 1000), prices)).toBe(0);
    expect(costUsd('gpt-4o', usage(1_000_000, 1_000_000), prices)).toBeCloseTo(3, 10);
    expect(costUsd('gpt-4o-mini', usage(1_000_000, 0), prices)).toBeCloseTo(0.15, 10);
  });

  it('has a complete, positive price for every default entry', () => {
    for (const [model, p] of Object.entries(DEFAULT_PRICES)) {
      for (const k of ['input', 'output', 'cacheRead', 'cacheWrite'] as const) expect(p[k], `${model}.${k}`).toBeGreaterThan(0);
      expect(p.output, model).toBeGreaterThan(p.input);
      expect(p.cacheRead, model).toBeLessThanOrEqual(p.input);
    }
  });
});
