/**
 * Extra cases: the captured Anthropic and OpenAI streams, requests and error bodies in `shared/fixtures`
 * next to the repository (present in CI), replayed through the real SDKs and our providers. They are
 * read in place, never copied into the project. When the folder is absent these cases are skipped, and
 * say so.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Message } from '../../src/core/messages/messages';
import type { ModelRequest } from '../../src/core/output/native-output';
import { AnthropicProvider } from '../../src/integrations/providers/anthropic';
import { OpenAIProvider } from '../../src/integrations/providers/openai';
import { ProviderError } from '../../src/integrations/providers/types';
import { callContext, rejection, replayCall } from './context';
import { ReplayServer } from './replay-server';

/** `shared/fixtures` beside the repository root (resolved from this file, never an absolute path). */
const SHARED = resolve(__dirname, '..', '..', '..', 'shared', 'fixtures');
const present = existsSync(join(SHARED, 'README.md'));
if (!present) console.warn(`shared fixture cases skipped: ${SHARED} is not present (it is in CI)`);

const read = (name: string): string => readFileSync(join(SHARED, name), 'utf8');
const json = <T>(name: string): T => JSON.parse(read(name)) as T;

interface WireRequest {
  model: string;
  max_tokens: number;
  system?: Array<{ type: 'text'; text: string }>;
  thinking?: { type: string; budget_tokens: number };
  tools?: Array<{ name: string; description: string; input_schema: Record<string, unknown> }>;
  messages: Array<{ role: 'user' | 'assistant'; content: Array<Record<string, unknown>> }>;
}

/** Our request for a recorded one: same model, limits, system, thinking and tools. */
function requestLike(wire: WireRequest, messages: Message[]): ModelRequest {
  return {
    model: wire.model,
    maxTokens: wire.max_tokens,
    messages,
    ...(wire.system ? { system: wire.system.map((b) => b.text).join('') } : {}),
    ...(wire.thinking ? { thinking: { budgetTokens: wire.thinking.budget_tokens } } : {}),
    tools: (wire.tools ?? []).map((t) => ({
      name: t.name,
      description: t.description,
      inputSchema: t.input_schema as ModelRequest['tools'][number]['inputSchema'],
    })),
  };
}

/** A request body without our cache breakpoints (the recordings were made without caching). */
function withoutCacheControl(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutCacheControl);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([k]) => k !== 'cache_control')
        .map(([k, v]) => [k, withoutCacheControl(v)]),
    );
  }
  return value;
}

/** The recorded request's user text, as our first message. */
function firstUserMessage(wire: WireRequest): Message {
  const text = wire.messages[0]!.content.map((b) => b.text as string).join('');
  return { role: 'user', content: [{ type: 'text', text }] };
}

/** Tool results in our shape, from the recorded user message that carried them. */
function toolResultsOf(wire: WireRequest, index: number): Message {
  return {
    role: 'user',
    content: wire.messages[index]!.content.map((b) => ({
      type: 'tool_result' as const,
      toolUseId: b.tool_use_id as string,
      output: { type: 'text' as const, text: (b.content as Array<{ text: string }>).map((c) => c.text).join('') },
      isError: false,
    })),
  };
}

describe.skipIf(!present /* reason: ../shared/fixtures absent (warned above); the data lives outside the project */)(
  'shared Anthropic fixtures',
  () => {
    let server: ReplayServer;
    let provider: AnthropicProvider;
    beforeAll(async () => {
      server = await ReplayServer.start();
      // Caching off so requests compare with the recordings byte for byte (breakpoints are tested elsewhere).
      provider = new AnthropicProvider({ apiKey: 'test-key-shared', baseURL: server.origin, promptCaching: false });
    });
    afterAll(async () => {
      await server?.close();
    });

    async function replay(file: string, req: ModelRequest) {
      const { response, sent } = await replayCall(server, provider, read(file), req);
      return { response, sent: sent.body };
    }
    const hello = (model = 'claude-test-model'): ModelRequest => ({
      model,
      maxTokens: 1024,
      tools: [],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hello' }] }],
    });

    type Expected = Record<string, { final_message_subset?: Record<string, unknown>; final_message_exact?: Record<string, unknown> }>;
    const expectedFor = (key: string) => {
      const e = json<Expected>('anthropic/expected_final_messages.json')[key]!;
      return (e.final_message_subset ?? e.final_message_exact) as {
        model: string;
        stop_reason: string;
        content: Array<Record<string, unknown>>;
        usage: Record<string, number>;
      };
    };
    const usageOf = (u: Record<string, number>) => ({
      inputTokens: u.input_tokens ?? 0,
      outputTokens: u.output_tokens ?? 0,
      cacheReadTokens: u.cache_read_input_tokens ?? 0,
      cacheWriteTokens: u.cache_creation_input_tokens ?? 0,
    });

    it('text.sse matches expected_final_messages.json', async () => {
      const want = expectedFor('anthropic_sse_text.txt');
      const { response } = await replay('anthropic/text.sse', hello());
      expect(response.message.content).toEqual(want.content);
      expect(response.stopReason).toBe(want.stop_reason);
      expect(response.model).toBe(want.model);
      expect(response.usage).toEqual(usageOf(want.usage));
    });

    it('tool_use.sse matches expected_final_messages.json (input from chunks split inside keys, first one empty)', async () => {
      const want = expectedFor('anthropic_sse_tool_use.txt');
      const { response } = await replay('anthropic/tool_use.sse', hello());
      expect(response.message.content).toEqual(want.content);
      expect(response.stopReason).toBe('tool_use');
      expect(response.usage).toEqual(usageOf(want.usage));
    });

    it('max_tokens_mid_tool.sse: the text and the cut-off call, flagged incomplete', async () => {
      const want = expectedFor('anthropic_sse_max_tokens.txt');
      const { response } = await replay('anthropic/max_tokens_mid_tool.sse', hello());
      expect(response.stopReason).toBe('max_tokens');
      expect(response.usage).toEqual(usageOf(want.usage));
      const [text, call] = response.message.content;
      expect(text).toEqual(want.content[0]);
      const wantCall = want.content[1]!;
      // The expectation's partial input comes from the SDK's own partial parse of a longer recording; we
      // never complete cut-off JSON: the call keeps the raw text, its parse error, and is never run.
      expect(call).toMatchObject({
        type: 'tool_use',
        id: wantCall.id,
        name: wantCall.name,
        incomplete: true,
        inputError: expect.any(String),
      });
      expect((call as { input: unknown }).input).toEqual(expect.stringMatching(/"filename"\s*:\s*"taxes\.txt"/));
    });

    it('text_live.sse: whitespace inside the JSON and extra usage fields', async () => {
      const { response } = await replay('anthropic/text_live.sse', hello());
      expect(response.message.content).toEqual([
        {
          type: 'text',
          text: 'Olá! (That\'s "hi" in Portuguese)\n\nYou could also say "Oi!" which is a more casual way to say hi in Portuguese.',
        },
      ]);
      expect(response.usage).toEqual({ inputTokens: 16, outputTokens: 38, cacheReadTokens: 0, cacheWriteTokens: 0 });
      expect(response.stopReason).toBe('end_turn');
    });

    it('tool_use_parallel.sse: the next request is request_parallel_turn2.json (tool results in call order)', async () => {
      const turn2 = json<WireRequest>('anthropic/request_parallel_turn2.json');
      const prompt = firstUserMessage(turn2);
      const first = await replay('anthropic/tool_use_parallel.sse', requestLike(turn2, [prompt]));
      expect(first.response.stopReason).toBe('tool_use');
      const second = await replay('anthropic/text.sse', requestLike(turn2, [prompt, first.response.message, toolResultsOf(turn2, 2)]));
      const sent = second.sent as unknown as WireRequest;
      expect(withoutCacheControl(sent.messages)).toEqual(turn2.messages);
      expect(sent.system).toEqual(turn2.system);
      expect(sent.tools).toEqual(turn2.tools);
      expect(sent).toMatchObject({ model: turn2.model, max_tokens: turn2.max_tokens, stream: true });
    });

    it('thinking.sse: turn 1 is request_thinking_turn1.json; turn 2 sends the thinking block and signature back unchanged (request_thinking_turn2.json)', async () => {
      const turn1 = json<WireRequest>('anthropic/request_thinking_turn1.json');
      const turn2 = json<WireRequest>('anthropic/request_thinking_turn2.json');
      const prompt = firstUserMessage(turn1);
      const first = await replay('anthropic/thinking.sse', requestLike(turn1, [prompt]));
      const sent1 = first.sent as unknown as WireRequest;
      expect(sent1.messages).toEqual(turn1.messages);
      expect(sent1).toMatchObject({ thinking: turn1.thinking, system: turn1.system, tools: turn1.tools, max_tokens: turn1.max_tokens });
      expect(first.response.message.content.map((b) => b.type)).toEqual(['thinking', 'tool_use']);

      const second = await replay(
        'anthropic/thinking_turn2.sse',
        requestLike(turn2, [prompt, first.response.message, toolResultsOf(turn2, 2)]),
      );
      const sent2 = second.sent as unknown as WireRequest;
      expect(withoutCacheControl(sent2.messages)).toEqual(turn2.messages);
      expect(sent2.thinking).toEqual(turn2.thinking);
      expect(second.response.message.content).toEqual([
        {
          type: 'text',
          text: "The current weather in Florence, Italy is 40°C (104°F). That's quite hot! If you're planning to visit or are currently there, make sure to stay hydrated and seek shade or air conditioning when possible.",
        },
      ]);
    });

    it('error_overloaded_midstream.sse and error_overloaded_frame.sse: retryable overload, nothing kept', async () => {
      for (const file of ['anthropic/error_overloaded_midstream.sse', 'anthropic/error_overloaded_frame.sse']) {
        server.enqueue({ sse: read(file) });
        const err = await rejection(provider.generate(hello(), callContext()));
        expect(err, file).toBeInstanceOf(ProviderError);
        expect(err, file).toMatchObject({ kind: 'overloaded', retryable: true, type: 'overloaded_error' });
      }
    });

    it('http_errors.json: every status and body is retried or not as recorded', async () => {
      interface ErrorCase {
        status: number;
        type: string;
        retry: boolean;
        bodies?: Array<{ body?: { error: { type: string; message: string } }; message_only?: string }>;
      }
      const cases = json<{ errors: ErrorCase[] }>('anthropic/http_errors.json').errors;
      let checked = 0;
      for (const c of cases) {
        const bodies = (c.bodies ?? []).map((b) => b.body ?? { type: 'error', error: { type: c.type, message: b.message_only ?? '' } });
        if (bodies.length === 0) bodies.push({ type: 'error', error: { type: c.type, message: `${c.type} from the recording` } });
        for (const body of bodies) {
          server.enqueue({ status: c.status, json: body, headers: c.status === 429 ? { 'retry-after': '3' } : {} });
          const err = (await rejection(provider.generate(hello(), callContext()))) as ProviderError;
          const label = `${c.status} ${body.error.message}`;
          expect(err, label).toBeInstanceOf(ProviderError);
          expect(err.retryable, label).toBe(c.retry);
          expect(err.status, label).toBe(c.status);
          expect(err.type, label).toBe(body.error.type);
          expect(err.message, label).toContain(body.error.message);
          if (c.status === 429) expect(err.retryAfterMs, label).toBe(3000);
          checked++;
        }
      }
      expect(checked).toBeGreaterThanOrEqual(10);
    });
  },
);

describe.skipIf(!present /* reason: ../shared/fixtures absent (warned above) */)('shared OpenAI fixtures', () => {
  let server: ReplayServer;
  let provider: OpenAIProvider;
  beforeAll(async () => {
    server = await ReplayServer.start();
    provider = new OpenAIProvider({ apiKey: 'test-key-shared', baseURL: `${server.origin}/v1` });
  });
  afterAll(async () => {
    await server?.close();
  });

  async function replay(file: string, req: ModelRequest) {
    const { response, sent } = await replayCall(server, provider, read(file), req);
    return { response, sent: sent.body };
  }

  interface OpenAIWire {
    model: string;
    max_tokens: number;
    messages: Array<{ role: string; content: string }>;
    tools: Array<{ type: 'function'; function: { name: string; description: string; parameters: Record<string, unknown> } }>;
    stream_options: unknown;
  }
  const recorded = (): OpenAIWire => json<OpenAIWire>('openai/request_tool_call.json');
  const weatherRequest = (): ModelRequest => {
    const wire = recorded();
    return {
      model: wire.model,
      maxTokens: wire.max_tokens,
      system: wire.messages[0]!.content,
      messages: [{ role: 'user', content: [{ type: 'text', text: wire.messages[1]!.content }] }],
      tools: wire.tools.map((t) => ({
        name: t.function.name,
        description: t.function.description,
        inputSchema: t.function.parameters as ModelRequest['tools'][number]['inputSchema'],
      })),
    };
  };

  it('tool_call.sse: arguments from 8 fragments, usage-only chunk; the request matches request_tool_call.json', async () => {
    const { response, sent } = await replay('openai/tool_call.sse', weatherRequest());
    expect(response.message.content).toEqual([
      { type: 'tool_use', id: 'call_qLFv8oQOs68qRuEVmG8TuEJp', name: 'weather', input: { location: 'Florence,Italy' } },
    ]);
    expect(response.stopReason).toBe('tool_use');
    expect(response.usage).toEqual({ inputTokens: 61, outputTokens: 16, cacheReadTokens: 0, cacheWriteTokens: 0 });
    const wire = recorded();
    expect(sent).toMatchObject({
      model: wire.model,
      max_tokens: wire.max_tokens,
      messages: wire.messages,
      stream: true,
      stream_options: wire.stream_options,
    });
    expect((sent.tools as OpenAIWire['tools']).map((t) => t.function)).toEqual(
      wire.tools.map((t) => ({ name: t.function.name, description: t.function.description, parameters: t.function.parameters })),
    );
  });

  it('parallel_tool_calls.sse: two calls by index', async () => {
    const { response } = await replay('openai/parallel_tool_calls.sse', weatherRequest());
    expect(response.message.content).toEqual([
      { type: 'tool_use', id: 'call_cclGbjTQkZDEnnHrRiU0n7NO', name: 'add', input: { a: 2, b: 3 } },
      { type: 'tool_use', id: 'call_Nob2SzTcxIjro1HvSBPQS6XG', name: 'multiply', input: { a: 2, b: 3 } },
    ]);
    expect(response.usage).toEqual({ inputTokens: 106, outputTokens: 50, cacheReadTokens: 0, cacheWriteTokens: 0 });
  });

  it('tool_call_llamacpp.sse: reasoning_content, a fragment in the first call chunk, an id without call_', async () => {
    const { response } = await replay('openai/tool_call_llamacpp.sse', weatherRequest());
    expect(response.message.content).toEqual([
      { type: 'thinking', thinking: 'User wants weather in Florence, Italy. We can use the weather function.', signature: '' },
      { type: 'tool_use', id: 'g2KOIWzn722hzEaZQmNVP4roUPEiYafL', name: 'weather', input: { location: 'Florence, Italy' } },
    ]);
    expect(response.model).toBe('openai/gpt-oss-20b');
    expect(response.usage).toEqual({ inputTokens: 139, outputTokens: 41, cacheReadTokens: 0, cacheWriteTokens: 0 });
  });
});
