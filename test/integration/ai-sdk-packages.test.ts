/**
 * Today's AI SDK provider packages in the agent loop on the real dev server: `@ai-sdk/anthropic` 4 and
 * `@ai-sdk/openai` 4 (the v4 specification, `ai@7`; Chat Completions and its default, the Responses API),
 * each over HTTP to the local replay server, which replays the project's captured Anthropic Messages
 * streams and Chat Completions and Responses streams built to the protocol. A tool cycle to `success` with the requests the packages sent checked (Anthropic thinking
 * and its signature, and redacted thinking, sent back on the next turn), usage with cache reads and
 * writes summed, a 429 with Retry-After classified and retried by the workflow after that long, and a
 * stream that broke off mid-answer (ended without its completion event: the packages' `interrupted`;
 * or the connection cut) retried, its partial text never in the transcript.
 */
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RetryOptions } from '../../src/agents/define';
import { defineAgent, defineTool } from '../../src/agents/define';
import { aiSdkProvider } from '../../src/integrations/providers/ai-sdk';
import { aiSdk7 } from '../helpers/ai-sdk';
import { allEvents, resultWithin, toolResults } from '../helpers/events';
import type { Harness } from '../helpers/harness';
import { startHarness, testId } from '../helpers/harness';
import { echo } from '../helpers/tools';
import type { RecordedRequest, Reply } from '../providers/replay-server';
import { ReplayServer, sseFrames } from '../providers/replay-server';
import { anthropicErrorBody, anthropicMessage, fixture, openaiCompletion, openaiResponse } from '../providers/sse';

const fast: RetryOptions = { maximumAttempts: 4, initialInterval: '50ms', maximumInterval: '5s' };
const KEY = 'test-key-aisdk-packages-7e21';

/** What `lookup` was asked. */
const looked: string[] = [];
const lookup = defineTool({
  name: 'lookup',
  description: 'Look a fact up',
  input: z.object({ q: z.string() }),
  readOnly: true,
  execute: ({ q }) => (looked.push(q), `${q}: 100 °C at sea level`),
});

const agents = [
  defineAgent({ name: 'pkg_anthropic_tools', model: { provider: 'anthropic', model: 'claude-think' }, tools: [lookup], modelRetry: fast }),
  defineAgent({ name: 'pkg_anthropic_limited', model: { provider: 'anthropic', model: 'claude-limited' }, modelRetry: fast }),
  defineAgent({ name: 'pkg_anthropic_interrupted', model: { provider: 'anthropic', model: 'claude-interrupted' }, modelRetry: fast }),
  defineAgent({ name: 'pkg_openai_tools', model: { provider: 'openai', model: 'gpt-tools' }, tools: [echo], modelRetry: fast }),
  defineAgent({ name: 'pkg_openai_cut', model: { provider: 'openai', model: 'gpt-cut' }, modelRetry: fast }),
  defineAgent({
    name: 'pkg_openai_responses',
    model: { provider: 'openai-responses', model: 'gpt-responses' },
    tools: [echo],
    modelRetry: fast,
  }),
];

/**
 * Whether a request carries a tool's result (Anthropic: a user `tool_result` block; Chat Completions: a
 * `tool` message; Responses: a `function_call_output` input item).
 */
function answered(req: RecordedRequest): boolean {
  const input = Array.isArray(req.body.input) ? (req.body.input as Array<{ type?: string }>) : [];
  if (input.some((item) => item.type === 'function_call_output')) return true;
  return (req.body.messages ?? []).some((m) => {
    const msg = m as { role?: string; content?: unknown };
    return msg.role === 'tool' || (Array.isArray(msg.content) && msg.content.some((b) => (b as { type?: string }).type === 'tool_result'));
  });
}

const fullAnswer = 'The boiling point of water is 100 °C at sea level.';

/** The reply to each request, by the model it names and how many requests for that model came before. */
function reply(req: RecordedRequest, seen: number): Reply | undefined {
  switch (req.body.model) {
    case 'claude-think':
      return { sse: sseFrames(fixture(answered(req) ? 'anthropic/cached_usage.sse' : 'anthropic/thinking_tool.sse')), frameDelayMs: 2 };
    case 'claude-limited':
      if (seen === 0) {
        return {
          status: 429,
          json: anthropicErrorBody('rate_limit_error', 'Number of request tokens has exceeded your rate limit'),
          headers: { 'retry-after': '1' },
        };
      }
      return {
        sse: anthropicMessage({
          model: 'claude-limited',
          blocks: [{ type: 'text', text: 'Rate limit passed.' }],
          stopReason: 'end_turn',
          usage: { input: 20, output: 5 },
        }),
      };
    case 'claude-interrupted': {
      const whole = anthropicMessage({
        model: 'claude-interrupted',
        blocks: [{ type: 'text', text: fullAnswer }],
        stopReason: 'end_turn',
        usage: { input: 30, output: 12 },
      });
      // The first answer ends (a clean end of the HTTP body) after a few text deltas: no message_delta, no message_stop.
      return seen === 0 ? { sse: whole.slice(0, 4) } : { sse: whole };
    }
    case 'gpt-tools':
      return answered(req)
        ? {
            sse: openaiCompletion({
              model: 'gpt-tools-2026',
              text: 'The echo said ping.',
              finish: 'stop',
              usage: { prompt: 300, completion: 6, cached: 256 },
            }),
          }
        : {
            sse: openaiCompletion({
              model: 'gpt-tools-2026',
              text: 'Echoing.',
              calls: [{ id: 'call_echo_7', name: 'echo', args: { text: 'ping' } }],
              finish: 'tool_calls',
              usage: { prompt: 200, completion: 12, cached: 128 },
            }),
          };
    case 'gpt-responses':
      return answered(req)
        ? {
            sse: openaiResponse({
              model: 'gpt-responses-2026',
              text: 'The echo said ping.',
              usage: { input: 320, output: 6, cached: 300 },
            }),
          }
        : {
            sse: openaiResponse({
              model: 'gpt-responses-2026',
              calls: [{ id: 'call_resp_1', name: 'echo', args: { text: 'ping' } }],
              usage: { input: 250, output: 15 },
            }),
          };
    case 'gpt-cut': {
      const whole = openaiCompletion({ model: 'gpt-cut', text: fullAnswer, finish: 'stop', usage: { prompt: 40, completion: 12 } });
      // The first connection is dropped after a few deltas.
      return seen === 0 ? { sse: whole.slice(0, 4), cut: true } : { sse: whole };
    }
    default:
      return undefined;
  }
}

let h: Harness;
let server: ReplayServer;

beforeAll(async () => {
  server = await ReplayServer.start((req) => reply(req, server.requestsFor(String(req.body.model)).length - 1));
  const { createAnthropic, createOpenAI } = await aiSdk7();
  const anthropic = createAnthropic({ apiKey: KEY, baseURL: `${server.origin}/v1` });
  const openai = createOpenAI({ apiKey: KEY, baseURL: `${server.origin}/v1` });
  h = await startHarness({
    agents,
    providers: {
      anthropic: aiSdkProvider(anthropic, {
        settings: { providerOptions: { anthropic: { thinking: { type: 'enabled', budgetTokens: 1024 } } } },
      }),
      // Chat Completions (the package's default, the Responses API, is not what the replay server speaks).
      openai: aiSdkProvider((id) => openai.chat(id)),
      // The provider instance itself: its models speak the Responses API.
      'openai-responses': aiSdkProvider(openai),
    },
  });
}, 60_000);
afterAll(async () => {
  await h?.stop();
  await server?.close();
});

describe('@ai-sdk/anthropic 4 and @ai-sdk/openai 4 in the agent loop (real dev server, replay server)', () => {
  it('anthropic: a tool cycle; thinking with its signature and redacted thinking sent back; cache reads and writes counted', async () => {
    const run = await h.client.start('pkg_anthropic_tools', { input: 'Boiling point of water?', workflowId: testId('pkg-anthropic') });
    const result = await resultWithin(run);
    expect(result.status).toBe('success');
    expect(result.finalText).toBe('Done: all 40 files reviewed.');
    expect(looked).toEqual(['boiling point of water']);
    expect(result.messages[1]).toEqual({
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
    });
    expect(toolResults(result)).toEqual([
      {
        type: 'tool_result',
        toolUseId: 'toolu_da04lookup',
        output: { type: 'text', text: 'boiling point of water: 100 °C at sea level' },
        isError: false,
      },
    ]);
    // The second request, as @ai-sdk/anthropic built it from the adapter's prompt.
    const sent = server.requestsFor('claude-think');
    expect(sent).toHaveLength(2);
    expect(sent[1]!.path).toBe('/v1/messages');
    expect(sent[1]!.headers['x-api-key']).toBe(KEY);
    expect(sent[1]!.body).toMatchObject({ stream: true, thinking: { type: 'enabled', budget_tokens: 1024 } });
    expect(sent[1]!.body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Boiling point of water?' }] },
      {
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
      {
        role: 'user',
        content: [
          expect.objectContaining({
            type: 'tool_result',
            tool_use_id: 'toolu_da04lookup',
            content: 'boiling point of water: 100 °C at sea level',
          }),
        ],
      },
    ]);
    // Usage from the packages' v4 usage: input without the cached tokens, cache reads and writes apart.
    expect(result.usage).toEqual({ inputTokens: 512 + 12, outputTokens: 97 + 30, cacheReadTokens: 40_000, cacheWriteTokens: 1500 });
    expect(result.report.steps.map((s) => [s.provider, s.model, s.stopReason, s.attempts])).toEqual([
      ['anthropic', 'claude-sonnet-4-5-20250929', 'tool_use', 1],
      ['anthropic', 'claude-sonnet-4-5-20250929', 'end_turn', 1],
    ]);
  });

  it('anthropic: a 429 with Retry-After is retried by the workflow after that long', async () => {
    const run = await h.client.start('pkg_anthropic_limited', { input: 'hi', workflowId: testId('pkg-limited') });
    const result = await resultWithin(run);
    expect(result.status).toBe('success');
    expect(result.finalText).toBe('Rate limit passed.');
    expect(server.requestsFor('claude-limited')).toHaveLength(2);
    const retrying = (await allEvents(run)).filter((e) => e.type === 'retrying');
    expect(retrying).toHaveLength(1);
    expect(retrying[0]).toMatchObject({ type: 'retrying', step: 1, attempt: 1, delayMs: 1000, errorType: 'rate_limit_error' });
    expect(retrying[0]?.type === 'retrying' && retrying[0].error).toContain('Number of request tokens has exceeded your rate limit');
    expect(result.report.steps.map((s) => s.attempts)).toEqual([2]);
  });

  it('anthropic: a stream that ends without its completion event (interrupted) is retried; its text is not kept', async () => {
    const run = await h.client.start('pkg_anthropic_interrupted', { input: 'boiling point?', workflowId: testId('pkg-interrupted') });
    const result = await resultWithin(run);
    expect(result.status).toBe('success');
    expect(result.finalText).toBe(fullAnswer);
    expect(result.messages.filter((m) => m.role === 'assistant')).toHaveLength(1);
    expect(server.requestsFor('claude-interrupted')).toHaveLength(2);
    const retrying = (await allEvents(run)).filter((e) => e.type === 'retrying');
    expect(retrying).toHaveLength(1);
    expect(retrying[0]).toMatchObject({ type: 'retrying', step: 1, attempt: 1 });
    expect(retrying[0]?.type === 'retrying' && retrying[0].error).toMatch(/stream ended before its finish part/);
    expect(result.usage).toEqual({ inputTokens: 30, outputTokens: 12, cacheReadTokens: 0, cacheWriteTokens: 0 });
  });

  it('openai (chat): a tool cycle with the call streamed in fragments; cache reads counted apart', async () => {
    const run = await h.client.start('pkg_openai_tools', { input: 'echo ping', workflowId: testId('pkg-openai') });
    const result = await resultWithin(run);
    expect(result.status).toBe('success');
    expect(result.finalText).toBe('The echo said ping.');
    expect(result.messages[1]).toEqual({
      role: 'assistant',
      content: [
        { type: 'text', text: 'Echoing.' },
        { type: 'tool_use', id: 'call_echo_7', name: 'echo', input: { text: 'ping' } },
      ],
    });
    const sent = server.requestsFor('gpt-tools');
    expect(sent).toHaveLength(2);
    expect(sent[1]!.path).toBe('/v1/chat/completions');
    expect(sent[1]!.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(sent[1]!.body.messages).toEqual([
      { role: 'user', content: 'echo ping' },
      {
        role: 'assistant',
        content: 'Echoing.',
        tool_calls: [{ id: 'call_echo_7', type: 'function', function: { name: 'echo', arguments: '{"text":"ping"}' } }],
      },
      { role: 'tool', tool_call_id: 'call_echo_7', content: 'ping' },
    ]);
    expect(result.usage).toEqual({ inputTokens: 72 + 44, outputTokens: 18, cacheReadTokens: 384, cacheWriteTokens: 0 });
    expect(result.report.steps.map((s) => [s.model, s.stopReason])).toEqual([
      ['gpt-tools-2026', 'tool_use'],
      ['gpt-tools-2026', 'end_turn'],
    ]);
  });

  it('openai (Responses API, the package default): a tool cycle; the call and its output sent back as input items', async () => {
    const run = await h.client.start('pkg_openai_responses', { input: 'echo ping', workflowId: testId('pkg-responses') });
    const result = await resultWithin(run);
    expect(result.status).toBe('success');
    expect(result.finalText).toBe('The echo said ping.');
    expect(toolResults(result)).toEqual([
      { type: 'tool_result', toolUseId: 'call_resp_1', output: { type: 'text', text: 'ping' }, isError: false },
    ]);
    const sent = server.requestsFor('gpt-responses');
    expect(sent.map((r) => r.path)).toEqual(['/v1/responses', '/v1/responses']);
    expect(sent[1]!.body.input).toEqual([
      { role: 'user', content: [{ type: 'input_text', text: 'echo ping' }] },
      { type: 'function_call', call_id: 'call_resp_1', name: 'echo', arguments: '{"text":"ping"}' },
      { type: 'function_call_output', call_id: 'call_resp_1', output: 'ping' },
    ]);
    expect(result.usage).toEqual({ inputTokens: 250 + 20, outputTokens: 21, cacheReadTokens: 300, cacheWriteTokens: 0 });
  });

  it('openai (chat): a connection cut mid-answer is retried; its text is not kept', async () => {
    const run = await h.client.start('pkg_openai_cut', { input: 'boiling point?', workflowId: testId('pkg-cut') });
    const result = await resultWithin(run);
    expect(result.status).toBe('success');
    expect(result.finalText).toBe(fullAnswer);
    expect(server.requestsFor('gpt-cut')).toHaveLength(2);
    const retrying = (await allEvents(run)).filter((e) => e.type === 'retrying');
    expect(retrying).toHaveLength(1);
    expect(retrying[0]).toMatchObject({ type: 'retrying', step: 1, attempt: 1 });
    expect(result.report.steps.map((s) => s.attempts)).toEqual([2]);
  });
});
