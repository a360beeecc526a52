/** Turning activity failures into the loop's plain failure records and run endings. Workflow-safe. */
import { ActivityFailure, ApplicationFailure, TemporalFailure, TimeoutFailure } from '@temporalio/workflow';
import type { AttemptFailure } from '../core/run/retry';
import type { ModelFailureDetails, ToolFailureDetails } from '../core/run/contract';
import { STORAGE_ERROR } from '../core/run/contract';
import type { FailureStatus, RunError } from '../core/run/result';
import type { ToolMetrics } from '../core/tool-calls/metrics';
import type { ToolProgress } from '../core/tool-calls/progress';

/** The innermost useful failure of an activity error. */
function causeOf(err: unknown): unknown {
  return err instanceof ActivityFailure && err.cause ? err.cause : err;
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Classify a failed model call attempt. Storage failures are never retryable: the model did not fail. */
export function modelAttemptFailure(err: unknown): AttemptFailure {
  const cause = causeOf(err);
  if (cause instanceof ApplicationFailure) {
    const details = cause.details?.[0] as ModelFailureDetails | undefined;
    return {
      message: cause.message,
      ...(cause.type ? { type: cause.type } : {}),
      retryable: cause.type !== STORAGE_ERROR && !cause.nonRetryable && details?.retryable !== false,
      ...(details?.retryAfterMs !== undefined ? { retryAfterMs: details.retryAfterMs } : {}),
      ...(details?.contextOverflow ? { contextOverflow: true } : {}),
    };
  }
  if (cause instanceof TimeoutFailure) {
    if (workerLost(cause))
      return {
        message: 'the worker running the model call was lost (no heartbeat)',
        type: 'worker_lost',
        retryable: true,
        workerLost: true,
      };
    return { message: `model call timed out (${String(cause.timeoutType)})`, type: 'timeout', retryable: true };
  }
  return { message: messageOf(cause), retryable: true };
}

/**
 * A heartbeat timeout: the worker running the activity stopped answering (killed, partitioned, or its
 * event loop blocked past the timeout, since the runtime heartbeats every second on its own).
 */
export function workerLost(cause: unknown): boolean {
  return cause instanceof TimeoutFailure && cause.timeoutType === 'HEARTBEAT';
}

/** A failed tool activity as the loop sees it. */
export interface ToolFailure {
  message: string;
  type?: string;
  attempts: number;
  latencyMs: number;
  /** The tool said not to retry (or the failure cannot be retried). */
  nonRetryable: boolean;
  /** The worker was lost: retried without counting the attempt. */
  workerLost: boolean;
  /** The metrics the failed attempt set before it failed (absent: none, or a timeout or lost worker). */
  metrics?: ToolMetrics;
  /** The last progress the failed attempt reported (absent: none, or a timeout or lost worker). */
  lastProgress?: ToolProgress;
}

/** Message, failure type and attempt count of a failed tool activity. */
export function toolFailure(err: unknown): ToolFailure {
  const cause = causeOf(err);
  if (cause instanceof ApplicationFailure) {
    const details = cause.details?.[0] as ToolFailureDetails | undefined;
    return {
      message: cause.message,
      ...(cause.type ? { type: cause.type } : {}),
      attempts: details?.attempt ?? 0,
      latencyMs: details?.latencyMs ?? 0,
      nonRetryable: cause.nonRetryable || cause.type === STORAGE_ERROR,
      workerLost: false,
      ...(details?.metrics ? { metrics: details.metrics } : {}),
      ...(details?.lastProgress ? { lastProgress: details.lastProgress } : {}),
    };
  }
  if (cause instanceof TimeoutFailure) {
    if (workerLost(cause))
      return {
        message: 'the worker running it was lost (no heartbeat)',
        type: 'worker_lost',
        attempts: 0,
        latencyMs: 0,
        nonRetryable: false,
        workerLost: true,
      };
    return {
      message: `timed out (${String(cause.timeoutType)})`,
      type: 'timeout',
      attempts: 0,
      latencyMs: 0,
      nonRetryable: false,
      workerLost: false,
    };
  }
  return { message: messageOf(cause), attempts: 0, latencyMs: 0, nonRetryable: false, workerLost: false };
}

/** True for the failures a run turns into a typed ending (activity failures); false for bugs in workflow code. */
export function isActivityFailure(err: unknown): boolean {
  return err instanceof TemporalFailure;
}

/**
 * How a run ends after an activity failed in a way the loop does not handle itself (describing the
 * agent, checking approvals, storing the transcript): storage failures are `storage_error`, an agent
 * the worker does not have is `invalid_input`, anything else `internal_error` with what failed.
 */
export function failureEnding(err: unknown, doing: string): { status: FailureStatus; error: RunError } {
  const cause = causeOf(err);
  const type = cause instanceof ApplicationFailure ? (cause.type ?? undefined) : undefined;
  const message = cause instanceof TimeoutFailure ? `timed out (${String(cause.timeoutType)})` : messageOf(cause);
  if (type === STORAGE_ERROR) return { status: 'storage_error', error: { message, type } };
  if (type === 'UnknownAgent') return { status: 'invalid_input', error: { message, type } };
  return {
    status: 'internal_error',
    error: { message: `Could not ${doing}: ${message}`, type: type ?? (cause instanceof Error ? cause.name : 'Error') },
  };
}
