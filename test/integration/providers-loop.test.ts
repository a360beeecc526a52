/**
 * The real providers in the full agent loop on the real dev server, against a local replay server that
 * speaks the Anthropic Messages and OpenAI Chat Completions protocols: tool cycles on each provider,
 * Retry-After honoured by the workflow's durable timer, final errors with the API's message, a
 * mid-stream overload retried with a clean transcript, fallback to the next model, cancellation
 * closing the HTTP stream, and no key or endpoint anywhere in history.
 */
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { AgentRun } from '../../src/client';
import { loadTranscript } from '../../src/client/transcript';
import type { RetryOptions } from '../../src/agents/define';
import { defineAgent, defineTool } from '../../src/agents/define';
import type { AgentEvent } from '../../src/core/events/events';
import type { Message, ToolResultBlock, ToolUseBlock } from '../../src/core/messages/messages';
import { AnthropicProvider } from '../../src/integrations/providers/anthropic';
import { OpenAIProvider } from '../../src/integrations/providers/openai';
import { ScriptedProvider } from '../../src/integrations/providers/scripted';
import { FileBlobStore } from '../../src/integrations/store/blob-store';
import type { Harness } from '../helpers/harness';
import { startHarness, testId } from '../helpers/harness';
import { historyText } from '../helpers/history';
import { echo } from '../helpers/tools';
import { waitFor } from '../providers/context';
import type { RecordedRequest, Reply } from '../providers/replay-server';
import { ReplayServer } from '../providers/replay-server';
import type { StreamUsage } from '../providers/sse';
import { anthropicErrorBody, anthropicMessage, fixture, openaiCompletion, openaiErrorBody } from '../providers/sse';

const ANTHROPIC_KEY = 'test-key-anthropic-loop-7c41d9';
const OPENAI_KEY = 'test-key-openai-loop-52be0a';
const SIGNATURE = 'c2lnbmF0dXJlLW9mLXRoZS1sb29wLXRoaW5raW5nLWJsb2Nr+/=';
const fast: RetryOptions = { maximumAttempts: 4, initialInterval: '50ms', maximumInterval: '200ms' };

/** Deletes records: all of them when no filter is given, so it must never run on arguments the model did not send. */
let purges = 0;
const purge = defineTool({
  name: 'purge',
  description: 'Delete records; every record unless a filter is given',
  input: z.object({ filter: z.object({ olderThanDays: z.number() }).optional() }),
  execute: ({ filter }) => {
    purges++;
    return filter ? `purged records older than ${filter.olderThanDays} days` : 'purged every record';
  },
});

/** Charges an amount; records every execution with its call id and idempotency key. */
const charges: Array<{ callId: string; key: string; amount: number }> = [];
const charge = defineTool({
  name: 'charge',
  description: 'Charge an amount',
  input: z.object({ amount: z.number() }),
  execute: ({ amount }, ctx) => {
    charges.push({ callId: ctx.callId, key: ctx.idempotencyKey, amount });
    return `charged ${amount}`;
  },
});

/** Model calls the scripted `huge` model answered. */
let hugeCalls = 0;
const HUGE_TEXT = 'h'.repeat(3 * 1024 * 1024);

const agents = [
  defineAgent({ name: 'gpt_purge', model: { provider: 'openai', model: 'gpt-purge' }, tools: [purge], modelRetry: fast }),
  defineAgent({ name: 'claude_purge', model: { provider: 'anthropic', model: 'claude-purge' }, tools: [purge], modelRetry: fast }),
  defineAgent({ name: 'gpt_ids', model: { provider: 'openai', model: 'gpt-ids' }, tools: [charge], modelRetry: fast }),
  defineAgent({ name: 'huge', model: { provider: 'scripted', model: 'huge' }, modelRetry: fast }),
  defineAgent({ name: 'gpt_json200', model: { provider: 'openai', model: 'gpt-json200' }, modelRetry: fast }),
  defineAgent({
    name: 'claude_loop',
    model: { provider: 'anthropic', model: 'claude-loop', maxTokens: 4096, thinking: { budgetTokens: 2048 } },
    system: 'You echo things.',
    tools: [echo],
    modelRetry: fast,
  }),
  defineAgent({ name: 'gpt_loop', model: { provider: 'openai', model: 'gpt-loop' }, tools: [echo], modelRetry: fast }),
  defineAgent({
    name: 'rate_limited',
    model: { provider: 'anthropic', model: 'claude-429' },
    modelRetry: { ...fast, maximumInterval: '5s' },
  }),
  defineAgent({ name: 'bad_key', model: { provider: 'anthropic', model: 'claude-401' }, modelRetry: fast }),
  defineAgent({ name: 'too_long', model: { provider: 'anthropic', model: 'claude-400' }, modelRetry: fast }),
  defineAgent({ name: 'gpt_bad_key', model: { provider: 'openai', model: 'gpt-401' }, modelRetry: fast }),
  defineAgent({ name: 'midstream', model: { provider: 'anthropic', model: 'claude-midstream' }, modelRetry: fast }),
  defineAgent({
    name: 'fallback',
    model: { provider: 'anthropic', model: 'claude-down' },
    fallbackModels: [{ provider: 'openai', model: 'gpt-backup' }],
    modelRetry: fast,
  }),
  defineAgent({ name: 'slow', model: { provider: 'anthropic', model: 'claude-slow' }, modelRetry: fast, modelHeartbeatTimeout: '2s' }),
];

/** Assistant messages in a request: the turn the model is asked for (0 for the first call). */
const turnOf = (req: RecordedRequest): number =>
  (req.body.messages ?? []).filter((m) => (m as { role?: string }).role === 'assistant').length;
/** 1-based attempt of this request for its model. */
const attemptOf = (req: RecordedRequest): number => server.requestsFor(req.body.model ?? '').length;

const text = (model: string, t: string, usage: StreamUsage = { input: 20, output: 5 }): Reply => ({
  sse: anthropicMessage({ model, blocks: [{ type: 'text', text: t }], stopReason: 'end_turn', usage }),
});
const SLOW_FRAMES = anthropicMessage({
  model: 'claude-slow',
  blocks: [{ type: 'text', text: 'z'.repeat(600) }],
  stopReason: 'end_turn',
  usage: { input: 5, output: 150 },
  chunk: 4,
});

/** Arguments cut short by a server: not valid JSON. */
const BROKEN_ARGS = '{"filter": {"olderThanDays": 3';

function route(req: RecordedRequest): Reply | undefined {
  const model = req.body.model ?? '';
  switch (model) {
    case 'gpt-purge':
      return {
        sse:
          turnOf(req) === 0
            ? openaiCompletion({
                model,
                calls: [
                  { id: 'call_purge_broken', name: 'purge', args: null, rawArgs: BROKEN_ARGS },
                  { id: 'call_purge_array', name: 'purge', args: [{ olderThanDays: 3 }] },
                ],
                finish: 'tool_calls',
                usage: { prompt: 50, completion: 20 },
              })
            : openaiCompletion({ model, text: 'Nothing was purged.', finish: 'stop', usage: { prompt: 90, completion: 5 } }),
      };
    case 'claude-purge':
      return turnOf(req) === 0
        ? {
            sse: anthropicMessage({
              model,
              blocks: [{ type: 'tool_use', id: 'toolu_purge_broken', name: 'purge', input: {}, json: BROKEN_ARGS }],
              stopReason: 'tool_use',
              usage: { input: 50, output: 20 },
            }),
          }
        : text(model, 'Nothing was purged.');
    case 'gpt-ids': {
      const turn = turnOf(req);
      const calls =
        turn === 0
          ? [
              { id: '', name: 'charge', args: { amount: 1 } },
              { id: '', name: 'charge', args: { amount: 2 } },
            ]
          : turn === 1
            ? [
                { id: 'call_0', name: 'charge', args: { amount: 3 } },
                { id: 'call_0', name: 'charge', args: { amount: 4 } },
              ]
            : turn === 2
              ? [{ id: '', name: 'charge', args: { amount: 5 } }]
              : [];
      return {
        sse: calls.length
          ? openaiCompletion({ model, calls, finish: 'tool_calls', usage: { prompt: 40, completion: 10 } })
          : openaiCompletion({ model, text: 'Charged five times.', finish: 'stop', usage: { prompt: 80, completion: 5 } }),
      };
    }
    case 'gpt-json200':
      // A gateway that does not stream: HTTP 200 with a JSON body.
      return { status: 200, json: { error: { message: 'streaming is not enabled for this key', type: 'gateway_error' } } };
    case 'claude-loop':
      return turnOf(req) === 0
        ? {
            sse: anthropicMessage({
              model,
              blocks: [
                { type: 'thinking', thinking: 'The user wants an echo of ping.', signature: SIGNATURE },
                { type: 'text', text: 'Echoing.' },
                { type: 'tool_use', id: 'toolu_loop_1', name: 'echo', input: { text: 'ping' } },
              ],
              stopReason: 'tool_use',
              usage: { input: 300, output: 40, cacheWrite: 280 },
            }),
          }
        : text(model, 'The echo said ping.', { input: 20, output: 10, cacheRead: 280, cacheWrite: 60 });
    case 'gpt-loop':
      return {
        sse:
          turnOf(req) === 0
            ? openaiCompletion({
                model,
                calls: [
                  { id: 'call_loop_a', name: 'echo', args: { text: 'alpha' } },
                  { id: 'call_loop_b', name: 'echo', args: { text: 'beta' } },
                ],
                style: 'whole',
                finish: 'tool_calls',
                usage: { prompt: 200, completion: 30 },
              })
            : openaiCompletion({
                model,
                text: 'Echoed alpha and beta.',
                finish: 'stop',
                usage: { prompt: 260, completion: 8, cached: 192 },
              }),
      };
    case 'claude-429':
      return attemptOf(req) === 1
        ? {
            status: 429,
            json: anthropicErrorBody('rate_limit_error', 'Number of request tokens has exceeded your per-minute rate limit'),
            headers: { 'retry-after': '1' },
          }
        : text(model, 'Done after waiting.');
    case 'claude-401':
      return { status: 401, json: anthropicErrorBody('authentication_error', 'invalid x-api-key') };
    case 'claude-400':
      return { status: 400, json: anthropicErrorBody('invalid_request_error', 'prompt is too long: 215013 tokens > 200000 maximum') };
    case 'gpt-401':
      return {
        status: 401,
        json: openaiErrorBody(
          'Incorrect API key provided: sk-proj-****0a0a. You can find your API key at the dashboard.',
          'invalid_request_error',
          'invalid_api_key',
        ),
      };
    case 'claude-midstream':
      return attemptOf(req) === 1
        ? { sse: fixture('anthropic/overloaded_midstream.sse') }
        : text(model, 'Clean answer.', { input: 40, output: 5 });
    case 'claude-down':
      return { status: 529, json: anthropicErrorBody('overloaded_error', 'Overloaded') };
    case 'gpt-backup':
      return { sse: openaiCompletion({ model, text: 'Answered by the backup.', finish: 'stop', usage: { prompt: 12, completion: 6 } }) };
    case 'claude-slow':
      return { sse: SLOW_FRAMES, frameDelayMs: 100 };
    default:
      return undefined;
  }
}

let server: ReplayServer;
let h: Harness;
const runs: AgentRun[] = [];

beforeAll(async () => {
  server = await ReplayServer.start(route);
  h = await startHarness({
    agents,
    providers: {
      anthropic: new AnthropicProvider({ apiKey: ANTHROPIC_KEY, baseURL: server.origin }),
      openai: new OpenAIProvider({ apiKey: OPENAI_KEY, baseURL: `${server.origin}/v1` }),
      scripted: new ScriptedProvider({
        huge: () => {
          hugeCalls++;
          return { text: HUGE_TEXT };
        },
      }),
    },
    // The test models get a price of their own (merged over the built-in table); gpt-loop has none.
    prices: { 'claude-loop': { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 } },
  });
});
afterAll(async () => {
  await h?.stop();
  await server?.close();
});

async function start(agent: string, input = 'go'): Promise<AgentRun> {
  const r = await h.client.start(agent, { input, workflowId: testId(agent) });
  runs.push(r);
  return r;
}

async function run(agent: string, input = 'go') {
  const r = await start(agent, input);
  return { run: r, result: await r.result() };
}

async function allEvents(r: AgentRun): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  for await (const e of r.events()) events.push(e);
  return events;
}

const toolResults = (messages: Message[]): ToolResultBlock[] =>
  messages.flatMap((m) => m.content.filter((b): b is ToolResultBlock => b.type === 'tool_result'));

interface HistoryEvent {
  eventId: string;
  eventTime: string;
  eventType: string;
  activityTaskScheduledEventAttributes?: { activityType?: { name?: string } };
  timerStartedEventAttributes?: { startToFireTimeout?: string };
  [key: string]: unknown;
}

/** A run's history as proto JSON events. */
async function historyEvents(r: AgentRun): Promise<HistoryEvent[]> {
  return (JSON.parse(historyToJSON(await r.handle.fetchHistory())) as { events: HistoryEvent[] }).events;
}

/** Every string in a run's history, payload data decoded from base64, so a scan sees what was recorded. */

describe('real providers in the agent loop (local replay server, real dev server)', () => {
  it('runs a tool cycle on Anthropic: thinking signature sent back unchanged, cache breakpoints, usage summed', async () => {
    const { result } = await run('claude_loop', 'echo ping please');
    expect(result.status).toBe('success');
    expect(result.finalText).toBe('The echo said ping.');
    expect(result.steps).toBe(2);
    expect(toolResults(result.messages)).toEqual([
      { type: 'tool_result', toolUseId: 'toolu_loop_1', output: { type: 'text', text: 'ping' }, isError: false },
    ]);
    expect(result.messages[1]!.content[0]).toEqual({ type: 'thinking', thinking: 'The user wants an echo of ping.', signature: SIGNATURE });
    expect(result.report.steps.map((s) => [s.provider, s.model, s.stopReason, s.attempts])).toEqual([
      ['anthropic', 'claude-loop', 'tool_use', 1],
      ['anthropic', 'claude-loop', 'end_turn', 1],
    ]);
    expect(result.usage).toEqual({ inputTokens: 320, outputTokens: 50, cacheReadTokens: 280, cacheWriteTokens: 340 });
    // Cost per step from the worker's price table, summed for the run.
    const price = (u: { inputTokens: number; outputTokens: number; cacheReadTokens: number; cacheWriteTokens: number }) =>
      (u.inputTokens * 3 + u.outputTokens * 15 + u.cacheReadTokens * 0.3 + u.cacheWriteTokens * 3.75) / 1e6;
    for (const s of result.report.steps) expect(s.costUsd).toBeCloseTo(price(s.usage), 12);
    expect(result.costUsd).toBeCloseTo(price(result.usage), 8);
    expect(result.report).toMatchObject({ unpricedSteps: 0 });
    expect(result.costUsd).toBeGreaterThan(0);

    const [first, second] = server.requestsFor('claude-loop');
    expect(first!.headers.authorization).toBe(`Bearer ${ANTHROPIC_KEY}`);
    expect(second!.body).toMatchObject({
      system: [{ type: 'text', text: 'You echo things.', cache_control: { type: 'ephemeral' } }],
      tools: [{ name: 'echo', cache_control: { type: 'ephemeral' } }],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'echo ping please', cache_control: { type: 'ephemeral' } }] },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'The user wants an echo of ping.', signature: SIGNATURE },
            { type: 'text', text: 'Echoing.' },
            { type: 'tool_use', id: 'toolu_loop_1', name: 'echo', input: { text: 'ping' } },
          ],
        },
        {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              tool_use_id: 'toolu_loop_1',
              content: [{ type: 'text', text: 'ping' }],
              cache_control: { type: 'ephemeral' },
            },
          ],
        },
      ],
    });
  });

  it('runs parallel tool calls on an OpenAI-compatible server (Ollama-style whole calls), results in call order', async () => {
    const { result } = await run('gpt_loop');
    expect(result.status).toBe('success');
    expect(result.finalText).toBe('Echoed alpha and beta.');
    expect(toolResults(result.messages).map((b) => [b.toolUseId, b.output])).toEqual([
      ['call_loop_a', { type: 'text', text: 'alpha' }],
      ['call_loop_b', { type: 'text', text: 'beta' }],
    ]);
    expect(result.usage).toEqual({ inputTokens: 268, outputTokens: 38, cacheReadTokens: 192, cacheWriteTokens: 0 });
    // No price for this model: the report says so instead of claiming it was free.
    expect(result.report.steps.every((s) => s.costUsd === undefined)).toBe(true);
    expect(result.report).toMatchObject({ costUsd: null, unpricedSteps: 2 });
    expect(result.costUsd).toBeNull();
    const second = server.requestsFor('gpt-loop')[1]!;
    expect(second.headers.authorization).toBe(`Bearer ${OPENAI_KEY}`);
    expect((second.body.messages as Array<{ role: string; tool_call_id?: string; content: unknown }>).slice(-2)).toEqual([
      { role: 'tool', tool_call_id: 'call_loop_a', content: 'alpha' },
      { role: 'tool', tool_call_id: 'call_loop_b', content: 'beta' },
    ]);
  });

  it("honours Retry-After: the workflow's timer waits that long before the next attempt", async () => {
    const { run: r, result } = await run('rate_limited');
    expect(result.status).toBe('success');
    expect(result.report.steps[0]!.attempts).toBe(2);
    const retrying = (await allEvents(r)).filter((e) => e.type === 'retrying');
    // The agent's own backoff would be 50 ms; the server asked for 1 s, within the agent's maximum interval (5 s).
    expect(retrying).toEqual([expect.objectContaining({ attempt: 1, errorType: 'rate_limit_error', delayMs: 1000 })]);

    const events = await historyEvents(r);
    const timer = events.find((e) => e.timerStartedEventAttributes);
    expect(timer?.timerStartedEventAttributes?.startToFireTimeout).toBe('1s');
    const failed = events.find((e) => e.eventType === 'EVENT_TYPE_ACTIVITY_TASK_FAILED');
    const scheduled = events.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'callModel');
    expect(scheduled).toHaveLength(2);
    const gap = Date.parse(scheduled[1]!.eventTime) - Date.parse(failed!.eventTime);
    expect(gap).toBeGreaterThanOrEqual(1000);
    const [a1, a2] = server.requestsFor('claude-429');
    expect(a2!.receivedAt - a1!.receivedAt).toBeGreaterThanOrEqual(1000);
  });

  it.each([
    ['bad_key', 'claude-401', 'Anthropic authentication_error (401): invalid x-api-key [request id', 'authentication_error'],
    [
      'too_long',
      'claude-400',
      'Anthropic invalid_request_error (400): prompt is too long: 215013 tokens > 200000 maximum',
      'invalid_request_error',
    ],
    ['gpt_bad_key', 'gpt-401', 'OpenAI invalid_api_key (401): Incorrect API key provided', 'invalid_api_key'],
  ])('ends %s with provider_error after one attempt, with the API message', async (agent, model, message, type) => {
    const { run: r, result } = await run(agent);
    expect(result.status).toBe('provider_error');
    expect(result.error?.message).toContain(message);
    expect(result.error?.type).toBe(type);
    expect(server.requestsFor(model)).toHaveLength(1);
    expect((await allEvents(r)).filter((e) => e.type === 'retrying')).toHaveLength(0);
  });

  it('retries an overload arriving mid-stream: no partial text in the transcript, usage counted once', async () => {
    const { run: r, result } = await run('midstream');
    expect(result.status).toBe('success');
    expect(result.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'go' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'Clean answer.' }] },
    ]);
    expect(result.usage).toEqual({ inputTokens: 40, outputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0 });
    expect(result.report.steps).toEqual([expect.objectContaining({ attempts: 2, usage: result.usage })]);
    const retrying = (await allEvents(r)).filter((e) => e.type === 'retrying');
    expect(retrying).toEqual([expect.objectContaining({ errorType: 'overloaded_error', error: 'Anthropic overloaded_error: Overloaded' })]);
    const stored = await loadTranscript(new FileBlobStore(h.storeDir), result);
    expect(JSON.stringify(stored)).not.toContain('must vanish');
    expect(await historyText(r.handle)).not.toContain('must vanish');
  });

  it('falls back to the next model after a retryable failure, and the report says which model answered', async () => {
    const { run: r, result } = await run('fallback');
    expect(result.status).toBe('success');
    expect(result.finalText).toBe('Answered by the backup.');
    expect(result.report.steps).toEqual([expect.objectContaining({ provider: 'openai', model: 'gpt-backup', attempts: 2 })]);
    const events = await allEvents(r);
    expect(events.filter((e) => e.type === 'step_started').map((e) => e.type === 'step_started' && `${e.provider}/${e.model}`)).toEqual([
      'anthropic/claude-down',
      'openai/gpt-backup',
    ]);
    expect(events.find((e) => e.type === 'retrying')).toMatchObject({ errorType: 'overloaded_error', nextModel: 'openai/gpt-backup' });
    expect(server.requestsFor('claude-down')).toHaveLength(1);
    expect(server.requestsFor('gpt-backup')).toHaveLength(1);
  });

  it('cancelling the run aborts the HTTP stream of the model call in flight', async () => {
    const r = await start('slow');
    const rec = await waitFor(() => server.requestsFor('claude-slow').find((q) => q.framesSent >= 3));
    await r.cancel();
    const result = await r.result();
    expect(result.status).toBe('cancelled');
    // The server saw the client close the connection while it still had most of the stream to send.
    await waitFor(() => rec.abortedAt);
    expect(rec.finishedAt).toBeUndefined();
    expect(rec.framesSent).toBeLessThan(rec.framesTotal);
    expect(server.requestsFor('claude-slow')).toHaveLength(1);
  });

  it('never runs a tool on OpenAI-compatible arguments that are not valid JSON or not an object: the model reads what it sent', async () => {
    const { run: r, result } = await run('gpt_purge');
    expect(result.status).toBe('success');
    expect(purges).toBe(0);
    // The transcript keeps the model's calls unaltered.
    const calls = [
      { type: 'tool_use', id: 'call_purge_broken', name: 'purge', input: BROKEN_ARGS, inputError: expect.stringContaining('JSON') },
      { type: 'tool_use', id: 'call_purge_array', name: 'purge', input: [{ olderThanDays: 3 }] },
    ];
    expect(result.messages[1]).toEqual({ role: 'assistant', content: calls });
    expect((await loadTranscript(new FileBlobStore(h.storeDir), result))[1]).toEqual({ role: 'assistant', content: calls });
    expect(toolResults(result.messages).map((b) => [b.toolUseId, b.isError])).toEqual([
      ['call_purge_broken', true],
      ['call_purge_array', true],
    ]);
    // The next request echoes the calls as sent and answers each with an error quoting it.
    const second = server.requestsFor('gpt-purge')[1]!;
    const sent = second.body.messages as Array<{
      role: string;
      tool_calls?: Array<{ function: { arguments: string } }>;
      tool_call_id?: string;
      content: string;
    }>;
    expect(sent[1]!.tool_calls!.map((c) => c.function.arguments)).toEqual([BROKEN_ARGS, '[{"olderThanDays":3}]']);
    const [broken, array] = sent.slice(2);
    expect(broken).toMatchObject({ role: 'tool', tool_call_id: 'call_purge_broken' });
    expect(broken!.content).toMatch(
      /^Error: The arguments of this call to "purge" were not valid JSON \(.+\)\. You sent: \{"filter": \{"olderThanDays": 3\nNothing was run\./,
    );
    expect(array).toMatchObject({ role: 'tool', tool_call_id: 'call_purge_array' });
    expect(array!.content).toContain('were not a JSON object but an array. You sent: [{"olderThanDays":3}]\nNothing was run.');
    // Events and the report say the same.
    const events = await allEvents(r);
    expect(events.find((e) => e.type === 'tool_call' && e.callId === 'call_purge_broken')).toMatchObject({
      args: BROKEN_ARGS,
      inputError: expect.any(String),
    });
    expect(result.report.toolCalls.map((c) => [c.callId, c.isError, c.attempts])).toEqual([
      ['call_purge_broken', true, 0],
      ['call_purge_array', true, 0],
    ]);
  });

  it('never runs a tool on Anthropic tool input that is not valid JSON: the model reads what it sent', async () => {
    const { result } = await run('claude_purge');
    expect(result.status).toBe('success');
    expect(purges).toBe(0);
    const call = {
      type: 'tool_use',
      id: 'toolu_purge_broken',
      name: 'purge',
      input: BROKEN_ARGS,
      inputError: expect.stringContaining('JSON'),
    };
    expect(result.messages[1]).toEqual({ role: 'assistant', content: [call] });
    const sent = server.requestsFor('claude-purge')[1]!.body.messages as Array<{ content: Array<Record<string, unknown>> }>;
    // The API takes only an object: the call goes back with {}, and its result quotes what was sent.
    expect(sent[1]!.content).toEqual([{ type: 'tool_use', id: 'toolu_purge_broken', name: 'purge', input: {} }]);
    const resultBlock = sent[2]!.content[0] as { type: string; tool_use_id: string; is_error: boolean; content: Array<{ text: string }> };
    expect(resultBlock).toMatchObject({ type: 'tool_result', tool_use_id: 'toolu_purge_broken', is_error: true });
    expect(resultBlock.content[0]!.text).toContain(`You sent: ${BROKEN_ARGS}\nNothing was run.`);
  });

  it('gives every tool call an id unique in the run when a server omits ids or repeats one: each call runs once, with its own result', async () => {
    const { result } = await run('gpt_ids');
    expect(result.status).toBe('success');
    const uses = result.messages.flatMap((m) => m.content.filter((b): b is ToolUseBlock => b.type === 'tool_use'));
    const ids = uses.map((u) => u.id);
    expect(ids).toEqual(['da_1_0', 'da_1_1', 'call_0', 'da_2_1', 'da_3_0']);
    expect(uses.map((u) => u.input)).toEqual([1, 2, 3, 4, 5].map((amount) => ({ amount })));
    // One execution per call, each with its own id and idempotency key.
    const mine = charges.filter((c) => ids.includes(c.callId));
    expect(mine.map((c) => [c.callId, c.amount])).toEqual(ids.map((id, i) => [id, i + 1]));
    expect(new Set(mine.map((c) => c.key)).size).toBe(5);
    // Each call's result is its own.
    expect(toolResults(result.messages).map((b) => [b.toolUseId, b.output])).toEqual(
      ids.map((id, i) => [id, { type: 'text', text: `charged ${i + 1}` }]),
    );
    const last = server.requestsFor('gpt-ids').at(-1)!.body.messages as Array<{ role: string; tool_call_id?: string; content: string }>;
    expect(last.filter((m) => m.role === 'tool').map((m) => [m.tool_call_id, m.content])).toEqual(
      ids.map((id, i) => [id, `charged ${i + 1}`]),
    );
  });

  it('ends a run whose model answer is too large for history after one model call, saying what was too large', async () => {
    const { run: r, result } = await run('huge');
    expect(result.status).toBe('provider_error');
    expect(result.error?.type).toBe('ModelOutputTooLarge');
    expect(result.error?.message).toMatch(
      /^The model's answer is too large to record in workflow history: \d+ bytes of JSON \(3145728 characters of text, 0 tool calls\), over the limit of 1572864 bytes/,
    );
    expect(hugeCalls).toBe(1);
    expect((await allEvents(r)).filter((e) => e.type === 'retrying')).toHaveLength(0);
  });

  it('ends a run whose server answered HTTP 200 with JSON instead of a stream, after one call, saying what came back', async () => {
    const { run: r, result } = await run('gpt_json200');
    expect(result.status).toBe('provider_error');
    expect(result.error?.type).toBe('not_event_stream');
    expect(result.error?.message).toBe(
      'OpenAI answered HTTP 200 without streaming: expected a server-sent event stream, received application/json: {"error":{"message":"streaming is not enabled for this key","type":"gateway_error"}}',
    );
    expect(server.requestsFor('gpt-json200')).toHaveLength(1);
    expect((await allEvents(r)).filter((e) => e.type === 'retrying')).toHaveLength(0);
  });

  it('no API key or endpoint appears anywhere in the history of any run', async () => {
    expect(runs.length).toBeGreaterThanOrEqual(9);
    const port = new URL(server.origin).port;
    for (const r of runs) {
      const history = await historyText(r.handle);
      expect(history.length).toBeGreaterThan(0);
      for (const secret of [ANTHROPIC_KEY, OPENAI_KEY, server.origin, `127.0.0.1:${port}`]) {
        expect(history, `${r.workflowId} contains ${secret}`).not.toContain(secret);
      }
    }
    // The scan reads decoded payloads: it does find what a run recorded.
    const loop = runs.find((r) => r.workflowId.startsWith('claude_loop-'))!;
    expect(await historyText(loop.handle)).toContain('The echo said ping.');
  });
});
