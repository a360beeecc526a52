/**
 * A worker process killed (kill -9) while a sub-agent's child run is in its model call: a new worker
 * process resumes both runs, and both finish (the child's answer reaches the parent). The same kill hits
 * a consolidation whose two children are in their model calls: it resumes, nothing reruns.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { Client, Connection } from '@temporalio/client';
import { AgentClient } from '../../src/client';
import { SLOW_CONSOLIDATOR, SLOW_PARENT } from '../fixtures/sub-agents';
import { outputText } from '../../src/core/messages/messages';
import { resultWithin, toolResults } from '../helpers/events';
import { testId } from '../helpers/harness';
import { WorkerProcesses } from '../helpers/worker-process';

const work = mkdtempSync(join(tmpdir(), 'durable-agent-sa-kill-'));
const workers = new WorkerProcesses();
let connection: Connection | undefined;

afterAll(async () => {
  workers.killAll();
  await connection?.close();
  rmSync(work, { recursive: true, force: true });
});

/** A worker process serving the slow sub-agents on `taskQueue`; resolves once it polls. */
async function startWorker(taskQueue: string): Promise<ChildProcess> {
  const w = await workers.start('sub-agent-worker.ts', {
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    SA_TASK_QUEUE: taskQueue,
    SA_WORKFLOW_BUNDLE: inject('workflowBundlePath'),
    SA_STORE_DIR: join(work, 'store'),
  });
  return w.proc;
}

describe('worker killed while a sub-agent runs', () => {
  it('a new worker resumes the parent and the child; both finish', { timeout: 120_000 }, async () => {
    connection = await Connection.connect({ address: inject('temporalAddress') });
    const taskQueue = `sa-kill-${testId('q')}`;
    const client = new AgentClient(new Client({ connection }), taskQueue);
    const first = await startWorker(taskQueue);
    const run = await client.start(SLOW_PARENT, { input: 'go', workflowId: testId('sa-kill') });
    const childId = `${run.workflowId}--call_1_0`;
    const consolidation = await client.start(SLOW_CONSOLIDATOR, { input: 'go', workflowId: testId('sa-kill-cons') });
    const consolidated = [1, 2].map((n) => `${consolidation.workflowId}--call_1_0-${n}`);
    // Wait until every child's slow model call is under way, then kill the worker.
    const deadline = Date.now() + 30_000;
    const inModelCall = async (id: string) => {
      const d = await client
        .get(id)
        .handle.describe()
        .catch(() => undefined);
      return d?.raw.pendingActivities?.some((a) => a.activityType?.name === 'callModel') === true;
    };
    for (;;) {
      if ((await Promise.all([childId, ...consolidated].map(inModelCall))).every(Boolean)) break;
      if (Date.now() > deadline) throw new Error('the children never all started their model calls');
      await new Promise((r) => setTimeout(r, 50));
    }
    first.kill('SIGKILL');
    await new Promise((r) => first.once('exit', r));
    const second = await startWorker(taskQueue);
    try {
      const result = await resultWithin(run, 60_000);
      expect(result.status).toBe('success');
      expect(result.finalText).toBe('parent done');
      expect(result.report.toolCalls[0]!.child).toMatchObject({ workflowId: childId, status: 'success' });
      const child = await client.get(childId).result();
      expect(child.status).toBe('success');
      expect(child.finalText).toBe('thought about it slowly');
      // The lost attempt ran again without counting as a failed one.
      expect(child.report.steps[0]!.workerLosses).toBeGreaterThanOrEqual(1);
      expect(result.usage.inputTokens).toBeGreaterThanOrEqual(7);

      // The consolidation resumed too: each child started once, each ran to its answer, the function joined them once.
      const joined = await resultWithin(consolidation, 60_000);
      expect(joined.status).toBe('success');
      expect(outputText(toolResults(joined)[0]!.output)).toBe('thought about it slowly | thought about it slowly');
      expect(joined.report.toolCalls[0]!.children?.map((c) => [c.workflowId, c.status])).toEqual(consolidated.map((id) => [id, 'success']));
      for (const id of consolidated) expect((await client.get(id).result()).report.steps[0]!.workerLosses).toBeGreaterThanOrEqual(1);
      const history = (await consolidation.handle.fetchHistory()).events ?? [];
      expect(history.filter((e) => e.startChildWorkflowExecutionInitiatedEventAttributes).length).toBe(2);
      expect(history.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'aggregateResults').length).toBe(1);
    } finally {
      second.kill('SIGTERM');
    }
  });
});
