/**
 * Live streaming through Temporal alone, on the real dev server: deltas carried by the model call's
 * heartbeat details (no history events), merged with durable events in `run.stream()`, retry-aware text.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { AgentClient, AgentRun, TemporalDeltaFeed } from '../../src/client';
import type { TextChunk } from '../../src/core/events/stream';
import type { StreamEvent } from '../../src/client/live';
import { TextAccumulator } from '../../src/client/live';
import { ScriptedAgents } from '../helpers/agents';
import { collect, expectSlowReaderNotInTheWay, expectVoidedFirstAttempt } from '../helpers/stream';
import type { Harness } from '../helpers/harness';
import { startHarness, testId } from '../helpers/harness';
import { echo } from '../helpers/tools';

const ANSWER = 'The answer is forty-two: computed slowly, streamed in pieces, and checked against the transcript.';
const S = new ScriptedAgents();
S.add('streamer', [{ text: ANSWER, stream: { chunks: 24, intervalMs: 60 } }], { tools: [] });
S.add('streamer_quiet', [{ text: ANSWER }], { tools: [] });
S.add(
  'flaky_streamer',
  [
    {
      text: ANSWER,
      stream: { chunks: 12, intervalMs: 60 },
      failures: [{ message: 'connection reset mid-answer', retryable: true, afterStreaming: true }],
    },
  ],
  { tools: [] },
);
S.add(
  'tool_streamer',
  [
    {
      text: 'Let me echo.',
      toolCalls: [{ name: 'echo', args: { text: 'streamed arguments, piece by piece' } }],
      stream: { chunks: 8, intervalMs: 50 },
    },
    { text: 'done' },
  ],
  { tools: [echo] },
);

// Ten steps, each streaming its text, in a run that continues as new every few steps.
S.add(
  'long_streamer',
  (_request, ctx) =>
    ctx.step <= 10
      ? {
          text: `Step ${ctx.step}: echoing.`,
          toolCalls: [{ name: 'echo', args: { text: `n${ctx.step}` } }],
          stream: { chunks: 4, intervalMs: 40 },
        }
      : { text: 'All ten echoed.', stream: { chunks: 4, intervalMs: 40 } },
  { tools: [echo], maxSteps: 20, continueAsNewAfterEvents: 50 },
);

// Three steps calling a tool, then the answer, each streaming: many durable events for a slow reader to read.
S.add(
  'slow_read_streamer',
  (_request, ctx) =>
    ctx.step <= 3
      ? {
          text: `Step ${ctx.step}: echoing.`,
          toolCalls: [{ name: 'echo', args: { text: `n${ctx.step}` } }],
          stream: { chunks: 6, intervalMs: 40 },
        }
      : { text: ANSWER, stream: { chunks: 12, intervalMs: 40 } },
  { tools: [echo], maxSteps: 10 },
);

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ agents: S.agents, providers: { scripted: S.provider } });
});
afterAll(async () => {
  await h?.stop();
});

async function historyLength(workflowId: string): Promise<number> {
  return (await h.temporal.workflow.getHandle(workflowId).fetchHistory()).events?.length ?? 0;
}

describe('streaming through Temporal', () => {
  it('delivers text deltas live, before the step ends, adding up to the answer; durable events exactly once', async () => {
    const run = await h.client.start('streamer', { input: 'compute', workflowId: testId('stream') });
    const events: StreamEvent[] = [];
    for await (const e of run.stream()) events.push(e);
    const deltas = events.filter((e) => e.type === 'delta');
    expect(deltas.length).toBeGreaterThan(5);
    const finished = events.findIndex((e) => e.type === 'step_finished');
    expect(events.findIndex((e) => e.type === 'delta')).toBeLessThan(finished);
    // In order, none twice; all of it when the reader keeps up (gaps would show in the numbers).
    const numbers = deltas.map((d) => (d.type === 'delta' ? d.n : -1));
    expect(numbers).toEqual([...numbers].sort((a, b) => a - b));
    expect(new Set(numbers).size).toBe(numbers.length);
    const durable = events.filter((e) => 'seq' in e);
    expect(durable.map((e) => ('seq' in e ? e.seq : -1))).toEqual(durable.map((_, i) => i));
    expect(events.at(-1)).toMatchObject({ type: 'done', status: 'success' });
    const result = await run.result();
    expect(result.finalText).toBe(ANSWER);
    if (numbers.length === 24)
      expect(deltas.map((d) => (d.type === 'delta' && d.delta.type === 'text' ? d.delta.text : '')).join('')).toBe(ANSWER);
  });

  it('adds no history events for deltas: a streaming run has the history of the same run without streaming', async () => {
    const streaming = await h.client.start('streamer', { input: 'compute', workflowId: testId('hist-stream') });
    await streaming.result();
    const quiet = await h.client.start('streamer_quiet', { input: 'compute', workflowId: testId('hist-quiet') });
    await quiet.result();
    expect(await historyLength(streaming.workflowId)).toBe(await historyLength(quiet.workflowId));
  });

  it('voids an attempt that fails after streaming part of its answer: the text shown equals the transcript', async () => {
    const run = await h.client.start('flaky_streamer', { input: 'compute', workflowId: testId('flaky') });
    const chunks: TextChunk[] = [];
    const events: StreamEvent[] = [];
    const text = (async () => {
      for await (const c of run.textStream()) chunks.push(c);
    })();
    for await (const e of run.stream()) events.push(e);
    await text;
    const result = await run.result();
    expect(result.status).toBe('success');
    expectVoidedFirstAttempt(events, chunks, result);
    expect(result.finalText).toBe(ANSWER);
  });

  it("a reader attaching after the end gets every durable event, each step's text whole", async () => {
    const run = await h.client.start('streamer', { input: 'compute', workflowId: testId('late') });
    await run.result();
    const chunks: TextChunk[] = [];
    for await (const c of h.client.get(run.workflowId).textStream()) chunks.push(c);
    expect(chunks).toEqual([{ type: 'text', step: 1, text: ANSWER }]);
    const fromCursor: StreamEvent[] = [];
    for await (const e of h.client.get(run.workflowId).stream({ after: 2 })) fromCursor.push(e);
    expect(fromCursor[0]).toMatchObject({ seq: 2 });
  });

  it('streams tool-call arguments as partial JSON', async () => {
    const run = await h.client.start('tool_streamer', { input: 'echo', workflowId: testId('args') });
    const pieces: string[] = [];
    let args: unknown;
    for await (const e of run.stream()) {
      if (e.type === 'delta' && e.delta.type === 'tool_args') pieces.push(e.delta.json);
      if (e.type === 'tool_call') args = e.args;
    }
    // Live pieces in order (the last ones may come too late to be shown: the durable tool_call has them all).
    expect(pieces.length).toBeGreaterThan(1);
    expect(JSON.stringify(args).startsWith(pieces.join(''))).toBe(true);
    expect(args).toEqual({ text: 'streamed arguments, piece by piece' });
  });

  it('ends promptly when the reader aborts, while the run goes on', async () => {
    const run = await h.client.start('streamer', { input: 'compute', workflowId: testId('abort') });
    const stop = new AbortController();
    const seen: StreamEvent[] = [];
    const reading = (async () => {
      for await (const e of run.stream({ signal: stop.signal })) seen.push(e);
    })();
    while (!seen.some((e) => e.type === 'delta')) await new Promise((r) => setTimeout(r, 20));
    const t = Date.now();
    stop.abort();
    await reading;
    expect(Date.now() - t).toBeLessThan(1000);
    expect((await run.result()).status).toBe('success');
  });

  it('a slow reader (300 ms an event) does not slow the run, and still gets every durable event once and the final text', async () => {
    const run = await h.client.start('slow_read_streamer', { input: 'echo three times', workflowId: testId('slow-reader') });
    await expectSlowReaderNotInTheWay(run);
    expect((await run.result()).finalText).toBe(ANSWER);
  });

  it("streams across continue-as-new: every durable event once, every step's text shown", async () => {
    const run = await h.client.start('long_streamer', { input: 'echo ten times', workflowId: testId('stream-can') });
    const events: StreamEvent[] = [];
    const text = new TextAccumulator();
    for await (const e of run.stream()) {
      events.push(e);
      text.push(e);
    }
    const result = await run.result();
    expect(result.status).toBe('success');
    const durable = events.filter((e) => 'seq' in e);
    expect(durable.map((e) => ('seq' in e ? e.seq : -1))).toEqual(durable.map((_, i) => i));
    expect(events.filter((e) => e.type === 'continued_as_new').length).toBeGreaterThanOrEqual(2);
    expect(events.filter((e) => e.type === 'delta').length).toBeGreaterThan(10);
    for (let step = 1; step <= 10; step++) expect(text.textOf(step)).toBe(`Step ${step}: echoing.`);
    expect(text.textOf(11)).toBe('All ten echoed.');
  });

  it('readers of one run in a process share one poller of its durable events: each gets them all, the server is asked as for one', async () => {
    const reads = vi.spyOn(AgentRun.prototype, 'readEvents');
    try {
      const shared = await h.client.start('long_streamer', { input: 'echo ten times', workflowId: testId('hub') });
      const lone = await h.client.start('long_streamer', { input: 'echo ten times', workflowId: testId('hub-lone') });
      const [readers, alone] = await Promise.all([
        Promise.all(Array.from({ length: 20 }, () => collect(h.client.get(shared.workflowId).stream({ deltas: false })))),
        // A client of its own: its one reader polls by itself.
        collect(new AgentClient(h.temporal, h.taskQueue).get(lone.workflowId).stream({ deltas: false })),
      ]);
      const seqs = (events: StreamEvent[]) => events.flatMap((e) => ('seq' in e ? [e.seq] : []));
      const first = seqs(readers[0]!);
      expect(first).toEqual(first.map((_, i) => i));
      expect(readers[0]!.at(-1)).toMatchObject({ type: 'done', status: 'success' });
      for (const r of readers) expect(seqs(r)).toEqual(first);
      expect(seqs(alone)).toHaveLength(first.length);
      const readsOf = (workflowId: string) => reads.mock.contexts.filter((c) => (c as AgentRun).workflowId === workflowId).length;
      // Twenty readers cost about what one costs (measured: 50 reads against 52; 186 without sharing).
      expect(readsOf(shared.workflowId)).toBeLessThan(2 * readsOf(lone.workflowId));
    } finally {
      reads.mockRestore();
    }
  });

  it("readers of one run on one client share its describe polls for deltas, and each gets the run's deltas", async () => {
    const reads = vi.spyOn(TemporalDeltaFeed.prototype, 'read');
    try {
      const shared = await h.client.start('streamer', { input: 'compute', workflowId: testId('feed-shared') });
      const lone = await h.client.start('streamer', { input: 'compute', workflowId: testId('feed-lone') });
      const [readers] = await Promise.all([
        Promise.all(Array.from({ length: 10 }, () => collect(h.client.get(shared.workflowId).stream()))),
        collect(new AgentClient(h.temporal, h.taskQueue).get(lone.workflowId).stream()),
      ]);
      for (const r of readers) {
        const numbers = r.flatMap((e) => (e.type === 'delta' ? [e.n] : []));
        expect(numbers.length).toBeGreaterThan(5);
        expect(numbers).toEqual([...numbers].sort((a, b) => a - b));
      }
      const readsOf = (workflowId: string) => reads.mock.calls.filter(([id]) => id === workflowId).length;
      expect(readsOf(shared.workflowId)).toBeLessThan(2 * readsOf(lone.workflowId));
    } finally {
      reads.mockRestore();
    }
  });
});
