/**
 * The Anthropic provider's pure parts (providers/anthropic*.ts): message mapping, cache breakpoints,
 * Retry-After, error classes, stream assembly.
 */
import { createRequire } from 'node:module';
import type * as AnthropicModule from '@anthropic-ai/sdk';
import type { MessageParam } from '@anthropic-ai/sdk/resources/messages';
import { describe, expect, it } from 'vitest';
import type { Message } from '../../src/core/messages/messages';
import {
  AnthropicStreamAssembler,
  anthropicParams,
  classifyAnthropicError,
  markCacheTail,
  retryAfterMs,
  toAnthropicMessages,
} from '../../src/integrations/providers/anthropic';
import { ProviderError } from '../../src/integrations/providers/types';

// The SDK as the provider loads it (CommonJS, on first use): its error classes are the ones it classifies
// (an ESM import here would load the package's ESM build, whose classes are others).
const Anthropic = (createRequire(__filename)('@anthropic-ai/sdk') as typeof AnthropicModule).default;

const NOW = Date.parse('2025-10-21T07:28:00.000Z');

describe('retryAfterMs', () => {
  it('reads Retry-After in seconds', () => {
    expect(retryAfterMs(new Headers({ 'retry-after': '5' }), NOW)).toBe(5000);
    expect(retryAfterMs(new Headers({ 'retry-after': '1.5' }), NOW)).toBe(1500);
    expect(retryAfterMs(new Headers({ 'retry-after': '0' }), NOW)).toBe(0);
    expect(retryAfterMs(new Headers({ 'retry-after': '-3' }), NOW)).toBe(0);
  });

  it('reads Retry-After as an HTTP date', () => {
    expect(retryAfterMs(new Headers({ 'retry-after': 'Tue, 21 Oct 2025 07:28:30 GMT' }), NOW)).toBe(30_000);
    expect(retryAfterMs(new Headers({ 'retry-after': 'Tue, 21 Oct 2025 07:00:00 GMT' }), NOW)).toBe(0);
  });

  it('prefers retry-after-ms', () => {
    expect(retryAfterMs(new Headers({ 'retry-after-ms': '250', 'retry-after': '9' }), NOW)).toBe(250);
    expect(retryAfterMs(new Headers({ 'retry-after-ms': '0' }), NOW)).toBe(0);
    expect(retryAfterMs(new Headers({ 'retry-after-ms': 'soon', 'retry-after': '2' }), NOW)).toBe(2000);
  });

  it('is undefined when absent or unreadable', () => {
    expect(retryAfterMs(undefined, NOW)).toBeUndefined();
    expect(retryAfterMs(new Headers(), NOW)).toBeUndefined();
    expect(retryAfterMs(new Headers({ 'retry-after': 'soon' }), NOW)).toBeUndefined();
    expect(retryAfterMs(new Headers({ 'retry-after': '' }), NOW)).toBeUndefined();
  });
});

describe('toAnthropicMessages', () => {
  it('maps every block kind', () => {
    const messages: Message[] = [
      { role: 'user', content: [{ type: 'text', text: 'hi' }] },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'let me think', signature: 'sig-abc' },
          { type: 'redacted_thinking', data: 'opaque' },
          { type: 'text', text: 'Reading.' },
          { type: 'tool_use', id: 'toolu_1', name: 'read', input: { path: 'a' } },
          { type: 'tool_use', id: 'toolu_2', name: 'read', input: { path: 'b' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', toolUseId: 'toolu_1', output: { type: 'text', text: 'contents' }, isError: false },
          { type: 'tool_result', toolUseId: 'toolu_2', output: { type: 'text', text: 'no such file' }, isError: true },
          { type: 'text', text: 'thanks' },
        ],
      },
    ];
    expect(toAnthropicMessages(messages)).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'hi' }] },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'let me think', signature: 'sig-abc' },
          { type: 'redacted_thinking', data: 'opaque' },
          { type: 'text', text: 'Reading.' },
          { type: 'tool_use', id: 'toolu_1', name: 'read', input: { path: 'a' } },
          { type: 'tool_use', id: 'toolu_2', name: 'read', input: { path: 'b' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'contents' }] },
          { type: 'tool_result', tool_use_id: 'toolu_2', content: [{ type: 'text', text: 'no such file' }], is_error: true },
          { type: 'text', text: 'thanks' },
        ],
      },
    ]);
  });

  it('sends the preview of an unresolved stored output', () => {
    const [m] = toAnthropicMessages([
      {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            toolUseId: 't',
            output: { type: 'stored', ref: 'sha256-x', bytes: 10, preview: 'start…' },
            isError: false,
          },
        ],
      },
    ]);
    expect(m?.content).toEqual([{ type: 'tool_result', tool_use_id: 't', content: [{ type: 'text', text: 'start…' }] }]);
  });

  it('leaves out empty text, unsigned thinking and messages left empty; an empty tool output has no content', () => {
    expect(
      toAnthropicMessages([
        { role: 'user', content: [{ type: 'text', text: 'go' }] },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'from another provider', signature: '' },
            { type: 'text', text: '' },
          ],
        },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: '' },
            { type: 'tool_use', id: 't', name: 'x', input: {} },
          ],
        },
        { role: 'user', content: [{ type: 'tool_result', toolUseId: 't', output: { type: 'text', text: '' }, isError: false }] },
      ]),
    ).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'go' }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'x', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't' }] },
    ]);
  });
});

describe('prompt caching', () => {
  const user = (text: string): MessageParam => ({ role: 'user', content: [{ type: 'text', text }] });
  const assistant = (text: string): MessageParam => ({ role: 'assistant', content: [{ type: 'text', text }] });
  const marked = (m: MessageParam) => JSON.stringify(m).includes('cache_control');

  it('marks the last block of the last two user messages only', () => {
    const out = markCacheTail([user('a'), assistant('b'), user('c'), assistant('d'), user('e')]);
    expect(out.map(marked)).toEqual([false, false, true, false, true]);
    expect(out[4]).toEqual({ role: 'user', content: [{ type: 'text', text: 'e', cache_control: { type: 'ephemeral' } }] });
  });

  it('marks the only user message of a first call', () => {
    expect(markCacheTail([user('a')]).map(marked)).toEqual([true]);
  });

  it('does not change its input', () => {
    const input = [user('a'), assistant('b'), user('c')];
    const copy = JSON.parse(JSON.stringify(input)) as unknown;
    markCacheTail(input);
    expect(input).toEqual(copy);
  });

  it('uses at most four breakpoints in a request: tools, system and the tail', () => {
    const messages: Message[] = [];
    for (let i = 0; i < 10; i++) {
      messages.push({ role: 'user', content: [{ type: 'text', text: `u${i}` }] });
      messages.push({ role: 'assistant', content: [{ type: 'text', text: `a${i}` }] });
    }
    messages.push({ role: 'user', content: [{ type: 'text', text: 'last' }] });
    const tools = ['a', 'b', 'c'].map((name) => ({ name, description: name, inputSchema: { type: 'object' } }));
    const params = anthropicParams({ model: 'm', maxTokens: 100, system: 'sys', tools, messages }, { promptCaching: true });
    expect(JSON.stringify(params).match(/cache_control/g)).toHaveLength(4);
    expect(params.tools?.map((t) => 'cache_control' in t)).toEqual([false, false, true]);
  });
});

const body = (type: string, message: string) => ({ type: 'error', error: { type, message } });

describe('classifyAnthropicError', () => {
  it('classifies a 400 as a final invalid request', () => {
    const err = Anthropic.APIError.generate(400, body('invalid_request_error', 'messages: field required'), undefined, new Headers());
    expect(err).toBeInstanceOf(Anthropic.BadRequestError);
    const c = classifyAnthropicError(err);
    expect(c).toBeInstanceOf(ProviderError);
    expect(c).toMatchObject({ kind: 'invalid_request', retryable: false, status: 400, type: 'invalid_request_error' });
    expect(c.message).toBe('Anthropic invalid_request_error (400): messages: field required');
    expect(c.cause).toBe(err);
    expect(c.retryAfterMs).toBeUndefined();
  });

  it('classifies a 401 as a final authentication failure', () => {
    const c = classifyAnthropicError(
      Anthropic.APIError.generate(401, body('authentication_error', 'invalid x-api-key'), undefined, new Headers()),
    );
    expect(c).toMatchObject({ kind: 'authentication', retryable: false, status: 401 });
  });

  it('classifies a 429 as a retryable rate limit carrying Retry-After', () => {
    const err = Anthropic.APIError.generate(429, body('rate_limit_error', 'slow down'), undefined, new Headers({ 'retry-after': '12' }));
    expect(err).toBeInstanceOf(Anthropic.RateLimitError);
    expect(classifyAnthropicError(err)).toMatchObject({
      kind: 'rate_limit',
      retryable: true,
      status: 429,
      type: 'rate_limit_error',
      retryAfterMs: 12_000,
    });
  });

  it('classifies a 529 as retryable overload', () => {
    const err = Anthropic.APIError.generate(529, body('overloaded_error', 'Overloaded'), undefined, new Headers());
    expect(err).toBeInstanceOf(Anthropic.OverloadedError);
    expect(classifyAnthropicError(err)).toMatchObject({ kind: 'overloaded', retryable: true, status: 529, type: 'overloaded_error' });
  });

  it('classifies 5xx as retryable server errors, with or without a body', () => {
    expect(classifyAnthropicError(Anthropic.APIError.generate(500, body('api_error', 'Internal'), undefined, new Headers()))).toMatchObject(
      {
        kind: 'server',
        retryable: true,
        status: 500,
      },
    );
    const bare = classifyAnthropicError(Anthropic.APIError.generate(503, undefined, 'Service Unavailable', new Headers()));
    expect(bare).toMatchObject({ kind: 'server', retryable: true, status: 503 });
    expect(bare.type).toBeUndefined();
  });

  it('does not retry an unrecognised 4xx; retries 408 and 409', () => {
    for (const status of [402, 418, 422, 451]) {
      const c = classifyAnthropicError(Anthropic.APIError.generate(status, undefined, undefined, new Headers()));
      expect(c, String(status)).toMatchObject({ retryable: false, status, kind: 'invalid_request' });
    }
    expect(classifyAnthropicError(Anthropic.APIError.generate(408, undefined, undefined, new Headers()))).toMatchObject({
      kind: 'timeout',
      retryable: true,
    });
    expect(classifyAnthropicError(Anthropic.APIError.generate(409, undefined, undefined, new Headers()))).toMatchObject({
      retryable: true,
    });
  });

  it("follows the server's x-should-retry header over the status", () => {
    const no = classifyAnthropicError(
      Anthropic.APIError.generate(503, body('api_error', 'x'), undefined, new Headers({ 'x-should-retry': 'false' })),
    );
    expect(no.retryable).toBe(false);
    const yes = classifyAnthropicError(
      Anthropic.APIError.generate(400, body('invalid_request_error', 'x'), undefined, new Headers({ 'x-should-retry': 'true' })),
    );
    expect(yes.retryable).toBe(true);
  });

  it('keeps Retry-After only on retryable errors', () => {
    const c = classifyAnthropicError(
      Anthropic.APIError.generate(400, body('invalid_request_error', 'x'), undefined, new Headers({ 'retry-after': '5' })),
    );
    expect(c.retryAfterMs).toBeUndefined();
  });

  it('names the request id when the API gave one', () => {
    const c = classifyAnthropicError(
      Anthropic.APIError.generate(
        401,
        body('authentication_error', 'invalid x-api-key'),
        undefined,
        new Headers({ 'request-id': 'req_abc' }),
      ),
    );
    expect(c.message).toBe('Anthropic authentication_error (401): invalid x-api-key [request id req_abc]');
  });

  it('classifies other final 4xx errors by type or status', () => {
    expect(
      classifyAnthropicError(Anthropic.APIError.generate(413, body('request_too_large', 'too big'), undefined, new Headers())),
    ).toMatchObject({
      kind: 'request_too_large',
      retryable: false,
    });
    expect(classifyAnthropicError(Anthropic.APIError.generate(403, undefined, undefined, new Headers()))).toMatchObject({
      kind: 'permission',
      retryable: false,
    });
    expect(
      classifyAnthropicError(Anthropic.APIError.generate(404, body('not_found_error', 'model: x'), undefined, new Headers())),
    ).toMatchObject({
      kind: 'not_found',
      retryable: false,
    });
  });

  it('classifies an error event in the middle of a stream by its type', () => {
    const err = new Anthropic.APIError(undefined, body('overloaded_error', 'Overloaded'), undefined, new Headers());
    const c = classifyAnthropicError(err);
    expect(c).toMatchObject({ kind: 'overloaded', retryable: true, type: 'overloaded_error' });
    expect(c.status).toBeUndefined();
  });

  it('classifies connection failures and timeouts as retryable', () => {
    expect(classifyAnthropicError(new Anthropic.APIConnectionError({ message: 'socket hang up' }))).toMatchObject({
      kind: 'connection',
      retryable: true,
    });
    expect(
      classifyAnthropicError(Anthropic.APIError.generate(undefined, new Error('ECONNRESET'), 'Connection error.', undefined)),
    ).toMatchObject({
      kind: 'connection',
      retryable: true,
    });
    expect(classifyAnthropicError(new Anthropic.APIConnectionTimeoutError())).toMatchObject({ kind: 'timeout', retryable: true });
  });

  it('passes ProviderErrors through and treats anything else as a retryable unknown', () => {
    const pe = new ProviderError('already classified', { kind: 'authentication', retryable: false });
    expect(classifyAnthropicError(pe)).toBe(pe);
    expect(classifyAnthropicError(new TypeError('fetch failed'))).toMatchObject({
      kind: 'unknown',
      retryable: true,
      message: 'Anthropic call failed: fetch failed',
    });
    const reset = new TypeError('terminated', { cause: Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }) });
    expect(classifyAnthropicError(reset)).toMatchObject({
      kind: 'connection',
      retryable: true,
      message: 'Anthropic connection dropped: terminated',
    });
    expect(classifyAnthropicError('weird')).toMatchObject({ kind: 'unknown', retryable: true, message: 'Anthropic call failed: weird' });
  });
});

describe('AnthropicStreamAssembler', () => {
  it('throws on an error event delivered as a plain item, classified by its type', () => {
    const a = new AnthropicStreamAssembler();
    a.push({ type: 'message_start', message: { model: 'm', usage: { input_tokens: 1, output_tokens: 1 } } });
    let thrown: unknown;
    try {
      a.push({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } });
    } catch (err) {
      thrown = err;
    }
    expect(classifyAnthropicError(thrown)).toMatchObject({
      kind: 'overloaded',
      retryable: true,
      type: 'overloaded_error',
      message: 'Anthropic overloaded_error: Overloaded',
    });
  });

  it('is complete only after message_stop following message_start', () => {
    const a = new AnthropicStreamAssembler();
    a.push({ type: 'message_stop' });
    expect(a.complete).toBe(false);
    a.push({ type: 'message_start', message: { model: 'm', usage: {} } });
    a.push({ type: 'message_stop' });
    expect(a.complete).toBe(true);
  });

  it('ignores malformed and unknown events', () => {
    const a = new AnthropicStreamAssembler();
    for (const e of [
      null,
      'x',
      42,
      [],
      { type: 'content_block_delta' },
      { type: 'content_block_delta', index: 9, delta: { type: 'text_delta', text: 'lost' } },
      { type: 'x_new' },
    ])
      a.push(e);
    a.push({ type: 'message_start', message: { model: 'm', usage: { input_tokens: 3 } } });
    a.push({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: 'ok' } });
    a.push({ type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 2, input_tokens: null } });
    a.push({ type: 'message_stop' });
    expect(a.result()).toEqual({
      message: { role: 'assistant', content: [{ type: 'text', text: 'ok' }] },
      stopReason: 'end_turn',
      usage: { inputTokens: 3, outputTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 0 },
      model: 'm',
    });
  });
});
