/**
 * Which agent an existing run runs, and whether this CLI may host a worker for it. A command that reads
 * or cancels a run hosts a worker only for a run of an agent it serves, on the task queue it was given:
 * any other worker would take the run's tasks and fail them as "unknown agent".
 */
import type { WorkflowExecutionDescription } from '@temporalio/client';
// Deep import: @temporalio/common exports no public way to decode one payload through a data converter's codecs.
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow';
import type { AgentWorkflowInput } from '../../src/entry/client';
import { isAgentTaskQueue } from '../../src/entry/client';
import { AGENT_NAME } from '../../src/entry/client';
import type { Session } from './session';

/**
 * The run's agent: its `DurableAgentName` search attribute (set once a worker has run it), else the
 * `agent` of its start input, read from the first event of its history. Undefined when neither says.
 */
export async function runAgentName(session: Session, description: WorkflowExecutionDescription): Promise<string | undefined> {
  const fromVisibility = description.typedSearchAttributes.get(AGENT_NAME);
  if (fromVisibility) return fromVisibility;
  const client = session.temporal;
  const page = await client.workflowService.getWorkflowExecutionHistory({
    namespace: client.options.namespace,
    execution: { workflowId: description.workflowId, runId: description.runId },
    maximumPageSize: 1,
  });
  const payload = page.history?.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
  if (!payload) return undefined;
  try {
    const input = await decodeFromPayloadsAtIndex<Partial<AgentWorkflowInput>>(client.options.loadedDataConverter, 0, [payload]);
    return typeof input?.agent === 'string' ? input.agent : undefined;
  } catch {
    return undefined;
  }
}

/** What a command did about a worker for a run. */
export type WorkerPresence =
  /** Some live worker polls the run's task queue. */
  | { kind: 'polled' }
  /** This CLI hosts one now. */
  | { kind: 'hosted' }
  /** Nobody polls, and this CLI may not host: `reason` says why, for the user. */
  | { kind: 'none'; reason: string };

/** Why this CLI may not host a worker for the run, or undefined when it may. */
export async function whyNotHost(session: Session, description: WorkflowExecutionDescription): Promise<string | undefined> {
  const given = session.target.taskQueue;
  const agent = await runAgentName(session, description);
  if (given !== undefined ? description.taskQueue !== given : !isAgentTaskQueue(description.taskQueue, agent)) {
    const queues =
      given !== undefined
        ? `the task queue it is given ("${given}"; see --task-queue)`
        : `each agent's own queue (durable-agent.<agent>) unless given --task-queue`;
    return `the run is on task queue "${description.taskQueue}", and this command hosts workers only on ${queues}`;
  }
  const served = session.agents;
  if (agent === undefined) return `the run's agent is not known from its history`;
  if (!served.names.includes(agent)) {
    return `the run's agent "${agent}" is not one this CLI serves (${served.label}: ${served.names.join(', ')}; serve yours with --agents <file>)`;
  }
  return undefined;
}

/** Make sure some worker serves the run, hosting one when that is safe (see {@link whyNotHost}). */
export async function ensureRunWorker(session: Session, description: WorkflowExecutionDescription): Promise<WorkerPresence> {
  if (session.hostsWorker) return { kind: 'hosted' };
  if (await session.hasWorker(description.taskQueue)) return { kind: 'polled' };
  const reason = await whyNotHost(session, description);
  if (reason) return { kind: 'none', reason };
  await session.hostWorker();
  return { kind: 'hosted' };
}

/** The first sentence every "no worker" message starts with. */
export function noWorkerLine(taskQueue: string, reason: string): string {
  return `no worker polls task queue "${taskQueue}", and this CLI does not start one: ${reason}.`;
}
