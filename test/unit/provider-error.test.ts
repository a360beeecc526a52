/** ProviderError is a durable-agent error (providers/types.ts). */
import { describe, expect, it } from 'vitest';
import { DurableAgentError, isDurableAgentError } from '../../src/core/run/errors';
import { apiFailure, isContextOverflow } from '../../src/integrations/providers/errors';
import { ProviderError } from '../../src/integrations/providers/types';

describe('ProviderError', () => {
  it('extends DurableAgentError with code provider_error, keeping its fields', () => {
    const cause = new Error('socket hang up');
    const err = new ProviderError('Anthropic rate_limit_error (429): slow down', {
      kind: 'rate_limit',
      retryable: true,
      status: 429,
      type: 'rate_limit_error',
      retryAfterMs: 7000,
      cause,
    });
    expect(err).toBeInstanceOf(DurableAgentError);
    expect(err).toBeInstanceOf(ProviderError);
    expect(isDurableAgentError(err, 'provider_error')).toBe(true);
    expect(err).toMatchObject({
      code: 'provider_error',
      name: 'ProviderError',
      kind: 'rate_limit',
      retryable: true,
      status: 429,
      type: 'rate_limit_error',
      retryAfterMs: 7000,
    });
    expect(err.message).toBe('Anthropic rate_limit_error (429): slow down');
    expect(err.cause).toBe(cause);
    const bare = new ProviderError('x', { kind: 'unknown', retryable: false });
    expect(bare.status).toBeUndefined();
    expect(bare.cause).toBeUndefined();
  });
});

describe('context overflow', () => {
  it('is how each provider says the prompt does not fit the window, and it is final', () => {
    const cases: Array<[number | undefined, string | undefined, string]> = [
      [400, 'invalid_request_error', 'prompt is too long: 215013 tokens > 200000 maximum'],
      [
        400,
        'context_length_exceeded',
        "This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.",
      ],
      [400, 'exceed_context_size_error', 'the request exceeds the available context size, try increasing it'],
      [413, undefined, 'input exceeds the context window of this model'],
    ];
    for (const [status, type, message] of cases) {
      expect(isContextOverflow(status, type, message)).toBe(true);
      const err = apiFailure({
        provider: 'P',
        ...(status !== undefined ? { status } : {}),
        ...(type ? { type } : {}),
        message,
        cause: undefined,
      });
      expect(err).toMatchObject({ kind: 'context_overflow', retryable: false });
    }
    expect(isContextOverflow(400, 'invalid_request_error', 'messages: roles must alternate')).toBe(false);
    expect(isContextOverflow(429, 'rate_limit_error', 'too many tokens per minute')).toBe(false);
    expect(apiFailure({ provider: 'P', status: 400, message: 'bad field', cause: undefined }).kind).toBe('invalid_request');
  });
});
