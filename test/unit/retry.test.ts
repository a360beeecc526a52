/** Model-call retry decisions (core/retry.ts). */
import { describe, expect, it } from 'vitest';
import type { AttemptFailure } from '../../core/retry';
import { modelForAttempt, modelLabel, retryDelayMs, shouldRetry } from '../../core/retry';
import type { ModelRef, RetrySpec } from '../../core/spec';

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

describe('retryDelayMs', () => {
  it('backs off exponentially from the initial interval', () => {
    expect([1, 2, 3].map((a) => retryDelayMs(POLICY, a))).toEqual([1000, 2000, 4000]);
  });

  it('caps the backoff at the maximum interval', () => {
    expect([4, 5, 30].map((a) => retryDelayMs(POLICY, a))).toEqual([5000, 5000, 5000]);
  });

  it('rounds fractional backoff to whole milliseconds', () => {
    const policy: RetrySpec = { maximumAttempts: 9, initialIntervalMs: 100, backoffCoefficient: 1.5, maximumIntervalMs: 10_000 };
    expect([1, 2, 3, 4].map((a) => retryDelayMs(policy, a))).toEqual([100, 150, 225, 338]);
  });

  it('waits exactly what Retry-After asked for, even beyond the cap or zero', () => {
    expect(retryDelayMs(POLICY, 1, 12_000)).toBe(12_000);
    expect(retryDelayMs(POLICY, 3, 250)).toBe(250);
    expect(retryDelayMs(POLICY, 3, 0)).toBe(0);
    expect(retryDelayMs(POLICY, 1, 1234.6)).toBe(1235);
  });

  it('ignores a negative Retry-After', () => {
    expect(retryDelayMs(POLICY, 2, -5)).toBe(2000);
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
