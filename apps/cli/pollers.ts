/** Is some worker polling a task queue? Pollers of processes on this host that have exited do not count. */
import { hostname } from 'node:os';
import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';

/** Identity the CLI's in-process workers use: Temporal's default form `<pid>@<host>`. */
export function workerIdentity(): string {
  return `${process.pid}@${hostname()}`;
}

/**
 * True when `identity` names a process on this host (`<pid>@<host>`) that no longer exists. The
 * server keeps listing a stopped worker's poller for minutes; this tells such ghosts apart.
 */
export function isGhostPoller(identity: string): boolean {
  const m = /^(\d+)@(.+)$/.exec(identity);
  if (!m || m[2] !== hostname()) return false;
  try {
    process.kill(Number(m[1]), 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/** Identities of the workers that poll `taskQueue` for workflow tasks and are not known to be gone. */
export async function livePollers(client: Client, taskQueue: string): Promise<string[]> {
  const response = await client.workflowService.describeTaskQueue({
    namespace: client.options.namespace,
    taskQueue: { name: taskQueue, kind: temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
    taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
  });
  return response.pollers.map((p) => p.identity ?? '').filter((id) => !isGhostPoller(id));
}
