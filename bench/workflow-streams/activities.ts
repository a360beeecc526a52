/**
 * The comparison's activities. `modelStep` plays a streaming model: `chunks` deltas of 8 characters,
 * `intervalMs` apart (a timer before each, like durable-agent's ScriptedProvider), heartbeating after
 * each; with `publish` it hands each to a `WorkflowStreamClient` (`fromWithinActivity`, batched every
 * `batchMs`) and stamps the moment it did, for the subscriber to time its receipt (same process, same
 * clock).
 */
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { Context } from '@temporalio/activity';
import { WorkflowStreamClient } from '@temporalio/workflow-streams/client';
import type { StepsInput } from './workflows';

/** One delta on the `deltas` topic. */
export interface Delta {
  step: number;
  n: number;
  text: string;
}

/** The topic deltas go to. */
export const DELTAS = 'deltas';

/** Characters of each delta's text (as in bench/streaming.ts). */
const DELTA_CHARS = 8;

/** When each delta was published, by {@link sentKey}. */
export const sentAt = new Map<string, number>();

/** The key of a delta in {@link sentAt}. */
export function sentKey(workflowId: string, step: number, n: number): string {
  return `${workflowId}/${step}/${n}`;
}

/** The text of delta `n` of `step`. */
export function deltaText(step: number, n: number): string {
  return `${step}.${n} `.padEnd(DELTA_CHARS, '-').slice(0, DELTA_CHARS);
}

/** A streaming model call: see the module comment. */
export async function modelStep(input: StepsInput & { step: number }): Promise<number> {
  const ctx = Context.current();
  const workflowId = ctx.info.workflowExecution?.workflowId ?? ctx.info.activityId;
  const client = input.publish ? WorkflowStreamClient.fromWithinActivity({ batchInterval: input.batchMs }) : undefined;
  const topic = client?.topic<Delta>(DELTAS);
  try {
    for (let n = 0; n < input.chunks; n++) {
      if (input.intervalMs) await sleep(input.intervalMs);
      if (topic) {
        sentAt.set(sentKey(workflowId, input.step, n), performance.now());
        topic.publish({ step: input.step, n, text: deltaText(input.step, n) });
      }
      ctx.heartbeat();
    }
  } finally {
    // Stops the flusher and sends what is buffered (what `await using` does).
    await client?.[Symbol.asyncDispose]();
  }
  return input.chunks;
}

/** The trivial tool of a step. */
export async function note(step: number): Promise<string> {
  return `noted ${step}`;
}
