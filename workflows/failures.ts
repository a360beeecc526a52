/** Turning activity failures into the loop's plain failure records. Workflow-safe. */
import { ActivityFailure, ApplicationFailure, TimeoutFailure } from '@temporalio/workflow';
import type { AttemptFailure } from '../core/retry';
import type { ModelFailureDetails, ToolFailureDetails } from '../core/contract';

/** The innermost useful failure of an activity error. */
function causeOf(err: unknown): unknown {
  return err instanceof ActivityFailure && err.cause ? err.cause : err;
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Classify a failed model call attempt. */
export function modelAttemptFailure(err: unknown): AttemptFailure {
  const cause = causeOf(err);
  if (cause instanceof ApplicationFailure) {
    const details = cause.details?.[0] as ModelFailureDetails | undefined;
    return {
      message: cause.message,
      ...(cause.type ? { type: cause.type } : {}),
      retryable: !cause.nonRetryable && details?.retryable !== false,
      ...(details?.retryAfterMs !== undefined ? { retryAfterMs: details.retryAfterMs } : {}),
    };
  }
  if (cause instanceof TimeoutFailure) {
    return { message: `model call timed out (${String(cause.timeoutType)})`, type: 'timeout', retryable: true };
  }
  return { message: messageOf(cause), retryable: true };
}

/** Message and attempt count of a failed tool activity. */
export function toolFailure(err: unknown): { message: string; attempts: number; latencyMs: number } {
  const cause = causeOf(err);
  if (cause instanceof ApplicationFailure) {
    const details = cause.details?.[0] as ToolFailureDetails | undefined;
    return { message: cause.message, attempts: details?.attempt ?? 0, latencyMs: details?.latencyMs ?? 0 };
  }
  if (cause instanceof TimeoutFailure) {
    return { message: `timed out (${String(cause.timeoutType)})`, attempts: 0, latencyMs: 0 };
  }
  return { message: messageOf(cause), attempts: 0, latencyMs: 0 };
}
