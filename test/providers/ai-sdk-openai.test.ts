/**
 * `@ai-sdk/openai` 4 (the v4 specification, `ai@7`) through our adapter against the local replay server,
 * on the API its models speak by default, the Responses API (`POST /v1/responses`; streams built to the
 * protocol by `openaiResponse`): text and a function call assembled, usage with cache reads apart, the
 * next turn's request (the call and its output as input items), V4's `reasoning` setting as the
 * request's reasoning effort, a stream that ends without `response.completed` (the package's
 * `interrupted`) failing retryably, HTTP errors as the package reports them. (Chat Completions through
 * `openai.chat(id)`: ai-sdk-packages.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Message } from '../../src/core/messages/messages';
import type { ModelRequest } from '../../src/core/output/native-output';
import type { AiSdkProvider } from '../../src/integrations/providers/ai-sdk';
import { aiSdkProvider } from '../../src/integrations/providers/ai-sdk';
import { aiSdk7 } from '../helpers/ai-sdk';
import { callContext, expectDeltasAddUp, failedCall, rejection, replayCall, request } from './context';
import { ReplayServer } from './replay-server';
import { openaiErrorBody, openaiResponse } from './sse';

const KEY = 'test-key-aisdk-openai-8d24';
let server: ReplayServer;
let provider: AiSdkProvider;
let reasoning: AiSdkProvider;

beforeAll(async () => {
  server = await ReplayServer.start();
  const { createOpenAI } = await aiSdk7();
  const openai = createOpenAI({ apiKey: KEY, baseURL: `${server.origin}/v1` });
  provider = aiSdkProvider(openai);
  reasoning = aiSdkProvider(openai, { settings: { reasoning: 'low' } });
});
afterAll(async () => {
  await server?.close();
});

const tools: ModelRequest['tools'] = [
  { name: 'echo', description: 'Echo the text back', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } },
];

describe('@ai-sdk/openai 4 (Responses API) through the adapter (replay server)', () => {
  it('assembles text and a function call; usage with cache reads apart; the next turn sends the call and its output', async () => {
    const sse = openaiResponse({
      model: 'gpt-5-mini-2026',
      text: 'Echoing.',
      calls: [{ id: 'call_e1', name: 'echo', args: { text: 'ping' } }],
      usage: { input: 300, output: 20, cached: 256 },
    });
    const { response, sent, ctx } = await replayCall(server, provider, sse, request('gpt-5-mini', 'echo ping', { tools }));
    expect(response).toEqual({
      message: {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Echoing.' },
          { type: 'tool_use', id: 'call_e1', name: 'echo', input: { text: 'ping' } },
        ],
      },
      stopReason: 'tool_use',
      usage: { inputTokens: 44, outputTokens: 20, cacheReadTokens: 256, cacheWriteTokens: 0 },
      model: 'gpt-5-mini-2026',
    });
    expectDeltasAddUp(ctx.deltas, response.message);
    expect(sent.path).toBe('/v1/responses');
    expect(sent.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(sent.body).toMatchObject({ model: 'gpt-5-mini', stream: true, tools: [{ type: 'function', name: 'echo' }] });

    const next: Message[] = [
      { role: 'user', content: [{ type: 'text', text: 'echo ping' }] },
      response.message,
      { role: 'user', content: [{ type: 'tool_result', toolUseId: 'call_e1', output: { type: 'text', text: 'ping' }, isError: false }] },
    ];
    const second = await replayCall(
      server,
      provider,
      openaiResponse({ model: 'gpt-5-mini-2026', text: 'The echo said ping.', usage: { input: 340, output: 6 } }),
      request('gpt-5-mini', next, { tools }),
    );
    expect(second.response.message.content).toEqual([{ type: 'text', text: 'The echo said ping.' }]);
    expect(second.response.stopReason).toBe('end_turn');
    expect(second.sent.body.input).toEqual([
      { role: 'user', content: [{ type: 'input_text', text: 'echo ping' }] },
      { role: 'assistant', content: 'Echoing.' },
      { type: 'function_call', call_id: 'call_e1', name: 'echo', arguments: '{"text":"ping"}' },
      { type: 'function_call_output', call_id: 'call_e1', output: 'ping' },
    ]);
  });

  it("sends the reasoning setting as the request's reasoning effort", async () => {
    const { sent } = await replayCall(
      server,
      reasoning,
      openaiResponse({ model: 'gpt-5-mini-2026', text: 'ok', usage: { input: 5, output: 1 } }),
      request('gpt-5-mini'),
    );
    expect(sent.body).toMatchObject({ reasoning: { effort: 'low' } });
  });

  it('fails retryably when the stream ends without response.completed (interrupted); its text reached the live stream only', async () => {
    const ctx = callContext();
    server.enqueue({
      sse: openaiResponse({ model: 'gpt-5-mini-2026', text: 'Half an answer', usage: { input: 5, output: 5 }, complete: false }),
    });
    expect(await rejection(provider.generate(request('gpt-5-mini'), ctx))).toMatchObject({ kind: 'connection', retryable: true });
    expect(ctx.deltas.length).toBeGreaterThan(0);
  });

  it('classifies HTTP errors: 429 retryable after its Retry-After, 401 final with the API message', async () => {
    const limited = await failedCall(
      server,
      provider,
      {
        status: 429,
        json: openaiErrorBody('Rate limit reached for gpt-5-mini', 'requests', 'rate_limit_exceeded'),
        headers: { 'retry-after': '2' },
      },
      request('gpt-5-mini'),
    );
    expect(limited).toMatchObject({ kind: 'rate_limit', retryable: true, status: 429, retryAfterMs: 2000, type: 'rate_limit_exceeded' });
    const denied = await failedCall(
      server,
      provider,
      { status: 401, json: openaiErrorBody('Incorrect API key provided', 'invalid_request_error', 'invalid_api_key') },
      request('gpt-5-mini'),
    );
    expect(denied).toMatchObject({ kind: 'authentication', retryable: false, status: 401, type: 'invalid_api_key' });
    expect(denied.message).toContain('Incorrect API key provided');
  });
});
