/**
 * `@ai-sdk/anthropic` 4 (the v4 specification, `ai@7`) through our adapter against the local replay
 * server: the project's captured Messages streams (and the shared captures, when present) parsed by the
 * package and assembled by the adapter — thinking with its signature and redacted thinking, usage with
 * cache reads and writes, a tool call cut off at max_tokens, a mid-stream overload, a stream that ends
 * without `message_stop` (the package's `interrupted`), HTTP errors as the package reports them — and
 * the requests it builds from the adapter's prompt (thinking sent back unchanged on the next turn).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Message } from '../../src/core/messages/messages';
import type { ModelRequest } from '../../src/core/output/native-output';
import type { AiSdkProvider } from '../../src/integrations/providers/ai-sdk';
import { aiSdkProvider } from '../../src/integrations/providers/ai-sdk';
import { ProviderError } from '../../src/integrations/providers/types';
import { aiSdk7 } from '../helpers/ai-sdk';
import { callContext, expectDeltasAddUp, failedCall, rejection, replayCall, request } from './context';
import { ReplayServer } from './replay-server';
import { anthropicErrorBody, anthropicMessage, fixture } from './sse';

const KEY = 'test-key-aisdk-anthropic-51c0';
let server: ReplayServer;
let provider: AiSdkProvider;

beforeAll(async () => {
  server = await ReplayServer.start();
  const { createAnthropic } = await aiSdk7();
  provider = aiSdkProvider(createAnthropic({ apiKey: KEY, baseURL: `${server.origin}/v1` }), {
    settings: { providerOptions: { anthropic: { thinking: { type: 'enabled', budgetTokens: 2048 } } } },
  });
});
afterAll(async () => {
  await server?.close();
});

const tools: ModelRequest['tools'] = [
  { name: 'lookup', description: 'Look a fact up', inputSchema: { type: 'object', properties: { q: { type: 'string' } } } },
];

const replay = (sse: string | string[], req: ModelRequest = request('claude-test', 'hi', { maxTokens: 4096 })) =>
  replayCall(server, provider, sse, req);

/** The assistant blocks of a sent Messages request. */
const assistantBlocks = (body: { messages?: unknown[] }) =>
  (body.messages as Array<{ role: string; content: unknown[] }>).filter((m) => m.role === 'assistant').flatMap((m) => m.content);

describe('@ai-sdk/anthropic 4 through the adapter (replay server)', () => {
  it('assembles thinking with its signature, redacted thinking and a tool call; sends them back unchanged', async () => {
    const { response, sent, ctx } = await replay(
      fixture('anthropic/thinking_tool.sse'),
      request('claude-test', 'Boiling point?', { tools }),
    );
    expect(response).toEqual({
      message: {
        role: 'assistant',
        content: [
          {
            type: 'thinking',
            thinking: 'The question is about a physical constant; I should look it up rather than guess.',
            signature: 'ZGEtc2lnLTAxOnRoaW5raW5nLWJsb2NrLXNpZ25hdHVyZS0rL1E9PQ==',
          },
          { type: 'redacted_thinking', data: 'ZGEtcmVkYWN0ZWQtb3BhcXVlLWJsb2I=' },
          { type: 'tool_use', id: 'toolu_da04lookup', name: 'lookup', input: { q: 'boiling point of water' } },
        ],
      },
      stopReason: 'tool_use',
      usage: { inputTokens: 512, outputTokens: 97, cacheReadTokens: 0, cacheWriteTokens: 0 },
      model: 'claude-sonnet-4-5-20250929',
    });
    expectDeltasAddUp(ctx.deltas, response.message);
    expect(sent.path).toBe('/v1/messages');
    expect(sent.headers['x-api-key']).toBe(KEY);
    expect(sent.body).toMatchObject({ stream: true, thinking: { type: 'enabled', budget_tokens: 2048 } });

    const next: Message[] = [
      { role: 'user', content: [{ type: 'text', text: 'Boiling point?' }] },
      response.message,
      {
        role: 'user',
        content: [{ type: 'tool_result', toolUseId: 'toolu_da04lookup', output: { type: 'text', text: '100 °C' }, isError: false }],
      },
    ];
    const second = await replay(fixture('anthropic/cached_usage.sse'), request('claude-test', next, { tools, maxTokens: 4096 }));
    expect(assistantBlocks(second.sent.body)).toEqual([
      {
        type: 'thinking',
        thinking: 'The question is about a physical constant; I should look it up rather than guess.',
        signature: 'ZGEtc2lnLTAxOnRoaW5raW5nLWJsb2NrLXNpZ25hdHVyZS0rL1E9PQ==',
      },
      { type: 'redacted_thinking', data: 'ZGEtcmVkYWN0ZWQtb3BhcXVlLWJsb2I=' },
      { type: 'tool_use', id: 'toolu_da04lookup', name: 'lookup', input: { q: 'boiling point of water' } },
    ]);
    // cached_usage.sse: 12 uncached input tokens, 40000 read from the cache, 1500 written to it.
    expect(second.response.usage).toEqual({ inputTokens: 12, outputTokens: 30, cacheReadTokens: 40_000, cacheWriteTokens: 1500 });
    expect(second.response.stopReason).toBe('end_turn');
  });

  it('a call cut off at max_tokens keeps its raw arguments and is flagged incomplete', async () => {
    const { response } = await replay(fixture('anthropic/max_tokens_mid_tool.sse'));
    expect(response.stopReason).toBe('max_tokens');
    const [text, done, cut] = response.message.content;
    expect(text).toEqual({ type: 'text', text: 'Writing both notes.' });
    expect(done).toEqual({ type: 'tool_use', id: 'toolu_da06done', name: 'write_file', input: { path: 'notes.md', text: 'short' } });
    expect(cut).toMatchObject({
      type: 'tool_use',
      id: 'toolu_da06cut',
      name: 'write_file',
      incomplete: true,
      inputError: expect.any(String),
    });
  });

  it('fails retryably on a mid-stream overload and on a stream that ends without message_stop (interrupted)', async () => {
    server.enqueue({ sse: fixture('anthropic/overloaded_midstream.sse') });
    expect(await rejection(provider.generate(request('claude-test'), callContext()))).toMatchObject({
      kind: 'overloaded',
      retryable: true,
      type: 'overloaded_error',
    });
    const whole = anthropicMessage({
      model: 'claude-test',
      blocks: [{ type: 'text', text: 'Half an answer that breaks off' }],
      stopReason: 'end_turn',
      usage: { input: 9, output: 9 },
    });
    const ctx = callContext();
    server.enqueue({ sse: whole.slice(0, 4) });
    const interrupted = await rejection(provider.generate(request('claude-test'), ctx));
    expect(interrupted).toBeInstanceOf(ProviderError);
    expect(interrupted).toMatchObject({ kind: 'connection', retryable: true });
    expect(ctx.deltas.length).toBeGreaterThan(0);
    expect(await failedCall(server, provider, { sse: whole.slice(0, 4), cut: true }, request('claude-test'))).toMatchObject({
      retryable: true,
    });
  });

  it('classifies HTTP errors: 429 retryable after its Retry-After, 529 overloaded, 401 and 400 final with the API message', async () => {
    const limited = await failedCall(
      server,
      provider,
      { status: 429, json: anthropicErrorBody('rate_limit_error', 'Number of requests exceeded'), headers: { 'retry-after': '4' } },
      request('claude-test'),
    );
    expect(limited).toMatchObject({ kind: 'rate_limit', retryable: true, status: 429, retryAfterMs: 4000, type: 'rate_limit_error' });
    expect(
      await failedCall(
        server,
        provider,
        { status: 529, json: anthropicErrorBody('overloaded_error', 'Overloaded') },
        request('claude-test'),
      ),
    ).toMatchObject({ kind: 'overloaded', retryable: true, status: 529 });
    const denied = await failedCall(
      server,
      provider,
      { status: 401, json: anthropicErrorBody('authentication_error', 'invalid x-api-key') },
      request('claude-test'),
    );
    expect(denied).toMatchObject({ kind: 'authentication', retryable: false, status: 401 });
    expect(denied.message).toContain('invalid x-api-key');
    const tooLong = await failedCall(
      server,
      provider,
      { status: 400, json: anthropicErrorBody('invalid_request_error', 'prompt is too long: 215013 tokens > 200000 maximum') },
      request('claude-test'),
    );
    // (failedCall checks each failure came after exactly one request: the package's own retries are not in play.)
    expect(tooLong).toMatchObject({ kind: 'context_overflow', retryable: false, status: 400 });
  });
});

/** `shared/fixtures` beside the repository root (present in CI), read in place. */
const SHARED = resolve(__dirname, '..', '..', '..', 'shared', 'fixtures');
const shared = existsSync(join(SHARED, 'README.md'));
if (!shared) console.warn(`shared fixture cases skipped: ${SHARED} is not present (it is in CI)`);

describe.skipIf(!shared /* reason: ../shared/fixtures absent (warned above); the data lives outside the project */)(
  '@ai-sdk/anthropic 4 on the shared captures',
  () => {
    const read = (name: string) => readFileSync(join(SHARED, name), 'utf8');
    const json = <T>(name: string): T => JSON.parse(read(name)) as T;

    it('text.sse and tool_use.sse assemble as expected_final_messages.json says', async () => {
      type Expected = Record<string, { final_message_subset?: { content: unknown[] }; final_message_exact?: { content: unknown[] } }>;
      const expected = json<Expected>('anthropic/expected_final_messages.json');
      const want = (key: string) => (expected[key]!.final_message_subset ?? expected[key]!.final_message_exact)!.content;
      expect((await replay(read('anthropic/text.sse'))).response.message.content).toEqual(want('anthropic_sse_text.txt'));
      const tool = await replay(read('anthropic/tool_use.sse'));
      expect(tool.response.message.content).toEqual(want('anthropic_sse_tool_use.txt'));
      expect(tool.response.stopReason).toBe('tool_use');
    });

    it('thinking.sse: the thinking block and its signature go back unchanged on turn 2 (request_thinking_turn2.json)', async () => {
      interface Wire {
        messages: Array<{ role: string; content: Array<Record<string, unknown>> }>;
      }
      const turn2 = json<Wire>('anthropic/request_thinking_turn2.json');
      const prompt: Message = {
        role: 'user',
        content: [{ type: 'text', text: turn2.messages[0]!.content.map((b) => b.text as string).join('') }],
      };
      const first = await replay(read('anthropic/thinking.sse'), request('claude-test', [prompt], { maxTokens: 4096 }));
      expect(first.response.message.content.map((b) => b.type)).toEqual(['thinking', 'tool_use']);
      const results: Message = {
        role: 'user',
        content: turn2.messages[2]!.content.map((b) => ({
          type: 'tool_result' as const,
          toolUseId: b.tool_use_id as string,
          output: { type: 'text' as const, text: (b.content as Array<{ text: string }>).map((c) => c.text).join('') },
          isError: false,
        })),
      };
      const second = await replay(
        read('anthropic/thinking_turn2.sse'),
        request('claude-test', [prompt, first.response.message, results], { maxTokens: 4096 }),
      );
      expect(assistantBlocks(second.sent.body)).toEqual(turn2.messages[1]!.content);
      expect(second.response.message.content[0]).toMatchObject({ type: 'text' });
    });

    it('http_errors.json: every status is retried or not as recorded; mid-stream overloads are retryable', async () => {
      interface ErrorCase {
        status: number;
        type: string;
        retry: boolean;
      }
      const cases = json<{ errors: ErrorCase[] }>('anthropic/http_errors.json').errors;
      for (const c of cases) {
        const err = await failedCall(
          server,
          provider,
          {
            status: c.status,
            json: anthropicErrorBody(c.type, `${c.type} from the recording`),
            headers: c.status === 429 ? { 'retry-after': '3' } : {},
          },
          request('claude-test'),
        );
        expect(err.retryable, `${c.status}`).toBe(c.retry);
        expect(err.status, `${c.status}`).toBe(c.status);
        expect(err.type, `${c.status}`).toBe(c.type);
        if (c.status === 429) expect(err.retryAfterMs).toBe(3000);
      }
      expect(cases.length).toBeGreaterThanOrEqual(8);
      server.enqueue({ sse: read('anthropic/error_overloaded_midstream.sse') });
      expect(await rejection(provider.generate(request('claude-test'), callContext()))).toMatchObject({
        kind: 'overloaded',
        retryable: true,
      });
    });
  },
);
