/**
 * Kill -9 a worker process in the middle of a tool call, start a new worker process, and check the run
 * completes with every completed tool executed exactly once and the same transcript as a run that was
 * never interrupted. Workers are separate processes (test/fixtures/kill-worker.ts) on the shared
 * dev server and workflow bundle.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { Client, Connection } from '@temporalio/client';
import { AgentClient } from '../../src/client';
import type { AgentRunResult } from '../../src/core/run/result';
import type { StreamEvent } from '../../src/client/live';
import { TextAccumulator } from '../../src/client/live';
import type { TextChunk } from '../../src/core/events/stream';
import {
  APPROVAL_KILL_AGENT,
  ONCE_APPROVED_AGENT,
  ONCE_APPROVER,
  ONCE_KILL_AGENT,
  KILL_AGENT,
  KILL_CALL_ID,
  LONG_KILL_AGENT,
  LONG_KILL_STEPS,
  sideEffectFile,
  STREAM_KILL_AGENT,
  STREAM_KILL_ANSWER,
} from '../fixtures/kill-agent';
import { testId } from '../helpers/harness';
import type { WorkerProcess } from '../helpers/worker-process';
import { WorkerProcesses } from '../helpers/worker-process';

const work = mkdtempSync(join(tmpdir(), 'durable-agent-kill-'));
const effectsDir = join(work, 'effects');
mkdirSync(effectsDir);

const workers = new WorkerProcesses();

/** Start a worker process on `taskQueue`; resolves once it polls. */
function startWorker(taskQueue: string, storeDir: string): Promise<WorkerProcess> {
  return workers.start('kill-worker.ts', {
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    KILL_TASK_QUEUE: taskQueue,
    KILL_WORKFLOW_BUNDLE: inject('workflowBundlePath'),
    KILL_STORE_DIR: storeDir,
    KILL_EFFECTS_DIR: effectsDir,
  });
}

/** Stop a worker gracefully, or kill it if it does not exit in time. */
async function stopWorker(w: WorkerProcess): Promise<void> {
  if (w.proc.exitCode !== null || w.proc.signalCode !== null) return;
  w.proc.kill('SIGTERM');
  const timeout = new Promise<'timeout'>((res) => setTimeout(() => res('timeout'), 10_000).unref());
  if ((await Promise.race([w.exited, timeout])) === 'timeout') w.proc.kill('SIGKILL');
}

/** Lines of a run's side-effect file. */
function effects(workflowId: string): string[] {
  const file = sideEffectFile(effectsDir, workflowId);
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
}

/** How many `<kind> <callId>` lines each call has. */
function countBy(lines: readonly string[], kind: 'start' | 'done'): Map<string, number> {
  const counts = new Map<string, number>();
  for (const line of lines) {
    const [k, callId] = line.split(' ');
    if (k === kind && callId) counts.set(callId, (counts.get(callId) ?? 0) + 1);
  }
  return counts;
}

async function waitFor(condition: () => boolean, what: () => string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what()}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

let connection: Connection | undefined;

afterAll(async () => {
  // Never leave worker processes behind, whatever happened.
  workers.killAll();
  await connection?.close();
  rmSync(work, { recursive: true, force: true });
});

describe('worker killed mid-tool', () => {
  it(
    'resumes on a new worker process: completed tools run once, same transcript as an uninterrupted run',
    { timeout: 120_000 },
    async () => {
      connection = await Connection.connect({ address: inject('temporalAddress') });
      const temporal = new Client({ connection });
      const refQueue = testId('kill-ref');
      const killQueue = testId('kill');

      // An uninterrupted run on a worker process of its own, alongside the one that gets killed.
      const [refWorker, first] = await Promise.all([
        startWorker(refQueue, join(work, 'store-ref')),
        startWorker(killQueue, join(work, 'store-kill')),
      ]);
      const refRun = await new AgentClient(temporal, refQueue).start(KILL_AGENT, {
        input: 'write the notes',
        workflowId: testId('kill-ref'),
      });
      const killClient = new AgentClient(temporal, killQueue);
      const run = await killClient.start(KILL_AGENT, { input: 'write the notes', workflowId: testId('kill') });

      // Kill -9 while step 2's slow write is running: started, not done.
      await waitFor(
        () => countBy(effects(run.workflowId), 'start').has(KILL_CALL_ID),
        () => `${KILL_CALL_ID} to start; worker said:\n${first.output()}`,
      );
      first.proc.kill('SIGKILL');
      expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' });
      const atKill = effects(run.workflowId);
      expect(countBy(atKill, 'start').get(KILL_CALL_ID)).toBe(1);
      expect(countBy(atKill, 'done').has(KILL_CALL_ID)).toBe(false);
      // Step 1 finished on the first worker.
      expect([...countBy(atKill, 'done').keys()].sort()).toEqual(['call_1_0', 'call_1_1', 'call_1_2']);

      const second = await startWorker(killQueue, join(work, 'store-kill'));
      let result: AgentRunResult;
      let reference: AgentRunResult;
      try {
        [result, reference] = await Promise.all([run.result(), refRun.result()]);
      } catch (err) {
        throw new Error(
          `${String(err)}\n--- first worker ---\n${first.output()}\n--- second worker ---\n${second.output()}\n--- reference worker ---\n${refWorker.output()}`,
          { cause: err },
        );
      }
      await Promise.all([stopWorker(second), stopWorker(refWorker)]);

      expect(reference.status).toBe('success');
      expect(result.status).toBe('success');
      expect(result.steps).toBe(4);
      expect(result.finalText).toBe('All notes written.');
      // The same transcript as the run that was never interrupted.
      expect(result.messages).toEqual(reference.messages);
      const summary = (r: AgentRunResult) =>
        r.report.toolCalls.map((c) => ({ callId: c.callId, tool: c.tool, args: c.args, isError: c.isError }));
      expect(summary(result)).toEqual(summary(reference));

      // Every completed tool call executed exactly once; the one killed mid-call started twice and finished once.
      const callIds = result.report.toolCalls.map((c) => c.callId);
      expect(callIds).toHaveLength(9);
      const lines = effects(run.workflowId);
      const done = countBy(lines, 'done');
      const started = countBy(lines, 'start');
      expect([...done.keys()].sort()).toEqual([...callIds].sort());
      for (const id of callIds) {
        expect(done.get(id), `done ${id}`).toBe(1);
        expect(started.get(id), `start ${id}`).toBe(id === KILL_CALL_ID ? 2 : 1);
      }
      const killed = result.report.toolCalls.find((c) => c.callId === KILL_CALL_ID);
      // The lost attempt does not count against the retry policy; the report counts it apart.
      expect(killed?.attempts).toBe(1);
      expect(killed?.workerLosses).toBe(1);
      // The reference run executed everything once, on its first attempt.
      const refLines = effects(refRun.workflowId);
      for (const id of callIds) {
        expect(countBy(refLines, 'start').get(id)).toBe(1);
        expect(countBy(refLines, 'done').get(id)).toBe(1);
      }
    },
  );

  it(
    'worker killed after the run continued as new, mid-tool: the next worker goes on from the carried state, each write done once',
    { timeout: 120_000 },
    async () => {
      connection ??= await Connection.connect({ address: inject('temporalAddress') });
      const temporal = new Client({ connection });
      const queue = testId('kill-can');
      const store = join(work, 'store-can');
      const first = await startWorker(queue, store);
      const run = await new AgentClient(temporal, queue).start(LONG_KILL_AGENT, {
        input: 'write twelve notes',
        workflowId: testId('kill-can'),
      });
      const executions = async () => {
        let n = 0;
        for await (const _ of temporal.workflow.list({ query: `WorkflowId = '${run.workflowId}'` })) n++;
        return n;
      };
      // Kill -9 in the second execution or later, while a write is running (started, not done).
      let killedIn = 0;
      for (let i = 0; i < 600 && !killedIn; i++) {
        const lines = effects(run.workflowId);
        const open = [...countBy(lines, 'start').keys()].filter((id) => !countBy(lines, 'done').has(id));
        if (open.length && (await executions()) >= 2) killedIn = await executions();
        else await new Promise((r) => setTimeout(r, 50));
      }
      expect(killedIn, first.output()).toBeGreaterThanOrEqual(2);
      first.proc.kill('SIGKILL');
      expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' });

      const second = await startWorker(queue, store);
      const result = await run.result();
      await stopWorker(second);
      expect(result.status).toBe('success');
      expect(result.steps).toBe(LONG_KILL_STEPS + 1);
      expect(result.finalText).toBe(`Wrote ${LONG_KILL_STEPS} notes.`);
      expect(await executions()).toBeGreaterThanOrEqual(killedIn);
      // Every write finished exactly once; only the one cut by the kill started twice.
      const lines = effects(run.workflowId);
      const done = countBy(lines, 'done');
      expect(done.size).toBe(LONG_KILL_STEPS);
      for (const [id, n] of done) expect(n, `done ${id}`).toBe(1);
      expect([...countBy(lines, 'start').values()].filter((n) => n > 1).length).toBeLessThanOrEqual(1);
    },
  );

  it(
    'worker killed while a call waits for approval: the decision is applied by the next worker and the tool runs once',
    { timeout: 120_000 },
    async () => {
      connection ??= await Connection.connect({ address: inject('temporalAddress') });
      const temporal = new Client({ connection });
      const queue = testId('kill-approval');
      const store = join(work, 'store-approval');
      const first = await startWorker(queue, store);
      const run = await new AgentClient(temporal, queue).start(APPROVAL_KILL_AGENT, {
        input: 'write it once approved',
        workflowId: testId('kill-approval'),
      });
      let pending: Awaited<ReturnType<typeof run.pendingApprovals>> = [];
      for (let i = 0; i < 200 && pending.length === 0; i++) {
        pending = await run.pendingApprovals();
        if (pending.length === 0) await new Promise((r) => setTimeout(r, 50));
      }
      expect(
        pending.map((p) => p.callId),
        first.output(),
      ).toEqual(['call_1_0']);

      first.proc.kill('SIGKILL');
      expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' });
      // No worker now: the server still takes the decision.
      await run.signalDecision({ callId: 'call_1_0', decision: 'approve', by: 'ops:on-call' });
      expect(effects(run.workflowId)).toEqual([]);

      const second = await startWorker(queue, store);
      const result = await run.result();
      await stopWorker(second);
      expect(result.status).toBe('success');
      expect(result.finalText).toBe('Guarded write done.');
      expect(effects(run.workflowId)).toEqual(['start call_1_0', 'done call_1_0']);
      const scheduled = ((await run.handle.fetchHistory()).events ?? []).filter(
        (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'runTool',
      );
      expect(scheduled).toHaveLength(1);
    },
  );

  it(
    "worker killed mid-stream: the client's stream goes on after the restart, the cut attempt voided, the text shown equal to the transcript",
    { timeout: 120_000 },
    async () => {
      connection ??= await Connection.connect({ address: inject('temporalAddress') });
      const temporal = new Client({ connection });
      const queue = testId('kill-stream');
      const store = join(work, 'store-stream');
      const first = await startWorker(queue, store);
      const run = await new AgentClient(temporal, queue).start(STREAM_KILL_AGENT, {
        input: 'answer at length',
        workflowId: testId('kill-stream'),
      });
      const events: StreamEvent[] = [];
      const chunks: TextChunk[] = [];
      const text = new TextAccumulator();
      let second: WorkerProcess | undefined;
      for await (const e of run.stream()) {
        events.push(e);
        chunks.push(...text.push(e));
        if (!second && events.filter((x) => x.type === 'delta').length >= 5) {
          first.proc.kill('SIGKILL');
          await first.exited;
          second = await startWorker(queue, store);
        }
      }
      if (second) await stopWorker(second);
      const result = await run.result();
      expect(result.status).toBe('success');
      expect(result.finalText).toBe(STREAM_KILL_ANSWER);
      // The attempt the kill cut streamed, then was voided; a later attempt gave the answer.
      expect(events.some((e) => e.type === 'delta' && e.attempt === 1)).toBe(true);
      expect(events).toContainEqual(expect.objectContaining({ type: 'attempt_voided', step: 1, attempt: 1 }));
      expect(events).toContainEqual(
        expect.objectContaining({ type: 'retrying', step: 1, attempt: 1, errorType: 'worker_lost', delayMs: 0 }),
      );
      // The lost attempt is not a failed one: the step took one counted attempt, and one worker loss.
      expect(result.report.steps[0]).toMatchObject({ attempts: 1, workerLosses: 1 });
      expect(text.textOf(1)).toBe(STREAM_KILL_ANSWER);
      expect(chunks.some((c) => c.type === 'reset')).toBe(true);
      const durable = events.filter((e) => 'seq' in e);
      expect(durable.map((e) => ('seq' in e ? e.seq : -1))).toEqual(durable.map((_, i) => i));
    },
  );

  /** Start a run of an at-most-once agent and kill its worker in the middle of the payment. */
  async function killMidPayment(agent: string, name: string) {
    connection ??= await Connection.connect({ address: inject('temporalAddress') });
    const temporal = new Client({ connection });
    const queue = testId(name);
    const store = join(work, `store-${name}`);
    const first = await startWorker(queue, store);
    const run = await new AgentClient(temporal, queue).start(agent, { input: 'pay invoice inv-1', workflowId: testId(name) });
    return { temporal, queue, store, first, run };
  }

  it('at-most-once tool, worker killed mid-call: not executed again; the model reads "outcome unknown"', { timeout: 120_000 }, async () => {
    const { queue, store, first, run } = await killMidPayment(ONCE_KILL_AGENT, 'kill-once');
    await waitFor(
      () => countBy(effects(run.workflowId), 'start').has('call_1_0'),
      () => `the payment to start; worker said:\n${first.output()}`,
    );
    first.proc.kill('SIGKILL');
    await first.exited;
    const second = await startWorker(queue, store);
    const result = await run.result();
    await stopWorker(second);
    expect(result.status).toBe('success');
    // Started once, never again, never finished: the kill cut it.
    expect(effects(run.workflowId)).toEqual(['start call_1_0']);
    const call = result.report.toolCalls[0];
    expect(call).toMatchObject({ tool: 'pay', isError: true, outcomeUnknown: true, workerLosses: 1 });
    expect(call?.error).toMatch(/^Outcome unknown: this call of "pay" may or may not have taken effect/);
    expect(JSON.stringify(result.messages)).toContain('Outcome unknown: this call of \\"pay\\"');
  });

  it(
    'at-most-once tool with approvers, worker killed mid-call: a person is asked; approve runs it again, once',
    { timeout: 120_000 },
    async () => {
      const { queue, store, first, run } = await killMidPayment(ONCE_APPROVED_AGENT, 'kill-once-approved');
      let pending = await waitForPendingCall(run, 'call_1_0');
      await run.decide({ callId: pending.callId, decision: 'approve', by: ONCE_APPROVER });
      await waitFor(
        () => countBy(effects(run.workflowId), 'start').has('call_1_0'),
        () => `the payment to start; worker said:\n${first.output()}`,
      );
      first.proc.kill('SIGKILL');
      await first.exited;
      const second = await startWorker(queue, store);
      pending = await waitForPendingCall(run, 'call_1_0~rerun-1');
      expect(pending).toMatchObject({
        tool: 'pay',
        approvers: [ONCE_APPROVER],
        question: expect.stringMatching(/outcome of this call is unknown/),
      });
      await expect(run.decide({ callId: pending.callId, decision: 'approve', by: 'ops:mallory' })).rejects.toThrow();
      await run.decide({ callId: pending.callId, decision: 'approve', by: ONCE_APPROVER });
      const result = await run.result();
      await stopWorker(second);
      expect(result.status).toBe('success');
      expect(effects(run.workflowId)).toEqual(['start call_1_0', 'start call_1_0', 'done call_1_0']);
      expect(result.report.toolCalls[0]).toMatchObject({ tool: 'pay', isError: false });
      expect(result.report.toolCalls[0]).not.toHaveProperty('outcomeUnknown');
    },
  );
});

async function waitForPendingCall(run: { pendingApprovals(): Promise<Array<{ callId: string }>> }, callId: string) {
  for (let i = 0; i < 600; i++) {
    const found = (await run.pendingApprovals()).find((p) => p.callId === callId);
    if (found) return found as Awaited<ReturnType<AgentRunPending['pendingApprovals']>>[number];
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no pending approval ${callId} within 30 s`);
}

type AgentRunPending = Awaited<ReturnType<AgentClient['start']>>;
