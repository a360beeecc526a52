/**
 * Defer and escalation survive a worker kill: the worker process is SIGKILLed while a request is deferred
 * (or waits for its escalation), a new one starts after the timer's time, and the run comes out as an
 * uninterrupted one does (the durable timers fire; the same events in the same order).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Client, Connection } from '@temporalio/client';
import { AgentClient } from '../../src/client';
import { outputText } from '../../src/core/messages/messages';
import { allEvents, pollUntil, resultWithin, toolResults } from '../helpers/events';
import { testId } from '../helpers/harness';
import type { WorkerProcess } from '../helpers/worker-process';
import { WorkerProcesses } from '../helpers/worker-process';

const work = mkdtempSync(join(tmpdir(), 'durable-agent-defer-kill-'));
const workers = new WorkerProcesses();
const taskQueue = testId('defer-kill');
let connection: Connection;
let client: AgentClient;

function startWorker(): Promise<WorkerProcess> {
  return workers.start('defer-worker.ts', {
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    DEFER_TASK_QUEUE: taskQueue,
    DEFER_WORKFLOW_BUNDLE: inject('workflowBundlePath'),
    DEFER_STORE_DIR: join(work, 'store'),
  });
}

beforeAll(async () => {
  connection = await Connection.connect({ address: inject('temporalAddress') });
  client = new AgentClient(new Client({ connection }), taskQueue);
});
afterAll(async () => {
  workers.killAll();
  await connection?.close();
  rmSync(work, { recursive: true, force: true });
});

const approvalEvents = async (run: Awaited<ReturnType<AgentClient['start']>>) =>
  (await allEvents(run)).map((e) => e.type).filter((t) => t.startsWith('approval_'));

describe('worker killed', () => {
  it('during a defer and during an escalation wait: the timers fire on the next worker, same outcome', async () => {
    const first = await startWorker();
    const deferRun = await client.start('kill_defer', { input: 'release', workflowId: testId('kill-defer') });
    const escalateRun = await client.start('kill_escalate', { input: 'pay', workflowId: testId('kill-escalate') });
    const [pending] = await pollUntil(
      () => deferRun.pendingApprovals(),
      (p) => p.length === 1,
      'defer run pending',
    );
    await pollUntil(
      () => escalateRun.pendingApprovals(),
      (p) => p.length === 1,
      'escalate run pending',
    );
    await deferRun.defer({ callId: pending!.callId, until: new Date(Date.now() + 1000), by: 'ops:alice' });

    // No worker while both timers are due.
    first.proc.kill('SIGKILL');
    await first.exited;
    await new Promise((r) => setTimeout(r, 1600));
    await startWorker();

    const [back] = await pollUntil(
      () => deferRun.pendingApprovals(),
      (p) => p.length === 1,
      'deferred request back',
    );
    expect(back!.deferredUntil).toBeUndefined();
    await deferRun.decide({ callId: back!.callId, decision: 'approve', by: 'ops:alice' });
    expect(toolResults(await resultWithin(deferRun)).map((b) => outputText(b.output))).toEqual(['released 1.2']);
    expect(await approvalEvents(deferRun)).toEqual(['approval_requested', 'approval_deferred', 'approval_returned', 'approval_decided']);

    const escalated = await resultWithin(escalateRun);
    expect(toolResults(escalated)[0]?.isError).toBe(true);
    expect(await approvalEvents(escalateRun)).toEqual(['approval_requested', 'approval_escalated', 'approval_expired']);
  });
});
