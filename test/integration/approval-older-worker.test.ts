/**
 * Rolling deploy: a client that names the decision's path, talking to a run whose worker is older than the
 * audit trail (it refuses unknown fields), decides once more without the path; a field that changes what the
 * decision does is never dropped, and the refusal says which field.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker, bundleWorkflowCode } from '@temporalio/worker';
import { AgentClient } from '../../src/client';
import { ApprovalRefusedError } from '../../src/client/errors';
import { installTestRuntime, testId } from '../helpers/harness';

const taskQueue = `older-worker-${randomUUID()}`;
let worker: Worker;
let running: Promise<void>;
let native: NativeConnection;
let connection: Connection;
let client: AgentClient;

beforeAll(async () => {
  installTestRuntime();
  native = await NativeConnection.connect({ address: inject('temporalAddress') });
  const noop = () => undefined;
  const bundle = await bundleWorkflowCode({
    workflowsPath: join(__dirname, '..', 'fixtures', 'older-decide-workflow.ts'),
    logger: { log: noop, trace: noop, debug: noop, info: noop, warn: noop, error: noop },
  });
  worker = await Worker.create({ connection: native, taskQueue, workflowBundle: bundle });
  running = worker.run();
  connection = await Connection.connect({ address: inject('temporalAddress') });
  client = new AgentClient(new Client({ connection }), taskQueue);
}, 60_000);
afterAll(async () => {
  worker?.shutdown();
  await running;
  await connection?.close();
  await native?.close();
});

describe('a run on a worker older than the audit trail', () => {
  it('takes a decision without its path; a field that changes the decision is refused with its name', async () => {
    const workflowId = testId('older-worker');
    const handle = await client.temporal.workflow.start('olderAgentWorkflow', { taskQueue, workflowId });
    const run = client.get(workflowId);
    await expect(run.decide({ callId: 'c1', decision: 'approve', by: 'ops:alice', scope: 'run', match: 'tool' })).rejects.toThrow(
      new ApprovalRefusedError('malformed decision: unknown field(s): match, path'),
    );
    expect(await run.decide({ callId: 'c1', decision: 'approve', by: 'ops:alice' })).toEqual({ callId: 'c1', applied: ['c1'] });
    await run.decide({ callId: 'c2', decision: 'deny', by: 'ops:bob', path: 'cli', reason: 'no' });
    expect(await handle.result()).toEqual([
      { callId: 'c1', decision: 'approve', by: 'ops:alice' },
      { callId: 'c2', decision: 'deny', by: 'ops:bob', reason: 'no' },
    ]);
  });
});
