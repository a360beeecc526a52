/**
 * The OpenAI-compatible provider against a local replay server, through the real `openai` package: the
 * project's own stream fixtures (OpenAI, Ollama-, vLLM- and llama.cpp-style) assembled, the request it
 * sends, every error class, cancellation.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Message } from '../../src/core/messages/messages';
import { OpenAIProvider, toOpenAIMessages } from '../../src/integrations/providers/openai';
import type { ProviderError } from '../../src/integrations/providers/types';
import { callContext, expectDeltasAddUp, failedCall, rejection, replayCall, request, waitFor } from './context';
import { ReplayServer, sseFrames } from './replay-server';
import { fixture, openaiCompletion, openaiErrorBody } from './sse';

const KEY = 'test-key-openai-unit-9d2e';
let server: ReplayServer;
let provider: OpenAIProvider;

beforeAll(async () => {
  server = await ReplayServer.start();
  provider = new OpenAIProvider({ apiKey: KEY, baseURL: `${server.origin}/v1` });
});
afterAll(async () => {
  await server?.close();
});
afterEach(() => {
  vi.unstubAllEnvs();
});

/** Replay `sse` for one call of `provider`: the response and the request the server saw. */
function replay(sse: string | string[], req = request('gpt-test'), p = provider) {
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
  return failedCall(server, p, reply, request('gpt-test'));
}

describe('OpenAIProvider: assembling streams', () => {
  it('assembles text and reads usage from the usage-only final chunk, cache reads apart', async () => {
    const { response, ctx } = await replay(fixture('openai/text.sse'));
    expect(response).toEqual({
      message: { role: 'assistant', content: [{ type: 'text', text: 'Hej verden!' }] },
      stopReason: 'end_turn',
      usage: { inputTokens: 76, outputTokens: 4, cacheReadTokens: 1024, cacheWriteTokens: 0 },
      model: 'gpt-4.1-mini-2025-04-14',
    });
    expect(ctx.beats).toBe(6);
  });

  it('streams text, reasoning and tool-call argument deltas that add up to the answer', async () => {
    const calls = await replay(fixture('openai/tool_calls_interleaved.sse'));
    expect(calls.ctx.deltas.filter((d) => d.type === 'tool_args').length).toBeGreaterThan(2);
    expectDeltasAddUp(calls.ctx.deltas, calls.response.message);
    const text = await replay(fixture('openai/text.sse'));
    expectDeltasAddUp(text.ctx.deltas, text.response.message);
    const reasoning = await replay(fixture('openai/reasoning_first_fragment.sse'));
    const thought = reasoning.response.message.content.find((b) => b.type === 'thinking');
    expect(
      reasoning.ctx.deltas
        .filter((d) => d.type === 'thinking')
        .map((d) => d.text)
        .join(''),
    ).toBe(thought?.type === 'thinking' ? thought.thinking : '');
  });

  it('assembles parallel tool calls from argument fragments interleaved by index', async () => {
    const { response } = await replay(fixture('openai/tool_calls_interleaved.sse'));
    expect(response.stopReason).toBe('tool_use');
    expect(response.message.content).toEqual([
      { type: 'tool_use', id: 'call_da02time', name: 'get_time', input: { tz: 'UTC' } },
      { type: 'tool_use', id: 'call_da02date', name: 'get_date', input: { fmt: 'iso' } },
    ]);
    expect(response.usage).toEqual({ inputTokens: 150, outputTokens: 40, cacheReadTokens: 0, cacheWriteTokens: 0 });
  });

  it('assembles Ollama-style whole calls that all reuse index 0, with `reasoning` text and finish_reason stop', async () => {
    const { response } = await replay(fixture('openai/ollama_whole_calls.sse'));
    expect(response.message.content).toEqual([
      { type: 'thinking', thinking: 'Two files are needed, so read both.', signature: '' },
      { type: 'tool_use', id: 'call_da03k1', name: 'read_file', input: { path: 'a.txt' } },
      { type: 'tool_use', id: 'call_da03k2', name: 'read_file', input: { path: 'b.txt' } },
    ]);
    expect(response.stopReason).toBe('tool_use');
    expect(response.model).toBe('qwen3:8b');
  });

  it('assembles a call whose first chunk carries the id and an argument fragment, with reasoning_content', async () => {
    const { response } = await replay(fixture('openai/reasoning_first_fragment.sse'));
    expect(response.message.content).toEqual([
      { type: 'thinking', thinking: 'Tides depend on the port; search.', signature: '' },
      { type: 'tool_use', id: 'Xk2PqL9vT0aB', name: 'search', input: { query: 'tide tables Brest' } },
    ]);
    expect(response.usage).toEqual({ inputTokens: 180, outputTokens: 33, cacheReadTokens: 0, cacheWriteTokens: 0 });
  });

  it('flags a call cut off by the length limit as incomplete', async () => {
    const { response } = await replay(fixture('openai/length_mid_args.sse'));
    expect(response.stopReason).toBe('max_tokens');
    expect(response.message.content).toEqual([
      { type: 'text', text: 'Writing it now.' },
      // The cut-off arguments are kept as sent, never read as no arguments.
      {
        type: 'tool_use',
        id: 'call_da05cut',
        name: 'write_file',
        input: '{"path":"long.md","text":"Once upon a',
        inputError: parseError('{"path":"long.md","text":"Once upon a'),
        incomplete: true,
      },
    ]);
  });

  it('keeps arguments that are not valid JSON as the raw text with the parse error, and JSON that is not an object as sent', async () => {
    const broken = '{"orderId":"A1","amount": 5';
    const sse = openaiCompletion({
      model: 'gpt-test',
      calls: [
        { id: 'call_broken', name: 'refund', args: null, rawArgs: broken },
        { id: 'call_array', name: 'refund', args: ['A1', 'A2'] },
        { id: 'call_string', name: 'refund', args: 'A1' },
        { id: 'call_none', name: 'refund', args: null, rawArgs: '' },
      ],
      finish: 'tool_calls',
      usage: { prompt: 5, completion: 30 },
    });
    const { response } = await replay(sse);
    expect(response.message.content).toEqual([
      { type: 'tool_use', id: 'call_broken', name: 'refund', input: broken, inputError: parseError(broken) },
      { type: 'tool_use', id: 'call_array', name: 'refund', input: ['A1', 'A2'] },
      { type: 'tool_use', id: 'call_string', name: 'refund', input: 'A1' },
      // No argument text at all: a call of a tool without parameters.
      { type: 'tool_use', id: 'call_none', name: 'refund', input: {} },
    ]);
  });

  it('leaves the id of a call the server sent without one empty (the model activity assigns one)', async () => {
    const sse = openaiCompletion({
      model: 'gpt-test',
      calls: [
        { id: '', name: 'echo', args: { text: 'a' } },
        { id: '', name: 'echo', args: { text: 'b' } },
      ],
      finish: 'tool_calls',
      usage: { prompt: 5, completion: 30 },
    });
    const { response } = await replay(sse);
    expect(response.message.content).toEqual([
      { type: 'tool_use', id: '', name: 'echo', input: { text: 'a' } },
      { type: 'tool_use', id: '', name: 'echo', input: { text: 'b' } },
    ]);
  });

  it('maps every finish_reason', async () => {
    const cases = [
      ['stop', 'end_turn'],
      ['length', 'max_tokens'],
      ['tool_calls', 'tool_use'],
      ['function_call', 'tool_use'],
      ['content_filter', 'refusal'],
      ['some_future_reason', 'other'],
    ] as const;
    for (const [finish, ours] of cases) {
      const { response } = await replay(
        openaiCompletion({ model: 'gpt-test', text: `finished: ${finish}`, finish, usage: { prompt: 3, completion: 2 } }),
      );
      expect(response.stopReason, finish).toBe(ours);
      expect(response.message.content).toEqual([{ type: 'text', text: `finished: ${finish}` }]);
    }
  });
});

describe('OpenAIProvider: the request', () => {
  const tools = [
    { name: 'read_file', description: 'Read a file', inputSchema: { type: 'object', properties: { path: { type: 'string' } } } },
  ];
  const conversation: Message[] = [
    { role: 'user', content: [{ type: 'text', text: 'Read a and b' }] },
    {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'two reads', signature: '' },
        { type: 'text', text: 'Reading.' },
        { type: 'tool_use', id: 'c1', name: 'read_file', input: { path: 'a' } },
        { type: 'tool_use', id: 'c2', name: 'read_file', input: { path: 'b' } },
      ],
    },
    {
      role: 'user',
      content: [
        { type: 'tool_result', toolUseId: 'c1', output: { type: 'text', text: 'alpha' }, isError: false },
        {
          type: 'tool_result',
          toolUseId: 'c2',
          output: { type: 'stored', ref: 'sha256-x', bytes: 99, preview: 'no such file' },
          isError: true,
        },
        { type: 'text', text: 'and summarise' },
      ],
    },
  ];
  const text = openaiCompletion({ model: 'gpt-test', text: 'ok', finish: 'stop', usage: { prompt: 1, completion: 1 } });

  it('sends system first, tool results as tool messages in call order, and asks for usage', async () => {
    const { sent } = await replay(text, request('gpt-test', conversation, { system: 'Be brief.', tools, temperature: 0 }));
    expect(sent.path).toBe('/v1/chat/completions');
    expect(sent.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(sent.body).toEqual({
      model: 'gpt-test',
      stream: true,
      stream_options: { include_usage: true },
      // a base URL that is not OpenAI's gets the field local servers understand
      max_tokens: 1024,
      temperature: 0,
      tools: [{ type: 'function', function: { name: 'read_file', description: 'Read a file', parameters: tools[0]!.inputSchema } }],
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Read a and b' },
        {
          role: 'assistant',
          content: 'Reading.',
          tool_calls: [
            { id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a"}' } },
            { id: 'c2', type: 'function', function: { name: 'read_file', arguments: '{"path":"b"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'c1', content: 'alpha' },
        { role: 'tool', tool_call_id: 'c2', content: 'Error: no such file' },
        { role: 'user', content: 'and summarise' },
      ],
    });
  });

  it('uses max_completion_tokens when told to (the OpenAI API default)', async () => {
    const p = new OpenAIProvider({ apiKey: KEY, baseURL: `${server.origin}/v1`, maxTokensField: 'max_completion_tokens' });
    const { sent } = await replay(text, request('gpt-test'), p);
    expect(sent.body.max_completion_tokens).toBe(1024);
    expect(sent.body).not.toHaveProperty('max_tokens');
  });

  it('sends a placeholder key to a base URL given in code, never the environment key', async () => {
    vi.stubEnv('OPENAI_API_KEY', 'test-key-env-must-not-leak');
    const { sent } = await replay(text, request('gpt-test'), new OpenAIProvider({ baseURL: `${server.origin}/v1` }));
    expect(sent.headers.authorization).toBe('Bearer no-key');
  });

  it('reads OPENAI_API_KEY and OPENAI_BASE_URL from the environment', async () => {
    vi.stubEnv('OPENAI_API_KEY', 'test-key-from-env-42');
    vi.stubEnv('OPENAI_BASE_URL', `${server.origin}/v1`);
    const { sent } = await replay(text, request('gpt-test'), new OpenAIProvider());
    expect(sent.headers.authorization).toBe('Bearer test-key-from-env-42');
  });

  it('fails without retrying when the OpenAI API has no key, before any request', async () => {
    vi.stubEnv('OPENAI_API_KEY', '');
    vi.stubEnv('OPENAI_BASE_URL', '');
    const err = await rejection(new OpenAIProvider().generate(request('gpt-test'), callContext()));
    expect(err).toMatchObject({ kind: 'authentication', retryable: false });
    expect((err as Error).message).toMatch(/OPENAI_API_KEY is not set/);
  });

  it('sends per-provider request fields (temperature, parallel_tool_calls, stop, include_usage) and lets a model override them', async () => {
    const p = new OpenAIProvider({
      apiKey: KEY,
      baseURL: `${server.origin}/v1`,
      request: { temperature: 0, parallelToolCalls: false, stop: ['</tool_call>'], includeUsage: true },
      models: { 'tiny-local': { stop: ['\nUser:'], includeUsage: false } },
    });
    const withTools = request('gpt-test', 'hi', { tools });
    const sentDefault = (await replay(text, withTools, p)).sent.body;
    expect(sentDefault).toMatchObject({
      temperature: 0,
      parallel_tool_calls: false,
      stop: ['</tool_call>'],
      stream_options: { include_usage: true },
    });

    const sentModel = (await replay(text, { ...withTools, model: 'tiny-local' }, p)).sent.body;
    expect(sentModel).toMatchObject({ temperature: 0, parallel_tool_calls: false, stop: ['\nUser:'] });
    expect(sentModel).not.toHaveProperty('stream_options');

    // the agent's own temperature wins; parallel_tool_calls is only sent with tools (OpenAI refuses it alone)
    const sentNoTools = (await replay(text, request('gpt-test', 'hi', { temperature: 0.7 }), p)).sent.body;
    expect(sentNoTools.temperature).toBe(0.7);
    expect(sentNoTools).not.toHaveProperty('parallel_tool_calls');
    expect(sentNoTools).not.toHaveProperty('tools');
  });

  it('sends none of those fields unless configured', async () => {
    const { sent } = await replay(text, request('gpt-test', 'hi', { tools }));
    expect(sent.body).not.toHaveProperty('stop');
    expect(sent.body).not.toHaveProperty('parallel_tool_calls');
    expect(sent.body).not.toHaveProperty('temperature');
  });

  it('refuses bad request fields at construction, naming the field', () => {
    expect(() => new OpenAIProvider({ request: { temperature: 3 } })).toThrow(
      'OpenAIProvider options.request.temperature must be a number from 0 to 2, got 3',
    );
    expect(() => new OpenAIProvider({ models: { m: { stop: [''] } } })).toThrow(
      'OpenAIProvider options.models["m"].stop must be an array of non-empty strings',
    );
    expect(() => new OpenAIProvider({ request: { parallelToolCalls: 'no' as unknown as boolean } })).toThrow(
      'parallelToolCalls must be true or false',
    );
  });

  it("echoes a call's arguments as the model sent them: the raw text when not valid JSON, else the JSON of the value", async () => {
    const broken = '{"orderId":"A1","amount": 5';
    const messages: Message[] = [
      { role: 'user', content: [{ type: 'text', text: 'Refund A1' }] },
      {
        role: 'assistant',
        content: [
          { type: 'tool_use', id: 'c1', name: 'refund', input: broken, inputError: parseError(broken) },
          { type: 'tool_use', id: 'c2', name: 'refund', input: ['A1'] },
          { type: 'tool_use', id: 'c3', name: 'refund', input: 'A1' },
        ],
      },
    ];
    const { sent } = await replay(text, request('gpt-test', messages));
    expect((sent.body.messages as Array<{ tool_calls?: unknown }>)[1]!.tool_calls).toEqual([
      { id: 'c1', type: 'function', function: { name: 'refund', arguments: broken } },
      { id: 'c2', type: 'function', function: { name: 'refund', arguments: '["A1"]' } },
      { id: 'c3', type: 'function', function: { name: 'refund', arguments: '"A1"' } },
    ]);
  });

  it('leaves out assistant messages with nothing to send', () => {
    expect(toOpenAIMessages(undefined, [{ role: 'assistant', content: [{ type: 'thinking', thinking: 'hmm', signature: '' }] }])).toEqual(
      [],
    );
  });
});

describe('OpenAIProvider: errors', () => {
  it.each([
    [
      400,
      'invalid_request_error',
      'context_length_exceeded',
      "This model's maximum context length is 128000 tokens. However, your messages resulted in 130512 tokens.",
      'context_overflow',
    ],
    [401, 'invalid_request_error', 'invalid_api_key', 'Incorrect API key provided: test-key-****9d2e.', 'authentication'],
    [403, 'permission_error', null, 'You are not allowed to sample from this model', 'permission'],
    [
      404,
      'invalid_request_error',
      'model_not_found',
      'The model `gpt-nonexistent` does not exist or you do not have access to it.',
      'not_found',
    ],
    [413, 'invalid_request_error', null, 'Request too large', 'invalid_request'],
    [422, 'invalid_request_error', null, 'Unprocessable', 'invalid_request'],
    [
      429,
      'insufficient_quota',
      'insufficient_quota',
      'You exceeded your current quota, please check your plan and billing details.',
      'rate_limit',
    ],
  ] as const)('does not retry HTTP %i (%s/%s), and says why', async (status, type, code, message, kind) => {
    const err = await failure({ status, json: openaiErrorBody(message, type, code) });
    expect(err).toMatchObject({ kind, retryable: false, status, type: code ?? type });
    expect(err.message).toBe(`OpenAI ${code ?? type} (${status}): ${message}`);
  });

  it.each([408, 409, 429, 500, 502, 503, 504])('retries HTTP %i', async (status) => {
    const err = await failure({ status, json: openaiErrorBody('try later', 'server_error') });
    expect(err).toMatchObject({ retryable: true, status });
  });

  it('carries Retry-After as the next retry delay', async () => {
    const err = await failure({
      status: 429,
      json: openaiErrorBody('Rate limit reached for requests', 'requests', 'rate_limit_exceeded'),
      headers: { 'retry-after': '2' },
    });
    expect(err).toMatchObject({ kind: 'rate_limit', retryable: true, retryAfterMs: 2000, type: 'rate_limit_exceeded' });
  });

  it('does not retry an HTTP 200 whose body is JSON instead of an event stream, and says what came back', async () => {
    const err = await failure({ status: 200, json: { id: 'chatcmpl-x', object: 'chat.completion', choices: [] } });
    expect(err).toMatchObject({ kind: 'invalid_response', retryable: false, status: 200, type: 'not_event_stream' });
    expect(err.message).toBe(
      'OpenAI answered HTTP 200 without streaming: expected a server-sent event stream, received application/json: {"id":"chatcmpl-x","object":"chat.completion","choices":[]}',
    );
  });

  it('retries an error chunk arriving after HTTP 200', async () => {
    const err = await failure({ sse: fixture('openai/error_midstream.sse') });
    expect(err).toMatchObject({ kind: 'server', retryable: true, type: 'server_error' });
    expect(err.status).toBeUndefined();
  });

  it('does not retry an error chunk whose code says the request was bad (vLLM)', async () => {
    const frames = [
      ...sseFrames(fixture('openai/error_midstream.sse')).slice(0, 1),
      `data: ${JSON.stringify({ error: { object: 'error', message: 'max_tokens must be at least 1', type: 'BadRequestError', param: null, code: 400 } })}\n\n`,
    ];
    const err = await failure({ sse: frames });
    expect(err).toMatchObject({ retryable: false, status: 400, type: 'BadRequestError' });
  });

  it('retries a connection reset mid-stream, a dropped connection and a stream with no finish_reason', async () => {
    const frames = sseFrames(fixture('openai/text.sse'));
    expect(await failure({ sse: frames.slice(0, 2), cut: true })).toMatchObject({ kind: 'connection', retryable: true });
    expect(await failure({ reset: true })).toMatchObject({ kind: 'connection', retryable: true });
    const unfinished = await failure({ sse: frames.slice(0, 3) });
    expect(unfinished).toMatchObject({ kind: 'connection', retryable: true });
    expect(unfinished.message).toMatch(/ended before a finish_reason/);
  });

  it('retries a request that timed out waiting for the response', async () => {
    const p = new OpenAIProvider({ apiKey: KEY, baseURL: `${server.origin}/v1`, timeoutMs: 300 });
    expect(await failure({ hang: true }, p)).toMatchObject({ kind: 'timeout', retryable: true });
  });

  it('aborts the HTTP stream when the call is cancelled, rejecting with the abort reason', async () => {
    const frames = openaiCompletion({
      model: 'gpt-test',
      text: 'y'.repeat(400),
      finish: 'stop',
      usage: { prompt: 1, completion: 1 },
      chunk: 4,
    });
    server.enqueue({ sse: frames, frameDelayMs: 50 });
    const ctx = callContext();
    const call = provider.generate(request('gpt-test'), ctx);
    const rec = await waitFor(() =>
      server.requests.find((r) => r.framesSent >= 3 && r.framesTotal === frames.length && !r.finishedAt && !r.abortedAt),
    );
    const reason = new Error('run cancelled');
    ctx.controller.abort(reason);
    expect(await rejection(call)).toBe(reason);
    await waitFor(() => rec.abortedAt);
    expect(rec.framesSent).toBeLessThan(rec.framesTotal);
  });
});
