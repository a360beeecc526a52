/** ProviderError is a durable-agent error (providers/types.ts). */
import { describe, expect, it } from 'vitest';
import { DurableAgentError, isDurableAgentError } from '../../core/errors';
import { ProviderError } from '../../providers/types';

describe('ProviderError', () => {
  it('extends DurableAgentError with code provider_error, keeping its fields', () => {
    const cause = new Error('socket hang up');
    const err = new ProviderError('Anthropic rate_limit_error (429): slow down', { kind: 'rate_limit', retryable: true, status: 429, type: 'rate_limit_error', retryAfterMs: 7000, cause });
    expect(err).toBeInstanceOf(DurableAgentError);
    expect(err).toBeInstanceOf(ProviderError);
    expect(isDurableAgentError(err, 'provider_error')).toBe(true);
    expect(err).toMatchObject({ code: 'provider_error', name: 'ProviderError', kind: 'rate_limit', retryable: true, status: 429, type: 'rate_limit_error', retryAfterMs: 7000 });
    expect(err.message).toBe('Anthropic rate_limit_error (429): slow down');
    expect(err.cause).toBe(cause);
    const bare = new ProviderError('x', { kind: 'unknown', retryable: false });
    expect(bare.status).toBeUndefined();
    expect(bare.cause).toBeUndefined();
  });
});
