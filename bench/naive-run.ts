/**
 * Run the naive loop (`bench/naive/`) until it finishes or dies, and say at which step and why: a
 * payload over the server's size limit, a history over its size or event limit, or a workflow task that
 * keeps failing (the run is then stuck, not closed, and is terminated here).
 */
import { performance } from 'node:perf_hooks';
import { temporal } from '@temporalio/proto';
import type { BenchEnvironment } from './environment';
import type { naiveLoopWorkflow } from './naive/workflows';

const { EventType, WorkflowTaskFailedCause } = temporal.api.enums.v1;

/** How the naive run ended. */
export interface NaiveOutcome {
  workflowId: string;
  /** Model calls that completed (each one carried the whole conversation so far). */
  stepsDone: number;
  /** Whether it reached its last step. */
  completed: boolean;
  /** Workflow status when watching stopped (`TERMINATED`, `FAILED`, `COMPLETED`, or `RUNNING` when stuck). */
  status: string;
  /** Why it died, as the server or the SDK put it. */
  reason: string;
  historyEvents: number;
  historyBytes: number;
  /** Largest model-call input recorded in history, in bytes. */
  largestInputBytes: number;
  seconds: number;
}

/** Seconds without a new step after which a running naive run counts as stuck. */
const STUCK_AFTER_S = 60;

/** Start the naive loop for `toolSteps` steps of `bytes`-byte tool outputs and watch it. */
export async function naiveRun(env: BenchEnvironment, toolSteps: number, bytes: number, id: string): Promise<NaiveOutcome> {
  if (!env.naiveQueue) throw new Error('naiveRun: the environment has no naive worker (start it with { naive: true })');
  const started = performance.now();
  const handle = await env.temporal.workflow.start<typeof naiveLoopWorkflow>('naiveLoopWorkflow', {
    taskQueue: env.naiveQueue,
    workflowId: `bench-naive-${id}`,
    args: [{ prompt: 'Read the manual page by page.', toolSteps, bytes }],
  });
  let lastLength = 0;
  let lastChange = performance.now();
  let stuck = '';
  for (;;) {
    const d = await handle.describe();
    if (d.status.name !== 'RUNNING') break;
    const attempt = d.raw.pendingWorkflowTask?.attempt ?? 0;
    if (attempt >= 3) {
      stuck = `its workflow task failed ${attempt - 1} times in a row`;
      break;
    }
    if (d.historyLength !== lastLength) {
      lastLength = d.historyLength;
      lastChange = performance.now();
    } else if (performance.now() - lastChange > STUCK_AFTER_S * 1000) {
      stuck = `no progress for ${STUCK_AFTER_S} s`;
      break;
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  const seconds = (performance.now() - started) / 1000;
  const described = await handle.describe();
  const history = await handle.fetchHistory();
  const activityBySchedule = new Map<string, string>();
  let stepsDone = 0;
  let largestInputBytes = 0;
  let reason = '';
  for (const e of history.events ?? []) {
    const scheduled = e.activityTaskScheduledEventAttributes;
    if (e.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED && scheduled) {
      activityBySchedule.set(String(e.eventId), scheduled.activityType?.name ?? '');
      if (scheduled.activityType?.name === 'naiveModel') {
        largestInputBytes = Math.max(
          largestInputBytes,
          (scheduled.input?.payloads ?? []).reduce((n, p) => n + (p.data?.length ?? 0), 0),
        );
      }
    }
    const done = e.activityTaskCompletedEventAttributes;
    if (
      e.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED &&
      done &&
      activityBySchedule.get(String(done.scheduledEventId)) === 'naiveModel'
    )
      stepsDone++;
    const failedTask = e.workflowTaskFailedEventAttributes;
    if (e.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED && failedTask) {
      reason = `workflow task failed (${WorkflowTaskFailedCause[failedTask.cause ?? 0]}): ${failedTask.failure?.message ?? ''}`;
    }
    const failedActivity = e.activityTaskFailedEventAttributes;
    if (e.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_FAILED && failedActivity)
      reason = `activity failed: ${failedActivity.failure?.message ?? ''}`;
    if (e.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED)
      reason = `terminated by the server: ${e.workflowExecutionTerminatedEventAttributes?.reason ?? ''}`;
    if (e.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED)
      reason = `failed: ${e.workflowExecutionFailedEventAttributes?.failure?.message ?? ''}`;
  }
  if (stuck) {
    reason = `stuck, ${stuck}; last: ${reason || 'no failure recorded'}`;
    await handle.terminate('bench: the naive loop is stuck');
  }
  const completed = described.status.name === 'COMPLETED';
  return {
    workflowId: handle.workflowId,
    stepsDone,
    completed,
    status: described.status.name,
    reason: completed ? 'finished' : reason || 'unknown',
    historyEvents: described.historyLength,
    historyBytes: described.historySize ?? 0,
    largestInputBytes,
    seconds,
  };
}
