/**
 * Streaming tool execution on the real dev server: a read-only call streamed before the model's text
 * starts while the text still streams, and its outcome is the one the model reads; a failed attempt's
 * early call is discarded and started again by the retry; a worker killed mid-answer loses nothing; calls
 * that may not start early do not; an agent that did not opt in sends no signal.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Client, Connection } from '@temporalio/client';
import { AgentClient } from '../../src/client';
import type { AgentRun } from '../../src/client';
import type { AgentEvent } from '../../src/core/events/events';
import { CUT, EARLY, EARLY_AGENTS, earlyProvider, FLAKY, KILLED, MIXED, PLAIN, reads, SLOW } from '../fixtures/early-starts';
import { allEvents, resultWithin, toolResults } from '../helpers/events';
import type { Harness } from '../helpers/harness';
import { startHarness, testId } from '../helpers/harness';
import { WorkerProcesses } from '../helpers/worker-process';

const TOOL_MS = 1000;
const TEXT_MS = 1500;
let h: Harness;

beforeAll(async () => {
  h = await startHarness({ agents: EARLY_AGENTS, providers: { scripted: earlyProvider(TOOL_MS, TEXT_MS) } });
}, 60_000);
afterAll(async () => h?.stop());

const at = (e: AgentEvent | undefined) => Date.parse(e!.at);
const of = <T extends AgentEvent['type']>(events: AgentEvent[], type: T) =>
  events.filter((e): e is Extract<AgentEvent, { type: T }> => e.type === type);

/** Wall time of step 1: from its first `step_started` to step 2's. */
function stepOneMs(events: AgentEvent[]): number {
  const starts = of(events, 'step_started');
  return at(starts.find((e) => e.step === 2)) - at(starts.find((e) => e.step === 1));
}

async function signals(run: AgentRun): Promise<number> {
  const history = await run.handle.fetchHistory();
  return (history.events ?? []).filter((e) => String(e.eventType).includes('SIGNALED') || e.workflowExecutionSignaledEventAttributes)
    .length;
}

describe('streaming tool execution', () => {
  it('a read-only call streamed first starts before the answer ends; the step takes ~max(text, tool), not the sum', async () => {
    // Baseline (not opted in, the default): no signal, no early event, the tool starts after the answer.
    const plain = await h.client.start(PLAIN.name as string, { input: 'read a', workflowId: testId('plain') });
    expect((await resultWithin(plain, 30_000)).status).toBe('success');
    const plainEvents = await allEvents(plain);
    expect(plainEvents.some((e) => e.type === 'early_tool_discarded' || (e.type === 'tool_started' && e.early))).toBe(false);
    expect(await signals(plain)).toBe(0);

    const run = await h.client.start(EARLY.name as string, { input: 'read a', workflowId: testId('early') });
    const result = await resultWithin(run, 30_000);
    expect(result.status).toBe('success');
    const events = await allEvents(run);
    const started = of(events, 'tool_started');
    expect(started).toHaveLength(1);
    expect(started[0]).toMatchObject({ step: 1, tool: 'read', early: true, attempt: 1 });
    // Started while the model streamed: before the answer's events (its text and tool_call).
    const answer = events.find((e) => e.type === 'tool_call')!;
    expect(started[0]!.seq).toBeLessThan(answer.seq);
    // One result, and the model read it.
    expect(of(events, 'tool_result')).toHaveLength(1);
    expect(toolResults(result).map((r) => r.output)).toEqual([{ type: 'text', text: expect.stringMatching(/^a read #\d+$/) }]);
    expect(await signals(run)).toBe(1);

    const withMs = stepOneMs(events);
    const withoutMs = stepOneMs(plainEvents);
    console.log(`step 1: ${withMs} ms with early starts, ${withoutMs} ms without (text ${TEXT_MS} ms, tool ${TOOL_MS} ms)`);
    expect(withoutMs).toBeGreaterThanOrEqual(TEXT_MS + TOOL_MS);
    // Overlapped: at least half the tool's time saved (the rest is scheduling on a shared machine).
    expect(withMs).toBeLessThan(withoutMs - TOOL_MS / 2);
  }, 60_000);

  it('an attempt that fails after an early start: its result is discarded, the retry starts the call again and the model reads that one', async () => {
    reads.delete('f');
    const run = await h.client.start(FLAKY.name as string, { input: 'read f', workflowId: testId('flaky') });
    const result = await resultWithin(run, 30_000);
    expect(result.status).toBe('success');
    const events = await allEvents(run);
    const started = of(events, 'tool_started');
    // Attempt 1 started it (and it finished, 50 ms, before the attempt failed); attempt 2 re-streamed it and started it again.
    expect(started.map((e) => [e.step, e.attempt, e.early])).toEqual([
      [1, 1, true],
      [1, 2, true],
    ]);
    expect(of(events, 'early_tool_discarded')).toEqual([expect.objectContaining({ step: 1, attempt: 1, callIds: [started[0]!.callId] })]);
    expect(of(events, 'retrying')).toHaveLength(1);
    // Two executions; the model read only the second (the first one's result never reached it).
    expect(reads.get('f')).toBe(2);
    expect(of(events, 'tool_result')).toHaveLength(1);
    expect(toolResults(result).map((r) => r.output)).toEqual([{ type: 'text', text: 'f read #2' }]);
  }, 60_000);

  it('an answer cut off at the output limit: its complete early call is discarded, the model gets the truncation result', async () => {
    const run = await h.client.start(CUT.name as string, { input: 'cut', workflowId: testId('cut') });
    const result = await resultWithin(run, 30_000);
    expect(result.status).toBe('max_tokens');
    const events = await allEvents(run);
    const started = of(events, 'tool_started');
    expect(started.map((e) => e.early)).toEqual([true]);
    expect(of(events, 'early_tool_discarded')).toEqual([expect.objectContaining({ step: 1, attempt: 1, callIds: [started[0]!.callId] })]);
    // The one result is the truncation's, not the tool's output.
    expect(toolResults(result).map((r) => r.output)).toEqual([{ type: 'text', text: expect.not.stringContaining('c read #') }]);
  }, 30_000);

  it('a run cancelled while an early call runs ends cancelled; the call is discarded', async () => {
    const run = await h.client.start(SLOW.name as string, { input: 'slow', workflowId: testId('slow') });
    for (const deadline = Date.now() + 20_000; ;) {
      if ((await run.snapshot()).runningTools.some((t) => t.tool === 'read')) break;
      if (Date.now() > deadline) throw new Error('the early call never ran');
      await new Promise((r) => setTimeout(r, 50));
    }
    await run.cancel();
    const result = await resultWithin(run, 30_000);
    expect(result.status).toBe('cancelled');
    const events = await allEvents(run);
    expect(of(events, 'tool_started').map((e) => e.early)).toEqual([true]);
    expect(of(events, 'early_tool_discarded')).toHaveLength(1);
    expect(of(events, 'tool_result')).toEqual([]);
  }, 30_000);

  it('calls that may not start early do not: a write, a read after a write in the same answer, a read needing approval', async () => {
    const run = await h.client.start(MIXED.name as string, { input: 'mixed', workflowId: testId('mixed') });
    // Step 2's guarded read waits for a person; approve it.
    for (const deadline = Date.now() + 20_000; ;) {
      const pending = await run.pendingApprovals();
      if (pending.length) {
        // A signal from no attempt in flight (stale, or forged by a client) starts nothing.
        await run.handle.signal('earlyToolCall', {
          step: 2,
          attempt: 1,
          index: 0,
          callId: 'forged',
          tool: 'read',
          args: { path: 'x', ms: 1 },
        });
        await run.decide({ callId: pending[0]!.callId, decision: 'approve', by: 'test' });
        break;
      }
      if (Date.now() > deadline) throw new Error('no approval requested');
      await new Promise((r) => setTimeout(r, 100));
    }
    const result = await resultWithin(run, 30_000);
    expect(result.status).toBe('success');
    const events = await allEvents(run);
    expect(of(events, 'tool_started').map((e) => [e.tool, e.early ?? false])).toEqual([
      ['write', false],
      ['read', false],
      ['guarded_read', false],
    ]);
    expect(of(events, 'early_tool_discarded')).toEqual([]);
    // The read after the write stopped the reporting: no signal but the forged one.
    expect(await signals(run)).toBe(1);
  }, 60_000);
});

describe('a worker killed between an early start and the end of the answer', () => {
  const work = mkdtempSync(join(tmpdir(), 'durable-agent-early-kill-'));
  const workers = new WorkerProcesses();
  let connection: Connection | undefined;
  afterAll(async () => {
    workers.killAll();
    await connection?.close();
    rmSync(work, { recursive: true, force: true });
  });

  async function startWorker(taskQueue: string): Promise<ChildProcess> {
    const w = await workers.start('early-worker.ts', {
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      EW_TASK_QUEUE: taskQueue,
      EW_WORKFLOW_BUNDLE: inject('workflowBundlePath'),
      EW_STORE_DIR: join(work, 'store'),
    });
    return w.proc;
  }

  it('the run finishes with exactly one tool result fed to the model, no step lost or repeated', { timeout: 120_000 }, async () => {
    connection = await Connection.connect({ address: inject('temporalAddress') });
    const taskQueue = `early-kill-${testId('q')}`;
    const client = new AgentClient(new Client({ connection }), taskQueue);
    const first = await startWorker(taskQueue);
    const run = await client.start(KILLED.name as string, { input: 'read k', workflowId: testId('early-kill') });
    // Kill once the early call started (the answer streams 1.5 s more).
    for (const deadline = Date.now() + 30_000; ;) {
      const events = await allEvents(run);
      if (events.some((e) => e.type === 'tool_started' && e.early)) break;
      if (Date.now() > deadline) throw new Error('the call never started early');
      await new Promise((r) => setTimeout(r, 50));
    }
    first.kill('SIGKILL');
    await new Promise((r) => first.once('exit', r));
    const second = await startWorker(taskQueue);
    try {
      const result = await resultWithin(run, 60_000);
      expect(result.status).toBe('success');
      const events = await allEvents(run);
      expect(of(events, 'tool_result')).toHaveLength(1);
      expect(toolResults(result)).toHaveLength(1);
      expect(result.report.steps.map((s) => s.step)).toEqual([1, 2]);
      expect(result.report.steps[0]!.workerLosses).toBeGreaterThanOrEqual(1);
      // The lost attempt's early call was discarded; the retry started it again.
      const started = of(events, 'tool_started');
      expect(started.length).toBeGreaterThanOrEqual(2);
      expect(started.every((e) => e.early)).toBe(true);
      expect(of(events, 'early_tool_discarded').map((e) => e.attempt)).toEqual(started.slice(0, -1).map((e) => e.attempt));
    } finally {
      second.kill('SIGTERM');
    }
  });
});
