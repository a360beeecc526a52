/**
 * `watch`, `result` and `cancel` of a run whose agent this CLI does not serve (or whose task queue is not
 * the one given) must never host a worker on the run's task queue: that worker would pick up the run's
 * tasks and end it with "unknown agent". They say plainly that no worker polls the queue instead.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Client, Connection } from '@temporalio/client';
import { temporal as proto } from '@temporalio/proto';
import { AgentClient } from '../../src/client';
import type { AgentRun } from '../../src/client';
import { runCli, startCli, tempHome } from '../helpers/cli-run';

const home = tempHome();
const address = inject('temporalAddress');
let connection: Connection;
let temporal: Client;

beforeAll(async () => {
  connection = await Connection.connect({ address });
  temporal = new Client({ connection });
});
afterAll(async () => {
  await connection?.close();
});

/** A run on a fresh task queue that no worker polls. */
async function orphanRun(agent: string): Promise<{ run: AgentRun; taskQueue: string }> {
  const taskQueue = `cli-no-worker-${randomUUID()}`;
  const run = await new AgentClient(temporal, taskQueue).start(agent, {
    input: 'hello',
    workflowId: `cli-orphan-${randomUUID().slice(0, 8)}`,
  });
  return { run, taskQueue };
}

/** Every poller the server lists for the queue (workflow and activity tasks), ghosts of exited processes included. */
async function pollers(taskQueue: string): Promise<string[]> {
  const ids: string[] = [];
  for (const type of [
    proto.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
    proto.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY,
  ]) {
    const r = await temporal.workflowService.describeTaskQueue({
      namespace: 'default',
      taskQueue: { name: taskQueue, kind: proto.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
      taskQueueType: type,
    });
    ids.push(...r.pollers.map((p) => p.identity ?? '?'));
  }
  return ids;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('commands that read or cancel a run do not host a worker for agents they do not have', () => {
  it('result waits through the server and says no worker polls the queue', async () => {
    const { run, taskQueue } = await orphanRun('not-a-demo-agent');
    const cli = startCli(['result', run.workflowId, '--address', address, '--task-queue', taskQueue], { home });
    try {
      await cli.waitFor('waiting for');
      await sleep(3000); // time enough for a worker, had one been started, to poll
      expect(await pollers(taskQueue)).toEqual([]);
      const out = cli.stdout();
      expect(out).toContain(`no worker polls task queue "${taskQueue}"`);
      expect(out).toContain('agent "not-a-demo-agent" is not one this CLI serves');
      expect(out).toContain('the run continues when a worker for it runs');
      expect(out).toContain('waiting for its result through the server');
      expect((await run.handle.describe()).status.name).toBe('RUNNING');
    } finally {
      cli.child.kill('SIGINT');
    }
    expect((await cli.done).code).toBe(130);
  });

  it('watch explains that events need a worker, and waits', async () => {
    const { run, taskQueue } = await orphanRun('not-a-demo-agent');
    const cli = startCli(['watch', run.workflowId, '--address', address, '--task-queue', taskQueue], { home });
    try {
      await cli.waitFor(`run ${run.workflowId} (running)`);
      await sleep(3000);
      expect(await pollers(taskQueue)).toEqual([]);
      const out = cli.stdout();
      expect(out).toContain(`no worker polls task queue "${taskQueue}"`);
      expect(out).toContain('events are read by a query, which needs a worker');
      expect(out).toContain('printed once a worker answers');
      expect((await run.handle.describe()).status.name).toBe('RUNNING');
    } finally {
      cli.child.kill('SIGINT');
    }
    expect((await cli.done).code).toBe(130);
  });

  it('a demo agent on another task queue than the one given is not hosted either', async () => {
    const { run, taskQueue } = await orphanRun('assistant');
    const cli = startCli(['result', run.workflowId, '--address', address, '--task-queue', `other-${randomUUID()}`], { home });
    try {
      await cli.waitFor('waiting for');
      await sleep(3000);
      expect(await pollers(taskQueue)).toEqual([]);
      expect(cli.stdout()).toContain(`no worker polls task queue "${taskQueue}"`);
    } finally {
      cli.child.kill('SIGINT');
    }
    await cli.done;
  });

  it('cancel requests cancellation and says the run ends when its worker processes it', async () => {
    const { run, taskQueue } = await orphanRun('not-a-demo-agent');
    const r = await runCli(['cancel', run.workflowId, '--address', address, '--task-queue', taskQueue], { home });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`cancellation requested for run ${run.workflowId}`);
    expect(r.stdout).toContain(`no worker polls task queue "${taskQueue}"`);
    expect(r.stdout).toContain('the run ends when its worker processes the cancellation');
    await sleep(2000);
    expect(await pollers(taskQueue)).toEqual([]);
    expect((await run.handle.describe()).status.name).toBe('RUNNING');
    await run.handle.terminate('test cleanup');
  });
});
