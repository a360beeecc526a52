/** Turning activity failures into the loop's plain failure records and run endings. Workflow-safe. */
import { ActivityFailure, ApplicationFailure, TemporalFailure, TimeoutFailure } from '@temporalio/workflow';
import type { AttemptFailure } from '../core/retry';
import type { ModelFailureDetails, ToolFailureDetails } from '../core/contract';
import { STORAGE_ERROR } from '../core/contract';
import type { FailureStatus, RunError } from '../core/result';

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
    return { message: `model call timed out (${String(cause.timeoutType)})`, type: 'timeout', retryable: true };
  }
  return { message: messageOf(cause), retryable: true };
}

/** Message, failure type and attempt count of a failed tool activity. */
export function toolFailure(err: unknown): { message: string; type?: string; attempts: number; latencyMs: number } {
  const cause = causeOf(err);
  if (cause instanceof ApplicationFailure) {
    const details = cause.details?.[0] as ToolFailureDetails | undefined;
    return { message: cause.message, ...(cause.type ? { type: cause.type } : {}), attempts: details?.attempt ?? 0, latencyMs: details?.latencyMs ?? 0 };
  }
  if (cause instanceof TimeoutFailure) {
    return { message: `timed out (${String(cause.timeoutType)})`, attempts: 0, latencyMs: 0 };
  }
  return { message: messageOf(cause), attempts: 0, latencyMs: 0 };
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
  const type = cause instanceof ApplicationFailure ? cause.type ?? undefined : undefined;
  const message = cause instanceof TimeoutFailure ? `timed out (${String(cause.timeoutType)})` : messageOf(cause);
  if (type === STORAGE_ERROR) return { status: 'storage_error', error: { message, type } };
  if (type === 'UnknownAgent') return { status: 'invalid_input', error: { message, type } };
  return { status: 'internal_error', error: { message: `Could not ${doing}: ${message}`, type: type ?? (cause instanceof Error ? cause.name : 'Error') } };
}
