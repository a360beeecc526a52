/**
 * The AI SDK adapter on models of the v4 specification (`ai@7`, `@ai-sdk/provider@4`) and v3 (`ai@6`),
 * against the AI SDK 7's own mock models (`MockLanguageModelV4`, `MockLanguageModelV3` from `ai/test`;
 * streams from `simulateReadableStream`): the finish reason as `{ unified, raw }` (`interrupted` a failed,
 * retryable attempt; a value added later `other`), usage split by cache, the parts V4 added (pings,
 * custom content, reasoning files, approval requests of provider-executed tools, citations) passed over,
 * the `reasoning` setting sent to v4 models only, `@ai-sdk/provider@4`'s APICallError classified, and
 * credentials from a package's asynchronous headers held for redaction. The v2 specification:
 * ai-sdk.test.ts.
 */
import type {
  LanguageModelV3StreamPart,
  LanguageModelV4CallOptions,
  LanguageModelV4StreamPart,
  LanguageModelV4Usage,
} from '@ai-sdk/provider' with { 'resolution-mode': 'import' };
import { beforeAll, describe, expect, it } from 'vitest';
import type { ModelRequest } from '../../src/core/output/native-output';
import type { AiSdkLanguageModel } from '../../src/integrations/providers/ai-sdk';
import { aiSdkProvider, aiSdkUsage } from '../../src/integrations/providers/ai-sdk';
import { ProviderError } from '../../src/integrations/providers/types';
import type { AiSdk7 } from '../helpers/ai-sdk';
import { aiSdk7 } from '../helpers/ai-sdk';
import { callContext, expectDeltasAddUp, rejection, request } from './context';

let sdk: AiSdk7;
beforeAll(async () => {
  sdk = await aiSdk7();
});

const usage = (
  input: { total?: number; noCache?: number; cacheRead?: number; cacheWrite?: number },
  output: number,
): LanguageModelV4Usage => ({
  inputTokens: { total: input.total, noCache: input.noCache, cacheRead: input.cacheRead, cacheWrite: input.cacheWrite },
  outputTokens: { total: output, text: output, reasoning: undefined },
});

const finish = (
  unified: string,
  u: LanguageModelV4Usage = usage({ total: 12, noCache: 12 }, 3),
  raw: string | undefined = unified,
): LanguageModelV4StreamPart => ({
  type: 'finish',
  // A value a later release may add is not in the type: the adapter must take it anyway.
  finishReason: { unified: unified as 'other', raw },
  usage: u,
});

/** A v4 mock model streaming `parts`, recording its calls. */
function v4Model(parts: LanguageModelV4StreamPart[], opts: { provider?: string; modelId?: string } = {}) {
  return new sdk.MockLanguageModelV4({
    provider: opts.provider ?? 'mock-v4',
    modelId: opts.modelId ?? 'mock-v4-model',
    doStream: async () => ({ stream: sdk.simulateReadableStream({ chunks: parts }) }),
  });
}

const textParts = (text: string[], end: LanguageModelV4StreamPart = finish('stop')): LanguageModelV4StreamPart[] => [
  { type: 'stream-start', warnings: [] },
  { type: 'response-metadata', id: 'resp-4', modelId: 'mock-v4-2026', timestamp: new Date(0) },
  { type: 'text-start', id: 't1' },
  ...text.map((delta): LanguageModelV4StreamPart => ({ type: 'text-delta', id: 't1', delta })),
  { type: 'text-end', id: 't1' },
  end,
];

const tools: ModelRequest['tools'] = [
  { name: 'weather', description: 'Weather of a city', inputSchema: { type: 'object', properties: { city: { type: 'string' } } } },
];

describe('aiSdkProvider on v4 models', () => {
  it('assembles text, reasoning and tool calls, passing over the parts V4 added; usage split by cache', async () => {
    const parts: LanguageModelV4StreamPart[] = [
      { type: 'stream-start', warnings: [] },
      { type: 'ping' },
      { type: 'reasoning-start', id: 'r1' },
      { type: 'reasoning-delta', id: 'r1', delta: 'Need the weather.' },
      { type: 'reasoning-delta', id: 'r1', delta: '', providerMetadata: { anthropic: { signature: 'sig-v4' } } },
      { type: 'reasoning-end', id: 'r1' },
      { type: 'reasoning-file', mediaType: 'image/png', data: { type: 'data', data: 'iVBORw0KGgo=' } },
      { type: 'custom', kind: 'mock.note', providerMetadata: { mock: { note: 'not ours' } } },
      { type: 'text-start', id: 't1' },
      { type: 'text-delta', id: 't1', delta: 'Checking ' },
      { type: 'ping' },
      { type: 'text-delta', id: 't1', delta: 'Paris.' },
      {
        type: 'text-end',
        id: 't1',
        citations: [{ source: { type: 'source', sourceType: 'url', id: 's1', url: 'https://example.com/paris' }, citedText: 'Paris' }],
      },
      { type: 'source', sourceType: 'url', id: 's1', url: 'https://example.com/paris' },
      { type: 'file', mediaType: 'text/plain', data: { type: 'url', url: new URL('https://example.com/f.txt') } },
      { type: 'tool-input-start', id: 'call_w1', toolName: 'weather' },
      { type: 'tool-input-delta', id: 'call_w1', delta: '{"city":' },
      { type: 'tool-input-delta', id: 'call_w1', delta: '"Paris"}' },
      { type: 'tool-input-end', id: 'call_w1' },
      { type: 'tool-call', toolCallId: 'call_w1', toolName: 'weather', input: '{"city":"Paris"}' },
      // A tool the provider runs itself, with its approval request: not ours to run or to decide.
      { type: 'tool-call', toolCallId: 'mcp_1', toolName: 'search', input: '{}', providerExecuted: true },
      { type: 'tool-approval-request', approvalId: 'appr_1', toolCallId: 'mcp_1' },
      { type: 'raw', rawValue: { anything: true } },
      finish('tool-calls', usage({ total: 1200, noCache: 30, cacheRead: 1000, cacheWrite: 170 }, 40), 'tool_use'),
    ];
    const ctx = callContext();
    const response = await aiSdkProvider(v4Model(parts)).generate(request('m', 'weather?', { tools }), ctx);
    expect(response).toEqual({
      message: {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'Need the weather.', signature: 'sig-v4' },
          { type: 'text', text: 'Checking Paris.' },
          { type: 'tool_use', id: 'call_w1', name: 'weather', input: { city: 'Paris' } },
        ],
      },
      stopReason: 'tool_use',
      usage: { inputTokens: 30, outputTokens: 40, cacheReadTokens: 1000, cacheWriteTokens: 170 },
      model: 'mock-v4-model',
    });
    expectDeltasAddUp(ctx.deltas, response.message);
  });

  it.each([
    ['stop', 'end_turn'],
    ['length', 'max_tokens'],
    ['tool-calls', 'tool_use'],
    ['content-filter', 'refusal'],
    ['error', 'other'],
    ['other', 'other'],
    // A value a later minor release adds (as `interrupted` was added within V4) does not break the adapter.
    ['paused-by-provider', 'other'],
  ])('maps the unified finish reason %s to %s', async (unified, stopReason) => {
    const model = v4Model(textParts(['x'], finish(unified)));
    expect((await aiSdkProvider(model).generate(request('m'), callContext())).stopReason).toBe(stopReason);
  });

  it('fails an interrupted stream retryably, never as an answer: its text reached the live stream only', async () => {
    const model = v4Model(textParts(['Half an ', 'answer'], finish('interrupted', usage({ total: 9, noCache: 9 }, 2), undefined)));
    const ctx = callContext();
    const err = await rejection(aiSdkProvider(model).generate(request('m'), ctx));
    expect(err).toBeInstanceOf(ProviderError);
    expect(err).toMatchObject({ kind: 'connection', retryable: true });
    expect((err as Error).message).toMatch(/stream ended before its finish part/);
    expect(ctx.deltas.map((d) => (d.type === 'text' ? d.text : ''))).toEqual(['Half an ', 'answer']);
  });

  it('reads usage split by cache: noCache, or total less the cached tokens; output total, or text plus reasoning', () => {
    // @ai-sdk/anthropic: total counts cache reads and writes, noCache the rest.
    expect(aiSdkUsage(usage({ total: 600, noCache: 30, cacheRead: 500, cacheWrite: 70 }, 9), 'anthropic.messages')).toEqual({
      inputTokens: 30,
      outputTokens: 9,
      cacheReadTokens: 500,
      cacheWriteTokens: 70,
    });
    // A provider that leaves noCache out; output given as text and reasoning only.
    expect(
      aiSdkUsage(
        {
          inputTokens: { total: 1100, noCache: undefined, cacheRead: 1024, cacheWrite: undefined },
          outputTokens: { total: undefined, text: 5, reasoning: 7 },
        },
        'openai.chat',
      ),
    ).toEqual({ inputTokens: 76, outputTokens: 12, cacheReadTokens: 1024, cacheWriteTokens: 0 });
    // Nothing known: zeros.
    expect(
      aiSdkUsage(
        {
          inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
          outputTokens: { total: undefined, text: undefined, reasoning: undefined },
        },
        'x',
      ),
    ).toEqual({ inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 });
  });

  it('sends the same prompt and settings to v4 and v3 models; the reasoning setting to v4 models only', async () => {
    const v4 = v4Model(textParts(['ok']));
    const v3Parts: LanguageModelV3StreamPart[] = [
      { type: 'text-start', id: 't' },
      { type: 'text-delta', id: 't', delta: 'ok from v3' },
      { type: 'text-end', id: 't' },
      {
        type: 'finish',
        finishReason: { unified: 'stop', raw: 'end_turn' },
        usage: {
          inputTokens: { total: 40, noCache: 10, cacheRead: 30, cacheWrite: undefined },
          outputTokens: { total: 4, text: 4, reasoning: undefined },
        },
      },
    ];
    const v3 = new sdk.MockLanguageModelV3({
      provider: 'mock-v3',
      modelId: 'mock-v3-model',
      doStream: async () => ({ stream: sdk.simulateReadableStream({ chunks: v3Parts }) }),
    });
    const settings = { reasoning: 'high', topP: 0.5, providerOptions: { mock: { x: 1 } } } as const;
    const req = request('m', 'Weather in Paris?', { system: 'Be brief.', tools, temperature: 0.2, maxTokens: 77 });
    await aiSdkProvider(v4, { settings }).generate(req, callContext());
    const r3 = await aiSdkProvider(v3, { settings }).generate(req, callContext());
    expect(r3).toMatchObject({
      message: { content: [{ type: 'text', text: 'ok from v3' }] },
      stopReason: 'end_turn',
      usage: { inputTokens: 10, outputTokens: 4, cacheReadTokens: 30, cacheWriteTokens: 0 },
    });
    const sent4 = v4.doStreamCalls[0] as LanguageModelV4CallOptions;
    const sent3 = v3.doStreamCalls[0]!;
    expect(sent4).toMatchObject({
      reasoning: 'high',
      topP: 0.5,
      temperature: 0.2,
      maxOutputTokens: 77,
      providerOptions: { mock: { x: 1 } },
      toolChoice: { type: 'auto' },
      prompt: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: [{ type: 'text', text: 'Weather in Paris?' }] },
      ],
    });
    expect('reasoning' in sent3).toBe(false);
    const { reasoning: _reasoning, abortSignal: _a4, ...rest4 } = sent4;
    const { abortSignal: _a3, ...rest3 } = sent3;
    expect(rest3).toEqual(rest4);
  });

  it('takes a v4 provider instance; its unknown model id is final', async () => {
    const source = new sdk.MockProviderV4({ languageModels: { a: v4Model(textParts(['from a'])) } });
    const r = await aiSdkProvider(source).generate(request('a'), callContext());
    expect(r.message.content).toEqual([{ type: 'text', text: 'from a' }]);
    expect(await rejection(aiSdkProvider(source).generate(request('zzz'), callContext()))).toMatchObject({
      kind: 'not_found',
      retryable: false,
    });
  });

  it("classifies @ai-sdk/provider@4's APICallError: 429 retryable after its Retry-After, 401 final", async () => {
    const throwing = (error: unknown) => new sdk.MockLanguageModelV4({ doStream: () => Promise.reject(error) });
    const limited = new sdk.APICallError({
      message: 'Too Many Requests',
      url: 'http://model.test/v1/messages',
      requestBodyValues: {},
      statusCode: 429,
      responseHeaders: { 'retry-after': '3' },
      responseBody: JSON.stringify({ type: 'error', error: { type: 'rate_limit_error', message: 'Number of requests exceeded' } }),
    });
    expect(await rejection(aiSdkProvider(throwing(limited)).generate(request('m'), callContext()))).toMatchObject({
      kind: 'rate_limit',
      retryable: true,
      status: 429,
      retryAfterMs: 3000,
      type: 'rate_limit_error',
    });
    const denied = new sdk.APICallError({
      message: 'Unauthorized',
      url: 'http://model.test/v1/messages',
      requestBodyValues: {},
      statusCode: 401,
      data: { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } },
    });
    const err = await rejection(aiSdkProvider(throwing(denied)).generate(request('m'), callContext()));
    expect(err).toMatchObject({ kind: 'authentication', retryable: false, status: 401 });
    expect((err as Error).message).toContain('invalid x-api-key');
  });
});

describe('aiSdkProvider: credentials of the current provider packages', () => {
  it('holds the key of an asynchronous key function for redaction once a call asked for it', async () => {
    const key = 'SECRET-async-key-9c8b7a6f5e4d';
    const compat = sdk.createOpenAICompatible({
      name: 'vault',
      baseURL: 'http://127.0.0.1:9/v1',
      apiKey: async () => {
        await new Promise((r) => setTimeout(r, 5));
        return key;
      },
    });
    const provider = aiSdkProvider(compat);
    // The call fails (nothing listens on port 9); the key was read for it all the same.
    expect(await rejection(provider.generate(request('m'), callContext()))).toMatchObject({ kind: 'connection', retryable: true });
    expect(provider.secrets()).toContain(key);
    expect(provider.secrets()).toContain(`Bearer ${key}`);
  });

  it('does not wait for a key function that never answers once the call is aborted', async () => {
    const compat = sdk.createOpenAICompatible({
      name: 'stuck',
      baseURL: 'http://127.0.0.1:9/v1',
      apiKey: () => new Promise<string>(() => {}),
    });
    const ctx = callContext();
    const pending = aiSdkProvider(compat).generate(request('m'), ctx);
    setTimeout(() => ctx.controller.abort(new Error('run cancelled')), 50);
    const started = Date.now();
    expect(await rejection(pending)).toEqual(new Error('run cancelled'));
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('holds the plain key of @ai-sdk/anthropic and @ai-sdk/openai models as soon as they are resolved', () => {
    const anthropic = aiSdkProvider(sdk.createAnthropic({ apiKey: 'SECRET-anthropic-plain-1a2b3c4d' }));
    anthropic.model('claude-test');
    expect(anthropic.secrets()).toContain('SECRET-anthropic-plain-1a2b3c4d');
    const openai = aiSdkProvider(sdk.createOpenAI({ apiKey: 'SECRET-openai-plain-5e6f7a8b' }));
    openai.model('gpt-test');
    expect(openai.secrets()).toContain('SECRET-openai-plain-5e6f7a8b');
    // A model object of any specification is accepted as the type says.
    const models: AiSdkLanguageModel[] = [anthropic.model('claude-test'), openai.model('gpt-test')];
    expect(models.map((m) => m.specificationVersion)).toEqual(['v4', 'v4']);
  });
});
