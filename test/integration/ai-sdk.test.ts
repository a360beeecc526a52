/**
 * An AI SDK language model in the full agent loop on the real dev server: the AI SDK 5's own mock model
 * (`MockLanguageModelV2` of `ai-v5`: the v2 specification), served through `aiSdkProvider`, calls a tool
 * and answers; a retryable `APICallError` (a 429 with Retry-After) is retried by the workflow on its
 * durable timer; a final one ends the run with the API's message. And a real provider package of today,
 * `@ai-sdk/openai-compatible` 3 (v4), over HTTP to the local replay server (captured Chat Completions
 * streams): a tool cycle to `success`. `@ai-sdk/anthropic` and `@ai-sdk/openai`: ai-sdk-packages.test.ts.
 */
import type { LanguageModelV2CallOptions, LanguageModelV2StreamPart } from '@ai-sdk/provider-v2';
import { APICallError } from '@ai-sdk/provider-v2';
import { simulateReadableStream } from 'ai-v5';
import { MockLanguageModelV2 } from 'ai-v5/test';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RetryOptions } from '../../src/agents/define';
import { defineAgent, defineTool } from '../../src/agents/define';
import type { ToolResultBlock } from '../../src/core/messages/messages';
import { aiSdkProvider } from '../../src/integrations/providers/ai-sdk';
import { allEvents, resultWithin } from '../helpers/events';
import type { Harness } from '../helpers/harness';
import { startHarness, testId } from '../helpers/harness';
import { echo } from '../helpers/tools';
import { ReplayServer, sseFrames } from '../providers/replay-server';
import { fixture } from '../providers/sse';
import { aiSdk7 } from '../helpers/ai-sdk';

const fast: RetryOptions = { maximumAttempts: 4, initialInterval: '50ms', maximumInterval: '5s' };

/** Assistant turns in a prompt: the turn the model is asked for (0 for the first call). */
const turnOf = (options: LanguageModelV2CallOptions): number => options.prompt.filter((m) => m.role === 'assistant').length;

const finish = (reason: 'stop' | 'tool-calls', input: number, output: number): LanguageModelV2StreamPart => ({
  type: 'finish',
  finishReason: reason,
  usage: { inputTokens: input, outputTokens: output, totalTokens: input + output },
});

/** Calls `echo` with streamed arguments, then answers with what the tool returned. */
function echoTurn(options: LanguageModelV2CallOptions): LanguageModelV2StreamPart[] {
  if (turnOf(options) === 0) {
    return [
      { type: 'stream-start', warnings: [] },
      { type: 'text-start', id: 't' },
      { type: 'text-delta', id: 't', delta: 'Echoing.' },
      { type: 'text-end', id: 't' },
      { type: 'tool-input-start', id: 'call_echo_1', toolName: 'echo' },
      { type: 'tool-input-delta', id: 'call_echo_1', delta: '{"text":' },
      { type: 'tool-input-delta', id: 'call_echo_1', delta: '"ping"}' },
      { type: 'tool-input-end', id: 'call_echo_1' },
      { type: 'tool-call', toolCallId: 'call_echo_1', toolName: 'echo', input: '{"text":"ping"}' },
      finish('tool-calls', 40, 12),
    ];
  }
  const tool = options.prompt.find((m) => m.role === 'tool');
  const output = tool?.role === 'tool' ? tool.content[0]?.output : undefined;
  const said = output?.type === 'text' ? output.value : '(nothing)';
  return [
    { type: 'text-start', id: 't' },
    { type: 'text-delta', id: 't', delta: 'The echo said ' },
    { type: 'text-delta', id: 't', delta: `${said}.` },
    { type: 'text-end', id: 't' },
    finish('stop', 70, 6),
  ];
}

const stream = (parts: LanguageModelV2StreamPart[]) => ({ stream: simulateReadableStream({ chunks: parts, chunkDelayInMs: 5 }) });

const echoModel = new MockLanguageModelV2({
  provider: 'mock.chat',
  modelId: 'mock-echo',
  doStream: async (options) => stream(echoTurn(options)),
});

/** Rate limited on its first call (429, Retry-After 1 s), then the echo model's answers. */
let limitedCalls = 0;
const limitedModel = new MockLanguageModelV2({
  provider: 'mock.chat',
  modelId: 'mock-limited',
  doStream: async (options) => {
    if (++limitedCalls === 1) {
      throw new APICallError({
        message: 'Rate limit reached',
        url: 'http://model.test/v1/chat/completions',
        requestBodyValues: {},
        statusCode: 429,
        responseHeaders: { 'retry-after': '1' },
        responseBody: JSON.stringify({
          error: { message: 'Rate limit reached for requests', type: 'requests', code: 'rate_limit_exceeded' },
        }),
      });
    }
    return stream(echoTurn(options));
  },
});

let deniedCalls = 0;
const deniedModel = new MockLanguageModelV2({
  provider: 'mock.chat',
  modelId: 'mock-denied',
  doStream: () => {
    deniedCalls++;
    return Promise.reject(
      new APICallError({
        message: 'Unauthorized',
        url: 'http://model.test/v1/chat/completions',
        requestBodyValues: {},
        statusCode: 401,
        data: { error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' } },
      }),
    );
  },
});

const agents = [
  defineAgent({
    name: 'aisdk_echo',
    model: { provider: 'aisdk', model: 'echo' },
    system: 'You echo things.',
    tools: [echo],
    modelRetry: fast,
  }),
  defineAgent({ name: 'aisdk_limited', model: { provider: 'aisdk', model: 'limited' }, tools: [echo], modelRetry: fast }),
  defineAgent({ name: 'aisdk_denied', model: { provider: 'aisdk', model: 'denied' }, modelRetry: fast }),
];

/** What the two tools of the openai-compatible run did: `tool(args)` per execution. */
const ran: string[] = [];
const getTime = defineTool({
  name: 'get_time',
  description: 'Time in a zone',
  input: z.object({ tz: z.string() }),
  readOnly: true,
  execute: ({ tz }) => (ran.push(`get_time(${tz})`), `12:00 in ${tz}`),
});
const getDate = defineTool({
  name: 'get_date',
  description: 'Date in a format',
  input: z.object({ fmt: z.string() }),
  readOnly: true,
  execute: ({ fmt }) => (ran.push(`get_date(${fmt})`), `2026-01-01 (${fmt})`),
});
const compatAgent = defineAgent({
  name: 'aisdk_compat',
  model: { provider: 'compat', model: 'gpt-compat-loop' },
  tools: [getTime, getDate],
  modelRetry: fast,
});

let h: Harness;
let server: ReplayServer;

beforeAll(async () => {
  // The captured streams: two parallel tool calls first; once the request holds tool results, a text answer.
  server = await ReplayServer.start((req) => {
    const answered = (req.body.messages ?? []).some((m) => (m as { role?: string }).role === 'tool');
    return { sse: sseFrames(fixture(answered ? 'openai/text.sse' : 'openai/tool_calls_interleaved.sse')), frameDelayMs: 2 };
  });
  const { createOpenAICompatible } = await aiSdk7();
  const compat = aiSdkProvider(
    createOpenAICompatible({ name: 'replay', baseURL: `${server.origin}/v1`, apiKey: 'test-key-aisdk-loop', includeUsage: true }),
  );
  h = await startHarness({
    agents: [...agents, compatAgent],
    providers: { aisdk: aiSdkProvider({ echo: echoModel, limited: limitedModel, denied: deniedModel }), compat },
  });
});
afterAll(async () => {
  await h?.stop();
  await server?.close();
});

const toolResults = (r: { messages: Array<{ content: Array<{ type: string }> }> }): ToolResultBlock[] =>
  r.messages.flatMap((m) => m.content.filter((b): b is ToolResultBlock => b.type === 'tool_result'));

describe('an AI SDK model in the agent loop (real dev server)', () => {
  it('runs a full tool cycle durably: the call streamed, the tool run, its result sent back, usage summed', async () => {
    const run = await h.client.start('aisdk_echo', { input: 'echo ping please', workflowId: testId('aisdk-echo') });
    const result = await resultWithin(run);
    expect(result.status).toBe('success');
    expect(result.finalText).toBe('The echo said ping.');
    expect(result.steps).toBe(2);
    expect(result.messages[1]).toEqual({
      role: 'assistant',
      content: [
        { type: 'text', text: 'Echoing.' },
        { type: 'tool_use', id: 'call_echo_1', name: 'echo', input: { text: 'ping' } },
      ],
    });
    expect(toolResults(result)).toEqual([
      { type: 'tool_result', toolUseId: 'call_echo_1', output: { type: 'text', text: 'ping' }, isError: false },
    ]);
    expect(result.usage).toEqual({ inputTokens: 110, outputTokens: 18, cacheReadTokens: 0, cacheWriteTokens: 0 });
    // The report names the model that answered (the mock's modelId: it streams no response metadata).
    expect(result.report.steps.map((s) => [s.provider, s.model, s.stopReason, s.attempts])).toEqual([
      ['aisdk', 'mock-echo', 'tool_use', 1],
      ['aisdk', 'mock-echo', 'end_turn', 1],
    ]);
    // What the model was sent on its second call: the system prompt, the call, the tool's result.
    const second = echoModel.doStreamCalls.at(-1)!;
    expect(second.prompt).toEqual([
      { role: 'system', content: 'You echo things.' },
      { role: 'user', content: [{ type: 'text', text: 'echo ping please' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Echoing.' },
          { type: 'tool-call', toolCallId: 'call_echo_1', toolName: 'echo', input: { text: 'ping' } },
        ],
      },
      {
        role: 'tool',
        content: [{ type: 'tool-result', toolCallId: 'call_echo_1', toolName: 'echo', output: { type: 'text', value: 'ping' } }],
      },
    ]);
    const events = await allEvents(run);
    expect(events.map((e) => e.type)).toContain('tool_call');
    expect(events.find((e) => e.type === 'tool_call')).toMatchObject({ tool: 'echo', args: { text: 'ping' } });
  });

  it('a real provider package (@ai-sdk/openai-compatible over HTTP) drives a tool cycle to success', async () => {
    const run = await h.client.start('aisdk_compat', { input: 'time and date?', workflowId: testId('aisdk-compat') });
    const result = await resultWithin(run);
    expect(result.status).toBe('success');
    expect(result.finalText).toBe('Hej verden!');
    // Each call ran once, with the arguments the package assembled from the streamed fragments.
    expect(ran.sort()).toEqual(['get_date(iso)', 'get_time(UTC)']);
    expect(result.messages[1]).toEqual({
      role: 'assistant',
      content: [
        { type: 'tool_use', id: 'call_da02time', name: 'get_time', input: { tz: 'UTC' } },
        { type: 'tool_use', id: 'call_da02date', name: 'get_date', input: { fmt: 'iso' } },
      ],
    });
    // The model's next request carried the calls and the tools' results, as Chat Completions messages.
    const sent = server.requestsFor('gpt-compat-loop');
    expect(sent).toHaveLength(2);
    expect(sent[1]!.path).toBe('/v1/chat/completions');
    expect(sent[1]!.body.messages).toEqual([
      { role: 'user', content: 'time and date?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_da02time', type: 'function', function: { name: 'get_time', arguments: '{"tz":"UTC"}' } },
          { id: 'call_da02date', type: 'function', function: { name: 'get_date', arguments: '{"fmt":"iso"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_da02time', content: '12:00 in UTC' },
      { role: 'tool', tool_call_id: 'call_da02date', content: '2026-01-01 (iso)' },
    ]);
    // Usage and the answering model, as the package read them from the streams.
    expect(result.usage).toEqual({ inputTokens: 226, outputTokens: 44, cacheReadTokens: 1024, cacheWriteTokens: 0 });
    expect(result.report.steps.map((s) => [s.provider, s.model, s.stopReason])).toEqual([
      ['compat', 'gpt-4o-2024-08-06', 'tool_use'],
      ['compat', 'gpt-4.1-mini-2025-04-14', 'end_turn'],
    ]);
  });

  it('retries a retryable APICallError (429) after its Retry-After, with a retrying event, and succeeds', async () => {
    const run = await h.client.start('aisdk_limited', { input: 'echo pong', workflowId: testId('aisdk-limited') });
    const result = await resultWithin(run);
    expect(result.status).toBe('success');
    expect(result.finalText).toBe('The echo said ping.');
    expect(limitedCalls).toBe(3);
    const retrying = (await allEvents(run)).filter((e) => e.type === 'retrying');
    expect(retrying).toHaveLength(1);
    expect(retrying[0]).toMatchObject({ type: 'retrying', step: 1, attempt: 1, delayMs: 1000, errorType: 'rate_limit_exceeded' });
    expect(retrying[0]?.type === 'retrying' && retrying[0].error).toContain('Rate limit reached for requests');
    expect(result.report.steps.map((s) => s.attempts)).toEqual([2, 1]);
  });

  it('ends the run on a final APICallError (401) without retrying, with the API message', async () => {
    const run = await h.client.start('aisdk_denied', { input: 'hi', workflowId: testId('aisdk-denied') });
    const result = await resultWithin(run);
    expect(result.status).toBe('provider_error');
    expect(deniedCalls).toBe(1);
    expect(result.error?.message).toContain('Incorrect API key provided');
    expect((await allEvents(run)).filter((e) => e.type === 'retrying')).toEqual([]);
  });
});
