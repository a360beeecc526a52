/**
 * The Anthropic provider against a local replay server, through the real `@anthropic-ai/sdk`: the
 * project's own stream fixtures assembled, the request it sends, every error class, cancellation.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Message } from '../../src/core/messages/messages';
import { AnthropicProvider } from '../../src/integrations/providers/anthropic';
import type { ProviderError } from '../../src/integrations/providers/types';
import { callContext, expectDeltasAddUp, failedCall, rejection, replayCall, request, waitFor } from './context';
import { ReplayServer, sseFrames } from './replay-server';
import { anthropicErrorBody, anthropicMessage, fixture } from './sse';

const KEY = 'test-key-anthropic-unit-5f1c';
let server: ReplayServer;
let provider: AnthropicProvider;

beforeAll(async () => {
  server = await ReplayServer.start();
  provider = new AnthropicProvider({ apiKey: KEY, baseURL: server.origin });
});
afterAll(async () => {
  await server?.close();
});
afterEach(() => {
  vi.unstubAllEnvs();
});

/** Replay `sse` for one call of `provider`: the response and the request the server saw. */
function replay(sse: string | string[], req = request('claude-test-model'), p = provider) {
  return replayCall(server, p, sse, req);
}

/** The message JSON.parse gives for `text`. */
function parseError(text: string): string {
  try {
    JSON.parse(text);
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error(`${text} is valid JSON`);
}

function failure(reply: Parameters<ReplayServer['enqueue']>[0], p = provider): Promise<ProviderError> {
  return failedCall(server, p, reply, request('claude-test-model'));
}

describe('AnthropicProvider: assembling streams', () => {
  it('assembles text, skipping pings and tolerating unknown events, blocks and fields', async () => {
    const { response, ctx } = await replay(fixture('anthropic/text_tolerant.sse'));
    expect(response).toEqual({
      message: { role: 'assistant', content: [{ type: 'text', text: 'Bonjour le monde.' }] },
      stopReason: 'end_turn',
      usage: { inputTokens: 25, outputTokens: 9, cacheReadTokens: 0, cacheWriteTokens: 0 },
      model: 'claude-haiku-4-5-20251001',
    });
    // One heartbeat per stream event (pings are not events).
    expect(ctx.beats).toBe(12);
  });

  it('streams text and tool-call argument deltas that add up to the answer', async () => {
    const { response, ctx } = await replay(fixture('anthropic/parallel_tools.sse'));
    expect(ctx.deltas.filter((d) => d.type === 'tool_args').length).toBeGreaterThan(2);
    expectDeltasAddUp(ctx.deltas, response.message);
    const text = await replay(fixture('anthropic/text_tolerant.sse'));
    expect(text.ctx.deltas.length).toBeGreaterThan(1);
    expectDeltasAddUp(text.ctx.deltas, text.response.message);
  });

  it('assembles parallel tool calls from input_json_delta chunks split inside keys', async () => {
    const { response } = await replay(fixture('anthropic/parallel_tools.sse'));
    expect(response.stopReason).toBe('tool_use');
    expect(response.message.content).toEqual([
      { type: 'text', text: 'Reading both files.' },
      { type: 'tool_use', id: 'toolu_da02first', name: 'read_file', input: { path: 'a.txt' } },
      { type: 'tool_use', id: 'toolu_da02second', name: 'read_file', input: { path: 'b.txt', max_bytes: 100 } },
    ]);
    expect(response.usage).toEqual({ inputTokens: 640, outputTokens: 88, cacheReadTokens: 0, cacheWriteTokens: 0 });
  });

  it('keeps a tool input sent whole in content_block_start when only an empty delta follows', async () => {
    const { response } = await replay(fixture('anthropic/tool_input_in_start.sse'));
    expect(response.message.content).toEqual([
      { type: 'tool_use', id: 'toolu_da03whole', name: 'get_weather', input: { city: 'Oslo', units: 'metric' } },
    ]);
  });

  it('flags a tool call cut off by max_tokens as incomplete, keeping the complete one', async () => {
    const { response } = await replay(fixture('anthropic/max_tokens_mid_tool.sse'));
    expect(response.stopReason).toBe('max_tokens');
    const [text, done, cut] = response.message.content;
    expect(text).toEqual({ type: 'text', text: 'Writing both notes.' });
    expect(done).toEqual({ type: 'tool_use', id: 'toolu_da06done', name: 'write_file', input: { path: 'notes.md', text: 'short' } });
    // The cut-off JSON is kept as sent, never completed into arguments the model did not send.
    expect(cut).toEqual({
      type: 'tool_use',
      id: 'toolu_da06cut',
      name: 'write_file',
      input: '{"path": "long.md", "text": "Once upon a',
      inputError: parseError('{"path": "long.md", "text": "Once upon a'),
      incomplete: true,
    });
  });

  it('keeps tool input that is not valid JSON as the raw text with the parse error, and JSON that is not an object as sent', async () => {
    const broken = '{"orderId":"A1","amount": 5';
    const sse = anthropicMessage({
      model: 'claude-test-model',
      blocks: [
        { type: 'tool_use', id: 'toolu_broken', name: 'refund', input: null, json: broken },
        { type: 'tool_use', id: 'toolu_array', name: 'refund', input: ['A1', 'A2'] },
        { type: 'tool_use', id: 'toolu_string', name: 'refund', input: 'A1' },
      ],
      stopReason: 'tool_use',
      usage: { input: 5, output: 30 },
    });
    const { response } = await replay(sse);
    expect(response.message.content).toEqual([
      { type: 'tool_use', id: 'toolu_broken', name: 'refund', input: broken, inputError: parseError(broken) },
      { type: 'tool_use', id: 'toolu_array', name: 'refund', input: ['A1', 'A2'] },
      { type: 'tool_use', id: 'toolu_string', name: 'refund', input: 'A1' },
    ]);
  });

  it('reports cache reads and writes apart from uncached input', async () => {
    const { response } = await replay(fixture('anthropic/cached_usage.sse'));
    expect(response.usage).toEqual({ inputTokens: 12, outputTokens: 30, cacheReadTokens: 40_000, cacheWriteTokens: 1500 });
  });

  it('maps every stop_reason', async () => {
    const reasons = {
      end_turn: 'end_turn',
      stop_sequence: 'stop_sequence',
      max_tokens: 'max_tokens',
      tool_use: 'tool_use',
      pause_turn: 'pause_turn',
      refusal: 'refusal',
      model_context_window_exceeded: 'other',
      some_future_reason: 'other',
    } as const;
    for (const [wire, ours] of Object.entries(reasons)) {
      const sse = anthropicMessage({
        model: 'claude-test-model',
        blocks: [{ type: 'text', text: `stopped by ${wire}` }],
        stopReason: wire,
        usage: { input: 5, output: 3 },
      });
      const { response } = await replay(sse);
      expect(response.stopReason, wire).toBe(ours);
      expect(response.message.content).toEqual([{ type: 'text', text: `stopped by ${wire}` }]);
    }
  });

  it('sends the thinking block and its signature back unchanged, with tool results in call order', async () => {
    const tools = [
      {
        name: 'lookup',
        description: 'Look a fact up',
        inputSchema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
      },
    ];
    const prompt: Message = { role: 'user', content: [{ type: 'text', text: 'At what temperature does water boil?' }] };
    const first = await replay(
      fixture('anthropic/thinking_tool.sse'),
      request('claude-test-model', [prompt], { tools, maxTokens: 4096, thinking: { budgetTokens: 2048 }, temperature: 0.2 }),
    );
    expect(first.response.message.content).toEqual([
      {
        type: 'thinking',
        thinking: 'The question is about a physical constant; I should look it up rather than guess.',
        signature: 'ZGEtc2lnLTAxOnRoaW5raW5nLWJsb2NrLXNpZ25hdHVyZS0rL1E9PQ==',
      },
      { type: 'redacted_thinking', data: 'ZGEtcmVkYWN0ZWQtb3BhcXVlLWJsb2I=' },
      { type: 'tool_use', id: 'toolu_da04lookup', name: 'lookup', input: { q: 'boiling point of water' } },
    ]);
    expect(first.sent.body).toMatchObject({ thinking: { type: 'enabled', budget_tokens: 2048 }, max_tokens: 4096 });
    // The API accepts no temperature but its default while thinking.
    expect(first.sent.body).not.toHaveProperty('temperature');

    const messages: Message[] = [
      prompt,
      first.response.message,
      {
        role: 'user',
        content: [
          { type: 'tool_result', toolUseId: 'toolu_da04lookup', output: { type: 'text', text: '100 °C at 1 atm' }, isError: false },
        ],
      },
    ];
    const second = await replay(
      fixture('anthropic/thinking_answer.sse'),
      request('claude-test-model', messages, { tools, maxTokens: 4096, thinking: { budgetTokens: 2048 } }),
    );
    expect(second.response.message.content).toEqual([{ type: 'text', text: 'Water boils at 100 °C at sea level.' }]);
    const sentMessages = second.sent.body.messages as Array<{ role: string; content: Array<Record<string, unknown>> }>;
    expect(sentMessages[1]!.content).toEqual([
      {
        type: 'thinking',
        thinking: 'The question is about a physical constant; I should look it up rather than guess.',
        signature: 'ZGEtc2lnLTAxOnRoaW5raW5nLWJsb2NrLXNpZ25hdHVyZS0rL1E9PQ==',
      },
      { type: 'redacted_thinking', data: 'ZGEtcmVkYWN0ZWQtb3BhcXVlLWJsb2I=' },
      { type: 'tool_use', id: 'toolu_da04lookup', name: 'lookup', input: { q: 'boiling point of water' } },
    ]);
    expect(sentMessages[2]!.content).toEqual([
      {
        type: 'tool_result',
        tool_use_id: 'toolu_da04lookup',
        content: [{ type: 'text', text: '100 °C at 1 atm' }],
        cache_control: { type: 'ephemeral' },
      },
    ]);
  });

  it('refuses a thinking budget not below maxTokens before calling the API', async () => {
    const before = server.requests.length;
    const err = await rejection(
      provider.generate(request('claude-test-model', 'hi', { maxTokens: 2000, thinking: { budgetTokens: 2000 } }), callContext()),
    );
    expect(err).toMatchObject({ kind: 'invalid_request', retryable: false });
    expect((err as Error).message).toMatch(/thinking budget \(2000 tokens\) must be less than maxTokens \(2000\)/);
    expect(server.requests.length).toBe(before);
  });
});

describe('AnthropicProvider: the request', () => {
  const tools = [
    { name: 'read_file', description: 'Read a file', inputSchema: { type: 'object', properties: { path: { type: 'string' } } } },
    { name: 'write_file', description: 'Write a file', inputSchema: { type: 'object', properties: { path: { type: 'string' } } } },
  ];
  const conversation: Message[] = [
    { role: 'user', content: [{ type: 'text', text: 'Copy a.txt to b.txt' }] },
    { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'read_file', input: { path: 'a.txt' } }] },
    { role: 'user', content: [{ type: 'tool_result', toolUseId: 't1', output: { type: 'text', text: 'hello' }, isError: false }] },
    {
      role: 'assistant',
      content: [
        { type: 'text', text: '' },
        { type: 'tool_use', id: 't2', name: 'write_file', input: { path: 'b.txt' } },
      ],
    },
    { role: 'user', content: [{ type: 'tool_result', toolUseId: 't2', output: { type: 'text', text: 'disk full' }, isError: true }] },
  ];
  const text = anthropicMessage({
    model: 'claude-test-model',
    blocks: [{ type: 'text', text: 'ok' }],
    stopReason: 'end_turn',
    usage: { input: 1, output: 1 },
  });

  it('puts cache breakpoints on tools, system and the last two user turns, and sends the key', async () => {
    const { sent } = await replay(text, request('claude-test-model', conversation, { system: 'You copy files.', tools, temperature: 0.3 }));
    expect(sent.method).toBe('POST');
    expect(sent.path).toBe('/v1/messages');
    // This SDK version sends the API key as a bearer token.
    expect(sent.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(sent.headers['anthropic-version']).toBeTruthy();
    expect(sent.body).toEqual({
      model: 'claude-test-model',
      max_tokens: 1024,
      stream: true,
      temperature: 0.3,
      system: [{ type: 'text', text: 'You copy files.', cache_control: { type: 'ephemeral' } }],
      tools: [
        { name: 'read_file', description: 'Read a file', input_schema: tools[0]!.inputSchema },
        { name: 'write_file', description: 'Write a file', input_schema: tools[1]!.inputSchema, cache_control: { type: 'ephemeral' } },
      ],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Copy a.txt to b.txt' }] },
        { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'read_file', input: { path: 'a.txt' } }] },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 't1', content: [{ type: 'text', text: 'hello' }], cache_control: { type: 'ephemeral' } },
          ],
        },
        // the empty text block is not sent (the API rejects empty text)
        { role: 'assistant', content: [{ type: 'tool_use', id: 't2', name: 'write_file', input: { path: 'b.txt' } }] },
        {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              tool_use_id: 't2',
              content: [{ type: 'text', text: 'disk full' }],
              is_error: true,
              cache_control: { type: 'ephemeral' },
            },
          ],
        },
      ],
    });
  });

  it('sends a call whose input is not an object back with {} (the API takes only objects)', async () => {
    const broken = '{"orderId":"A1","amount": 5';
    const messages: Message[] = [
      { role: 'user', content: [{ type: 'text', text: 'Refund A1' }] },
      {
        role: 'assistant',
        content: [
          { type: 'tool_use', id: 't1', name: 'refund', input: broken, inputError: parseError(broken) },
          { type: 'tool_use', id: 't2', name: 'refund', input: ['A1'] },
          { type: 'tool_use', id: 't3', name: 'refund', input: { orderId: 'A1' } },
        ],
      },
      {
        role: 'user',
        content: ['t1', 't2', 't3'].map((id) => ({
          type: 'tool_result' as const,
          toolUseId: id,
          output: { type: 'text' as const, text: 'r' },
          isError: false,
        })),
      },
    ];
    const { sent } = await replay(text, request('claude-test-model', messages, { tools }));
    expect((sent.body.messages as Array<{ content: unknown }>)[1]!.content).toEqual([
      { type: 'tool_use', id: 't1', name: 'refund', input: {} },
      { type: 'tool_use', id: 't2', name: 'refund', input: {} },
      { type: 'tool_use', id: 't3', name: 'refund', input: { orderId: 'A1' } },
    ]);
  });

  it('sends no cache_control when prompt caching is off', async () => {
    const p = new AnthropicProvider({ apiKey: KEY, baseURL: server.origin, promptCaching: false });
    const { sent } = await replay(text, request('claude-test-model', conversation, { system: 'You copy files.', tools }), p);
    expect(JSON.stringify(sent.body)).not.toContain('cache_control');
    expect(sent.body.system).toEqual([{ type: 'text', text: 'You copy files.' }]);
  });

  it('reads ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL from the environment', async () => {
    vi.stubEnv('ANTHROPIC_API_KEY', 'test-key-from-env-77');
    vi.stubEnv('ANTHROPIC_BASE_URL', server.origin);
    const { sent, response } = await replay(text, request('claude-test-model'), new AnthropicProvider());
    expect(sent.headers.authorization).toBe('Bearer test-key-from-env-77');
    expect(response.message.content).toEqual([{ type: 'text', text: 'ok' }]);
  });

  it('fails without retrying when no key is configured, before any request', async () => {
    vi.stubEnv('ANTHROPIC_API_KEY', '');
    vi.stubEnv('ANTHROPIC_BASE_URL', server.origin);
    const before = server.requests.length;
    const err = await rejection(new AnthropicProvider().generate(request('claude-test-model'), callContext()));
    expect(err).toMatchObject({ kind: 'authentication', retryable: false, type: 'authentication_error' });
    expect((err as Error).message).toMatch(/ANTHROPIC_API_KEY is not set/);
    expect(server.requests.length).toBe(before);
  });
});

describe('AnthropicProvider: errors', () => {
  it.each([
    [400, 'invalid_request_error', 'prompt is too long: 215013 tokens > 200000 maximum', 'context_overflow'],
    [400, 'invalid_request_error', 'messages: roles must alternate between "user" and "assistant"', 'invalid_request'],
    [401, 'authentication_error', 'invalid x-api-key', 'authentication'],
    [402, 'billing_error', 'Your credit balance is too low', 'permission'],
    [403, 'permission_error', 'Your API key does not have permission to use the specified resource.', 'permission'],
    [404, 'not_found_error', 'model: claude-nonexistent-9', 'not_found'],
    [413, 'request_too_large', 'Request exceeds the maximum allowed number of bytes.', 'request_too_large'],
    [422, 'invalid_request_error', 'Unprocessable', 'invalid_request'],
  ] as const)('does not retry HTTP %i (%s), and says why', async (status, type, message, kind) => {
    const err = await failure({ status, json: anthropicErrorBody(type, message), headers: { 'request-id': 'req_test_0001' } });
    expect(err).toMatchObject({ kind, retryable: false, status, type });
    expect(err.message).toBe(`Anthropic ${type} (${status}): ${message} [request id req_test_0001]`);
    expect(err.retryAfterMs).toBeUndefined();
  });

  it.each([
    [408, 'timeout_error', 'timeout'],
    [409, 'api_error', 'server'],
    [429, 'rate_limit_error', 'rate_limit'],
    [500, 'api_error', 'server'],
    [502, 'api_error', 'server'],
    [503, 'api_error', 'server'],
    [504, 'timeout_error', 'timeout'],
    [529, 'overloaded_error', 'overloaded'],
  ] as const)('retries HTTP %i (%s)', async (status, type, kind) => {
    const err = await failure({ status, json: anthropicErrorBody(type, 'try later') });
    expect(err).toMatchObject({ kind, retryable: true, status, type });
  });

  it('carries Retry-After as the next retry delay', async () => {
    const err = await failure({ status: 429, json: anthropicErrorBody('rate_limit_error', 'slow down'), headers: { 'retry-after': '7' } });
    expect(err).toMatchObject({ kind: 'rate_limit', retryable: true, retryAfterMs: 7000 });
    const ms = await failure({
      status: 529,
      json: anthropicErrorBody('overloaded_error', 'Overloaded'),
      headers: { 'retry-after-ms': '1250', 'retry-after': '9' },
    });
    expect(ms.retryAfterMs).toBe(1250);
  });

  it('does not retry an HTTP 200 whose body is JSON instead of an event stream, and says what came back', async () => {
    const err = await failure({ status: 200, json: { error: { type: 'proxy_error', message: 'streaming is disabled on this gateway' } } });
    expect(err).toMatchObject({ kind: 'invalid_response', retryable: false, status: 200, type: 'not_event_stream' });
    expect(err.message).toBe(
      'Anthropic answered HTTP 200 without streaming: expected a server-sent event stream, received application/json: {"error":{"type":"proxy_error","message":"streaming is disabled on this gateway"}}',
    );
    const long = await failure({ status: 200, json: { content: 'y'.repeat(5000) } });
    expect(long.message).toContain(`received application/json: {"content":"${'y'.repeat(300 - 12)}…`);
    expect(long.message.length).toBeLessThan(450);
  });

  it('retries a 5xx without a JSON body', async () => {
    const err = await failure({ status: 502, json: 'Bad Gateway' });
    expect(err).toMatchObject({ kind: 'server', retryable: true, status: 502 });
  });

  it("follows the server's x-should-retry advice", async () => {
    const err = await failure({
      status: 500,
      json: anthropicErrorBody('api_error', 'do not retry this one'),
      headers: { 'x-should-retry': 'false' },
    });
    expect(err).toMatchObject({ retryable: false, status: 500 });
  });

  it('retries an overloaded error event arriving after HTTP 200, dropping the partial text', async () => {
    const err = await failure({ sse: fixture('anthropic/overloaded_midstream.sse') });
    expect(err).toMatchObject({ kind: 'overloaded', retryable: true, type: 'overloaded_error' });
    expect(err.status).toBeUndefined();
    expect(err.message).toBe('Anthropic overloaded_error: Overloaded');
  });

  it('retries a connection reset in the middle of the stream', async () => {
    const frames = sseFrames(fixture('anthropic/thinking_answer.sse')).slice(0, 3);
    const err = await failure({ sse: frames, cut: true });
    expect(err).toMatchObject({ kind: 'connection', retryable: true });
  });

  it('retries a connection dropped before any response', async () => {
    const err = await failure({ reset: true });
    expect(err).toMatchObject({ kind: 'connection', retryable: true });
  });

  it('retries a stream that ends cleanly but before message_stop', async () => {
    const frames = sseFrames(fixture('anthropic/thinking_answer.sse')).slice(0, 4);
    const err = await failure({ sse: frames });
    expect(err).toMatchObject({ kind: 'connection', retryable: true });
    expect(err.message).toMatch(/ended before message_stop/);
  });

  it('retries a request that timed out waiting for the response', async () => {
    const p = new AnthropicProvider({ apiKey: KEY, baseURL: server.origin, timeoutMs: 300 });
    const err = await failure({ hang: true }, p);
    expect(err).toMatchObject({ kind: 'timeout', retryable: true });
  });

  it('aborts the HTTP stream when the call is cancelled, rejecting with the abort reason', async () => {
    const frames = anthropicMessage({
      model: 'claude-test-model',
      blocks: [{ type: 'text', text: 'x'.repeat(400) }],
      stopReason: 'end_turn',
      usage: { input: 1, output: 1 },
      chunk: 4,
    });
    server.enqueue({ sse: frames, frameDelayMs: 50 });
    const ctx = callContext();
    const call = provider.generate(request('claude-test-model'), ctx);
    const rec = await waitFor(() =>
      server.requests.find((r) => r.framesSent >= 3 && r.framesTotal === frames.length && !r.finishedAt && !r.abortedAt),
    );
    const reason = new Error('run cancelled');
    ctx.controller.abort(reason);
    expect(await rejection(call)).toBe(reason);
    await waitFor(() => rec.abortedAt);
    expect(rec.framesSent).toBeLessThan(rec.framesTotal);
  });

  it('retries a stream whose error frame lacks its event line (the SDK skips it; the stream ends unfinished)', async () => {
    const frames = [
      ...sseFrames(fixture('anthropic/overloaded_midstream.sse')).slice(0, 3),
      `data: ${JSON.stringify({ type: 'error', error: { type: 'api_error', message: 'Internal' } })}\n\n`,
    ];
    const err = await failure({ sse: frames });
    expect(err).toMatchObject({ kind: 'connection', retryable: true });
  });
});
