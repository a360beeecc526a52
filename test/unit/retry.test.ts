/** Model-call retry decisions (core/retry.ts). */
import { describe, expect, it } from 'vitest';
import type { AttemptFailure } from '../../src/core/run/retry';
import { modelForAttempt, modelLabel, retryDelay, shouldRetry } from '../../src/core/run/retry';
import type { ModelRef, RetrySpec } from '../../src/core/run/spec';

const POLICY: RetrySpec = { maximumAttempts: 4, initialIntervalMs: 1000, backoffCoefficient: 2, maximumIntervalMs: 5000 };
const transient: AttemptFailure = { message: 'overloaded', type: 'overloaded_error', retryable: true };
const final: AttemptFailure = { message: 'bad request', type: 'invalid_request_error', retryable: false };

describe('shouldRetry', () => {
  it('retries retryable failures until maximumAttempts attempts were made', () => {
    expect([1, 2, 3, 4, 5].map((a) => shouldRetry(transient, a, POLICY))).toEqual([true, true, true, false, false]);
  });

  it('never retries a non-retryable failure', () => {
    expect([1, 2, 3].map((a) => shouldRetry(final, a, POLICY))).toEqual([false, false, false]);
  });

  it('treats maximumAttempts 1 as no retry', () => {
    expect(shouldRetry(transient, 1, { ...POLICY, maximumAttempts: 1 })).toBe(false);
  });
});

describe('retryDelay', () => {
  const delays = (policy: RetrySpec, attempts: number[]) => attempts.map((a) => retryDelay(policy, a));

  it('backs off exponentially from the initial interval', () => {
    expect(delays(POLICY, [1, 2, 3])).toEqual([{ delayMs: 1000 }, { delayMs: 2000 }, { delayMs: 4000 }]);
  });

  it('caps the backoff at the maximum interval, without reporting a request', () => {
    expect(delays(POLICY, [4, 5, 30])).toEqual([{ delayMs: 5000 }, { delayMs: 5000 }, { delayMs: 5000 }]);
  });

  it('rounds fractional backoff to whole milliseconds', () => {
    const policy: RetrySpec = { maximumAttempts: 9, initialIntervalMs: 100, backoffCoefficient: 1.5, maximumIntervalMs: 10_000 };
    expect(delays(policy, [1, 2, 3, 4]).map((d) => d.delayMs)).toEqual([100, 150, 225, 338]);
  });

  it('waits exactly what Retry-After asked for when it is within the maximum interval, even zero', () => {
    expect(retryDelay(POLICY, 3, 250)).toEqual({ delayMs: 250 });
    expect(retryDelay(POLICY, 3, 0)).toEqual({ delayMs: 0 });
    expect(retryDelay(POLICY, 1, 1234.6)).toEqual({ delayMs: 1235 });
    // Shorter than the backoff would be: the provider's answer wins.
    expect(retryDelay(POLICY, 3, 10)).toEqual({ delayMs: 10 });
  });

  it('waits exactly the maximum interval when Retry-After asks for exactly that, reporting nothing', () => {
    expect(retryDelay(POLICY, 1, 5000)).toEqual({ delayMs: 5000 });
  });

  it('caps a longer Retry-After at the maximum interval and reports what was asked', () => {
    expect(retryDelay(POLICY, 1, 12_000)).toEqual({ delayMs: 5000, requestedDelayMs: 12_000 });
    expect(retryDelay(POLICY, 1, 5000.6)).toEqual({ delayMs: 5000, requestedDelayMs: 5001 });
    expect(retryDelay(POLICY, 2, 3_600_000)).toEqual({ delayMs: 5000, requestedDelayMs: 3_600_000 });
  });

  it('ignores a negative Retry-After', () => {
    expect(retryDelay(POLICY, 2, -5)).toEqual({ delayMs: 2000 });
  });
});

describe('modelForAttempt', () => {
  const a: ModelRef = { provider: 'anthropic', model: 'primary' };
  const b: ModelRef = { provider: 'anthropic', model: 'fallback-1' };
  const c: ModelRef = { provider: 'openai', model: 'fallback-2' };

  it('starts with the primary and cycles through the fallbacks', () => {
    expect([1, 2, 3, 4, 5, 6, 7].map((n) => modelForAttempt([a, b, c], n).model)).toEqual([
      'primary',
      'fallback-1',
      'fallback-2',
      'primary',
      'fallback-1',
      'fallback-2',
      'primary',
    ]);
  });

  it('keeps using a lone model', () => {
    expect([1, 2, 9].map((n) => modelForAttempt([a], n))).toEqual([a, a, a]);
  });

  it('rejects an empty model list', () => {
    expect(() => modelForAttempt([], 1)).toThrow(/at least one model/);
  });

  it('labels a model provider/model', () => {
    expect(modelLabel(c)).toBe('openai/fallback-2');
  });
});
