/**
 * A worker process killed (kill -9) while a sub-agent's child run is in its model call: a new worker
 * process resumes both runs, and both finish (the child's answer reaches the parent).
 */
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { Client, Connection } from '@temporalio/client';
import { AgentClient } from '../../src/client';
import { SLOW_PARENT } from '../fixtures/sub-agents';
import { resultWithin } from '../helpers/events';
import { testId } from '../helpers/harness';

const ROOT = resolve(__dirname, '..', '..');
const work = mkdtempSync(join(tmpdir(), 'durable-agent-sa-kill-'));
const children = new Set<ChildProcess>();
let connection: Connection | undefined;

afterAll(async () => {
  for (const proc of children) proc.kill('SIGKILL');
  await connection?.close();
  rmSync(work, { recursive: true, force: true });
});

/** A worker process serving the slow sub-agents on `taskQueue`; resolves once it polls. */
function startWorker(taskQueue: string): Promise<ChildProcess> {
  const proc = spawn(process.execPath, ['--import', 'tsx', join('test', 'fixtures', 'sub-agent-worker.ts')], {
    cwd: ROOT,
    env: {
      ...process.env,
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      SA_TASK_QUEUE: taskQueue,
      SA_WORKFLOW_BUNDLE: inject('workflowBundlePath'),
      SA_STORE_DIR: join(work, 'store'),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(proc);
  proc.once('exit', () => children.delete(proc));
  let out = '';
  return new Promise((res, rej) => {
    const timer = setTimeout(() => rej(new Error(`worker did not start within 60 s:\n${out}`)), 60_000);
    const onData = (d: Buffer) => {
      out += d.toString();
      if (/^ready$/m.test(out)) {
        clearTimeout(timer);
        res(proc);
      }
    };
    proc.stdout?.on('data', onData);
    proc.stderr?.on('data', (d: Buffer) => (out += d.toString()));
    proc.once('exit', (code, signal) => {
      clearTimeout(timer);
      rej(new Error(`worker exited (code ${code}, signal ${signal}) before it was ready:\n${out}`));
    });
  });
}

describe('worker killed while a sub-agent runs', () => {
  it('a new worker resumes the parent and the child; both finish', { timeout: 120_000 }, async () => {
    connection = await Connection.connect({ address: inject('temporalAddress') });
    const taskQueue = `sa-kill-${testId('q')}`;
    const client = new AgentClient(new Client({ connection }), taskQueue);
    const first = await startWorker(taskQueue);
    const run = await client.start(SLOW_PARENT, { input: 'go', workflowId: testId('sa-kill') });
    const childId = `${run.workflowId}--call_1_0`;
    // Wait until the child's slow model call is under way, then kill the worker.
    const deadline = Date.now() + 30_000;
    for (;;) {
      const d = await client
        .get(childId)
        .handle.describe()
        .catch(() => undefined);
      if (d?.raw.pendingActivities?.some((a) => a.activityType?.name === 'callModel')) break;
      if (Date.now() > deadline) throw new Error('the child never started its model call');
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
    } finally {
      second.kill('SIGTERM');
    }
  });
});
