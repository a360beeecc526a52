/**
 * The AI SDK adapter on models of the v2 specification, against the AI SDK 5's own mock model
 * (`MockLanguageModelV2` from `ai@5`'s `ai/test`, installed as `ai-v5`; streams from
 * `simulateReadableStream`; errors of `@ai-sdk/provider@2`, installed as `@ai-sdk/provider-v2`): the
 * call options it sends, text and reasoning, tool calls with streamed input deltas, usage, stop
 * reasons, error parts, APICallError classification with Retry-After, abort, and the ways models are
 * given. The v3 and v4 specifications: ai-sdk-v4.test.ts.
 */
import type { LanguageModelV2CallOptions, LanguageModelV2StreamPart, LanguageModelV2Usage } from '@ai-sdk/provider-v2';
import { APICallError, NoSuchModelError } from '@ai-sdk/provider-v2';
import { simulateReadableStream } from 'ai-v5';
import { MockLanguageModelV2, MockProviderV2 } from 'ai-v5/test';
import { describe, expect, it } from 'vitest';
import type { Message } from '../../src/core/messages/messages';
import type { ModelRequest } from '../../src/core/output/native-output';
import { aiSdkProvider, toAiSdkPrompt } from '../../src/integrations/providers/ai-sdk';
import { ProviderError } from '../../src/integrations/providers/types';
import { callContext, expectDeltasAddUp, rejection, request, waitFor } from './context';

const usage = (input: number, output: number, cached?: number): LanguageModelV2Usage => ({
  inputTokens: input,
  outputTokens: output,
  totalTokens: input + output,
  ...(cached !== undefined ? { cachedInputTokens: cached } : {}),
});

/** A mock model streaming `parts` (`delayMs` apart), recording its calls. */
function mockModel(parts: LanguageModelV2StreamPart[], opts: { delayMs?: number; provider?: string; modelId?: string } = {}) {
  return new MockLanguageModelV2({
    provider: opts.provider ?? 'mock-provider',
    modelId: opts.modelId ?? 'mock-model-id',
    doStream: async () => ({ stream: simulateReadableStream({ chunks: parts, chunkDelayInMs: opts.delayMs ?? null }) }),
  });
}

const textParts = (
  text: string[],
  finish: LanguageModelV2StreamPart = { type: 'finish', finishReason: 'stop', usage: usage(12, 3) },
): LanguageModelV2StreamPart[] => [
  { type: 'stream-start', warnings: [] },
  { type: 'response-metadata', id: 'resp-1', modelId: 'mock-model-2025', timestamp: new Date(0) },
  { type: 'text-start', id: 't1' },
  ...text.map((delta): LanguageModelV2StreamPart => ({ type: 'text-delta', id: 't1', delta })),
  { type: 'text-end', id: 't1' },
  finish,
];

/** A weather tool call streamed in pieces, then its final tool-call part. */
const toolParts: LanguageModelV2StreamPart[] = [
  { type: 'stream-start', warnings: [] },
  { type: 'reasoning-start', id: 'r1' },
  { type: 'reasoning-delta', id: 'r1', delta: 'Need the ' },
  { type: 'reasoning-delta', id: 'r1', delta: 'weather.' },
  { type: 'reasoning-end', id: 'r1' },
  { type: 'text-start', id: 't1' },
  { type: 'text-delta', id: 't1', delta: 'Checking.' },
  { type: 'text-end', id: 't1' },
  { type: 'tool-input-start', id: 'call_w1', toolName: 'weather' },
  { type: 'tool-input-delta', id: 'call_w1', delta: '{"ci' },
  { type: 'tool-input-delta', id: 'call_w1', delta: 'ty":"Par' },
  { type: 'tool-input-delta', id: 'call_w1', delta: 'is"}' },
  { type: 'tool-input-end', id: 'call_w1' },
  { type: 'tool-call', toolCallId: 'call_w1', toolName: 'weather', input: '{"city":"Paris"}' },
  // A whole call, no input deltas (as many providers send them).
  { type: 'tool-call', toolCallId: 'call_t2', toolName: 'time', input: '{"tz":"CET"}' },
  { type: 'finish', finishReason: 'tool-calls', usage: usage(200, 40, 128) },
];

const tools: ModelRequest['tools'] = [
  {
    name: 'weather',
    description: 'Weather of a city',
    inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
  { name: 'time', description: 'Time in a zone', inputSchema: { type: 'object', properties: { tz: { type: 'string' } } } },
];

describe('aiSdkProvider: answers', () => {
  it('assembles streamed text, reports usage, the answering model and end_turn, with a heartbeat per part', async () => {
    const model = mockModel(textParts(['Hel', 'lo ', 'there!']));
    const ctx = callContext();
    const response = await aiSdkProvider(model).generate(request('my-model'), ctx);
    expect(response).toEqual({
      message: { role: 'assistant', content: [{ type: 'text', text: 'Hello there!' }] },
      stopReason: 'end_turn',
      usage: { inputTokens: 12, outputTokens: 3, cacheReadTokens: 0, cacheWriteTokens: 0 },
      model: 'mock-model-2025',
    });
    expect(ctx.deltas).toEqual([
      { type: 'text', text: 'Hel' },
      { type: 'text', text: 'lo ' },
      { type: 'text', text: 'there!' },
    ]);
    expect(ctx.beats).toBe(8);
  });

  it('sends the system prompt, messages, tools, token cap and temperature as V2 call options', async () => {
    const model = mockModel(textParts(['ok']));
    const messages: Message[] = [
      { role: 'user', content: [{ type: 'text', text: 'Weather in Paris?' }] },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'Use the tool.', signature: 'sig-abc' },
          { type: 'text', text: 'Checking.' },
          { type: 'tool_use', id: 'call_1', name: 'weather', input: { city: 'Paris' } },
          { type: 'tool_use', id: 'call_2', name: 'time', input: '{"tz": "CET"', inputError: 'Unexpected end of JSON input' },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', toolUseId: 'call_1', output: { type: 'text', text: 'sunny' }, isError: false },
          { type: 'tool_result', toolUseId: 'call_2', output: { type: 'text', text: 'bad arguments' }, isError: true },
          { type: 'text', text: 'And tomorrow?' },
        ],
      },
    ];
    const provider = aiSdkProvider(model, { settings: { temperature: 0.9, topP: 0.5, providerOptions: { mock: { x: 1 } } } });
    await provider.generate(request('m', messages, { system: 'Be brief.', tools, temperature: 0.2, maxTokens: 777 }), callContext());
    const sent = model.doStreamCalls[0] as LanguageModelV2CallOptions;
    expect(sent.prompt).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: [{ type: 'text', text: 'Weather in Paris?' }] },
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'Use the tool.', providerOptions: { anthropic: { signature: 'sig-abc' } } },
          { type: 'text', text: 'Checking.' },
          { type: 'tool-call', toolCallId: 'call_1', toolName: 'weather', input: { city: 'Paris' } },
          // Arguments that were not valid JSON go back as the model sent them.
          { type: 'tool-call', toolCallId: 'call_2', toolName: 'time', input: '{"tz": "CET"' },
        ],
      },
      {
        role: 'tool',
        content: [
          { type: 'tool-result', toolCallId: 'call_1', toolName: 'weather', output: { type: 'text', value: 'sunny' } },
          { type: 'tool-result', toolCallId: 'call_2', toolName: 'time', output: { type: 'error-text', value: 'bad arguments' } },
        ],
      },
      { role: 'user', content: [{ type: 'text', text: 'And tomorrow?' }] },
    ]);
    expect(sent).toMatchObject({
      maxOutputTokens: 777,
      temperature: 0.2,
      topP: 0.5,
      providerOptions: { mock: { x: 1 } },
      toolChoice: { type: 'auto' },
      tools: tools.map((t) => ({ type: 'function', ...t })),
    });
    expect(sent.abortSignal).toBeInstanceOf(AbortSignal);
    // Without an agent temperature, the settings' one; without tools, no tools.
    await provider.generate(request('m'), callContext());
    expect(model.doStreamCalls[1]).toMatchObject({ temperature: 0.9 });
    expect(model.doStreamCalls[1]!.tools).toBeUndefined();
  });

  it('assembles reasoning, text and tool calls from streamed input deltas and whole calls; deltas add up', async () => {
    const ctx = callContext();
    const response = await aiSdkProvider(mockModel(toolParts)).generate(request('m', 'weather?', { tools }), ctx);
    expect(response.message.content).toEqual([
      { type: 'thinking', thinking: 'Need the weather.', signature: '' },
      { type: 'text', text: 'Checking.' },
      { type: 'tool_use', id: 'call_w1', name: 'weather', input: { city: 'Paris' } },
      { type: 'tool_use', id: 'call_t2', name: 'time', input: { tz: 'CET' } },
    ]);
    expect(response.stopReason).toBe('tool_use');
    // The OpenAI family counts cached tokens in inputTokens: ours never count them twice.
    expect(response.usage).toEqual({ inputTokens: 72, outputTokens: 40, cacheReadTokens: 128, cacheWriteTokens: 0 });
    expect(response.model).toBe('mock-model-id');
    expect(ctx.deltas.filter((d) => d.type === 'tool_args')).toEqual([
      { type: 'tool_args', call: 0, tool: 'weather', json: '{"ci' },
      { type: 'tool_args', call: 0, tool: 'weather', json: 'ty":"Par' },
      { type: 'tool_args', call: 0, tool: 'weather', json: 'is"}' },
      { type: 'tool_args', call: 1, tool: 'time', json: '{"tz":"CET"}' },
    ]);
    expect(ctx.deltas.filter((d) => d.type === 'thinking').map((d) => d.text)).toEqual(['Need the ', 'weather.']);
    expectDeltasAddUp(ctx.deltas, response.message);
  });

  it('keeps arguments as sent when they are not valid JSON; a cut-off call at length is incomplete', async () => {
    const broken = mockModel([
      { type: 'tool-call', toolCallId: 'c1', toolName: 'weather', input: '{"city": "Par' },
      { type: 'tool-call', toolCallId: 'c2', toolName: 'weather', input: '["Paris"]' },
      { type: 'finish', finishReason: 'tool-calls', usage: usage(5, 5) },
    ]);
    const { message } = await aiSdkProvider(broken).generate(request('m', 'go', { tools }), callContext());
    expect(message.content[0]).toEqual({
      type: 'tool_use',
      id: 'c1',
      name: 'weather',
      input: '{"city": "Par',
      inputError: expect.stringMatching(/JSON/) as unknown,
    });
    expect(message.content[1]).toEqual({ type: 'tool_use', id: 'c2', name: 'weather', input: ['Paris'] });

    const cut = mockModel([
      { type: 'text-start', id: 't' },
      { type: 'text-delta', id: 't', delta: 'Let me' },
      { type: 'tool-input-start', id: 'c3', toolName: 'weather' },
      { type: 'tool-input-delta', id: 'c3', delta: '{"city": "Pa' },
      { type: 'finish', finishReason: 'length', usage: usage(5, 100) },
    ]);
    const r = await aiSdkProvider(cut).generate(request('m', 'go', { tools }), callContext());
    expect(r.stopReason).toBe('max_tokens');
    expect(r.message.content[1]).toMatchObject({ type: 'tool_use', id: 'c3', input: '{"city": "Pa', incomplete: true });
  });

  it.each([
    ['stop', 'end_turn'],
    ['length', 'max_tokens'],
    ['tool-calls', 'tool_use'],
    ['content-filter', 'refusal'],
    ['other', 'other'],
    ['unknown', 'other'],
  ] as const)('maps finish reason %s to %s', async (finishReason, stopReason) => {
    const model = mockModel(textParts(['x'], { type: 'finish', finishReason, usage: usage(1, 1) }));
    expect((await aiSdkProvider(model).generate(request('m'), callContext())).stopReason).toBe(stopReason);
  });

  it('reads Anthropic usage (cache reads apart, cache writes from metadata) and thinking signatures', async () => {
    const model = mockModel(
      [
        { type: 'reasoning-start', id: 'r' },
        { type: 'reasoning-delta', id: 'r', delta: 'Hmm.' },
        { type: 'reasoning-delta', id: 'r', delta: '', providerMetadata: { anthropic: { signature: 'EqQBCkYIBxgCKkB' } } },
        { type: 'reasoning-end', id: 'r' },
        { type: 'reasoning-start', id: 'r2', providerMetadata: { anthropic: { redactedData: 'c2VjcmV0' } } },
        { type: 'reasoning-end', id: 'r2' },
        { type: 'text-start', id: 't' },
        { type: 'text-delta', id: 't', delta: 'Hi' },
        { type: 'text-end', id: 't' },
        {
          type: 'finish',
          finishReason: 'stop',
          usage: usage(30, 9, 500),
          providerMetadata: { anthropic: { cacheCreationInputTokens: 64 } },
        },
      ],
      { provider: 'anthropic.messages' },
    );
    const r = await aiSdkProvider(model).generate(request('claude'), callContext());
    expect(r.usage).toEqual({ inputTokens: 30, outputTokens: 9, cacheReadTokens: 500, cacheWriteTokens: 64 });
    expect(r.message.content).toEqual([
      { type: 'thinking', thinking: 'Hmm.', signature: 'EqQBCkYIBxgCKkB' },
      { type: 'redacted_thinking', data: 'c2VjcmV0' },
      { type: 'text', text: 'Hi' },
    ]);
    // And back: as @ai-sdk/anthropic reads them.
    expect(toAiSdkPrompt(undefined, [r.message])).toEqual([
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'Hmm.', providerOptions: { anthropic: { signature: 'EqQBCkYIBxgCKkB' } } },
          { type: 'reasoning', text: '', providerOptions: { anthropic: { redactedData: 'c2VjcmV0' } } },
          { type: 'text', text: 'Hi' },
        ],
      },
    ]);
    // An empty unsigned thinking block (reasoning that streamed nothing) is not sent.
    expect(
      toAiSdkPrompt(undefined, [
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: '', signature: '' },
            { type: 'text', text: 'x' },
          ],
        },
      ]),
    ).toEqual([{ role: 'assistant', content: [{ type: 'text', text: 'x' }] }]);
  });
});

/** A failing call's ProviderError. */
async function failure(model: MockLanguageModelV2, ctx = callContext()): Promise<ProviderError> {
  const err = await rejection(aiSdkProvider(model).generate(request('m'), ctx));
  expect(err).toBeInstanceOf(ProviderError);
  return err as ProviderError;
}

const throwing = (error: unknown) =>
  new MockLanguageModelV2({
    provider: 'mock-provider',
    doStream: () => Promise.reject(error),
  });

const apiError = (statusCode: number | undefined, extra: Partial<ConstructorParameters<typeof APICallError>[0]> = {}) =>
  new APICallError({
    message: `HTTP ${statusCode}`,
    url: 'http://model.test/v1/chat',
    requestBodyValues: {},
    ...(statusCode !== undefined ? { statusCode } : {}),
    ...extra,
  });

describe('aiSdkProvider: failures', () => {
  it('classifies a 429 APICallError as retryable rate_limit with its Retry-After', async () => {
    const err = await failure(
      throwing(
        apiError(429, {
          responseHeaders: { 'retry-after': '7' },
          responseBody: JSON.stringify({
            error: { message: 'Rate limit reached for requests', type: 'requests', code: 'rate_limit_exceeded' },
          }),
        }),
      ),
    );
    expect(err).toMatchObject({ kind: 'rate_limit', retryable: true, status: 429, type: 'rate_limit_exceeded', retryAfterMs: 7000 });
    expect(err.message).toContain('Rate limit reached for requests');
  });

  it('classifies 5xx as retryable and 4xx as final, with the API message; isRetryable and x-should-retry are honoured', async () => {
    expect(await failure(throwing(apiError(503)))).toMatchObject({ kind: 'server', retryable: true, status: 503 });
    expect(
      await failure(throwing(apiError(529, { data: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } } }))),
    ).toMatchObject({
      kind: 'overloaded',
      retryable: true,
      type: 'overloaded_error',
    });
    const bad = await failure(
      throwing(apiError(401, { data: { error: { message: 'Incorrect API key provided', code: 'invalid_api_key' } } })),
    );
    expect(bad).toMatchObject({ kind: 'authentication', retryable: false, status: 401, type: 'invalid_api_key' });
    expect(bad.message).toContain('Incorrect API key provided');
    expect(
      await failure(throwing(apiError(400, { data: { error: { message: "This model's maximum context length is 128000 tokens" } } }))),
    ).toMatchObject({
      kind: 'context_overflow',
      retryable: false,
    });
    // The provider package's own decision, and the server's header over it.
    expect(await failure(throwing(apiError(400, { isRetryable: true })))).toMatchObject({ retryable: true });
    expect(await failure(throwing(apiError(503, { responseHeaders: { 'x-should-retry': 'false' } })))).toMatchObject({ retryable: false });
    // A Retry-After on a final failure is not kept.
    expect((await failure(throwing(apiError(403, { responseHeaders: { 'retry-after': '3' } })))).retryAfterMs).toBeUndefined();
    expect(await failure(throwing(apiError(429, { data: { error: { message: 'quota', code: 'insufficient_quota' } } })))).toMatchObject({
      retryable: false,
    });
  });

  it('classifies a network failure as a retryable connection error, and a missing model as final', async () => {
    const net = apiError(undefined, { message: 'Cannot connect to API: connect ECONNREFUSED 127.0.0.1:9', isRetryable: true });
    expect(await failure(throwing(net))).toMatchObject({ kind: 'connection', retryable: true });
    const dropped = Object.assign(new TypeError('terminated'), {
      cause: Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }),
    });
    expect(await failure(throwing(dropped))).toMatchObject({ kind: 'connection', retryable: true });
    const provider = aiSdkProvider(() => {
      throw new NoSuchModelError({ modelId: 'gpt-9', modelType: 'languageModel' });
    });
    expect(await rejection(provider.generate(request('gpt-9'), callContext()))).toMatchObject({ kind: 'not_found', retryable: false });
  });

  it('fails on an error part: mid-stream API errors are retryable unless their type says the request is wrong', async () => {
    const midstream = mockModel([
      { type: 'text-start', id: 't' },
      { type: 'text-delta', id: 't', delta: 'Partial' },
      { type: 'error', error: { message: 'The server had an error while processing your request', type: 'server_error' } },
      { type: 'text-delta', id: 't', delta: ' never read' },
      { type: 'finish', finishReason: 'error', usage: usage(1, 1) },
    ]);
    const ctx = callContext();
    const err = await failure(midstream, ctx);
    expect(err).toMatchObject({ kind: 'server', retryable: true, type: 'server_error' });
    expect(err.message).toContain('The server had an error');
    expect(ctx.deltas).toEqual([{ type: 'text', text: 'Partial' }]);
    const invalid = mockModel([
      { type: 'error', error: { error: { message: 'Invalid schema for function', type: 'invalid_request_error' } } },
    ]);
    expect(await failure(invalid)).toMatchObject({ kind: 'invalid_request', retryable: false });
    const thrown = mockModel([{ type: 'error', error: apiError(429, { responseHeaders: { 'retry-after-ms': '1500' } }) }]);
    expect(await failure(thrown)).toMatchObject({ kind: 'rate_limit', retryable: true, retryAfterMs: 1500 });
  });

  it('fails retryably when the stream ends without its finish part', async () => {
    const cut = mockModel(textParts(['Hel']).slice(0, -2));
    expect(await failure(cut)).toMatchObject({ kind: 'connection', retryable: true });
  });

  it('stops streaming on abort and throws the signal reason, even from a model that ignores its signal', async () => {
    const slow = new MockLanguageModelV2({
      // The stream is not tied to the abort signal: only the adapter's cancel stops it.
      doStream: async () => ({
        stream: simulateReadableStream({ chunks: textParts(Array.from({ length: 50 }, () => 'z')), chunkDelayInMs: 20 }),
      }),
    });
    const ctx = callContext();
    const pending = aiSdkProvider(slow).generate(request('m'), ctx);
    setTimeout(() => ctx.controller.abort(new Error('run cancelled')), 150);
    const started = Date.now();
    const err = await rejection(pending);
    expect(err).toEqual(new Error('run cancelled'));
    expect(Date.now() - started).toBeLessThan(900);
    expect(ctx.deltas.length).toBeGreaterThan(0);
    expect(ctx.deltas.length).toBeLessThan(50);
    // The model was given the signal.
    expect(slow.doStreamCalls[0]!.abortSignal?.aborted).toBe(true);
  });
  it('does not wait for a model that ignores its signal before its stream starts', async () => {
    let cancelled = false;
    const stalled = new MockLanguageModelV2({
      doStream: () =>
        new Promise((resolve) =>
          setTimeout(
            () =>
              resolve({
                stream: new ReadableStream<LanguageModelV2StreamPart>({
                  cancel() {
                    cancelled = true;
                  },
                }),
              }),
            600,
          ),
        ),
    });
    const ctx = callContext();
    const pending = aiSdkProvider(stalled).generate(request('m'), ctx);
    setTimeout(() => ctx.controller.abort(new Error('run cancelled')), 50);
    const started = Date.now();
    expect(await rejection(pending)).toEqual(new Error('run cancelled'));
    expect(Date.now() - started).toBeLessThan(400);
    // The stream it answers with later is cancelled, not left open.
    await waitFor(() => cancelled);
  });
});

describe('aiSdkProvider: which model answers', () => {
  it('takes a provider instance, a function of the id, a table, or one model', async () => {
    const a = mockModel(textParts(['from a']), { modelId: 'a' });
    const b = mockModel(textParts(['from b']), { modelId: 'b' });
    const answer = async (p: ReturnType<typeof aiSdkProvider>, id: string) => {
      const r = await p.generate(request(id), callContext());
      return r.message.content[0]?.type === 'text' ? r.message.content[0].text : '';
    };
    const source = new MockProviderV2({ languageModels: { a, b } });
    expect(await answer(aiSdkProvider(source), 'b')).toBe('from b');
    expect(
      await answer(
        aiSdkProvider((id) => (id === 'a' ? a : b)),
        'a',
      ),
    ).toBe('from a');
    const table = aiSdkProvider({ fast: a, smart: b });
    expect(await answer(table, 'smart')).toBe('from b');
    const unknown = await rejection(table.generate(request('other'), callContext()));
    expect(unknown).toMatchObject({ kind: 'not_found', retryable: false });
    expect((unknown as Error).message).toContain('"fast", "smart"');
    expect(await answer(aiSdkProvider(a), 'anything')).toBe('from a');
    // The provider instance's own "no such model" is final.
    expect(await rejection(aiSdkProvider(source).generate(request('zzz'), callContext()))).toMatchObject({
      kind: 'not_found',
      retryable: false,
    });
    // So is a function that throws for an id it does not know.
    const picky = aiSdkProvider((id) => {
      if (id !== 'a') throw new Error(`unknown model ${id}`);
      return a;
    });
    const thrown = await rejection(picky.generate(request('b'), callContext()));
    expect(thrown).toMatchObject({ kind: 'not_found', retryable: false });
    expect((thrown as Error).message).toContain('unknown model b');
  });

  it('refuses what is not a language model of a specification it speaks, saying what to pass', async () => {
    expect(() => aiSdkProvider('gpt-4.1' as never)).toThrow(/provider instance/);
    expect(() => aiSdkProvider({ fast: 'gpt-4.1' } as never)).toThrow(/not an AI SDK language model \(got the string "gpt-4.1"\)/);
    const v1 = {
      specificationVersion: 'v1',
      provider: 'p',
      modelId: 'm',
      supportedUrls: {},
      doGenerate: () => undefined,
      doStream: () => undefined,
    };
    expect(() => aiSdkProvider(v1 as never)).toThrow(/specification v1; this adapter speaks v2, v3 and v4/);
    expect(() => aiSdkProvider({ ...v1, specificationVersion: 'v5' } as never)).toThrow(/specification v5;/);
    const err = await rejection(aiSdkProvider(() => v1 as never).generate(request('m'), callContext()));
    expect(err).toMatchObject({ kind: 'invalid_request', retryable: false });
  });
});
