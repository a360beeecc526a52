/**
 * How an agent run's loop stopped, before the transcript is committed and the result built: the
 * endings the agent workflow returns, and the reason a call still open at that moment is closed with.
 * Pure.
 */
import type { RunError, RunStatus } from './result';

/** How the loop stopped. */
export interface Ending {
  status: RunStatus;
  error?: RunError;
}

/** The run was cancelled. */
export const CANCELLED: Ending = { status: 'cancelled', error: { message: 'The run was cancelled.', type: 'CancelledFailure' } };

/** The ending a transition decided (`next: finish`). */
export function finished(next: { status: RunStatus; error?: RunError }): Ending {
  return { status: next.status, ...(next.error ? { error: next.error } : {}) };
}

/** The run took its last step. */
export function maxStepsEnding(maxSteps: number): Ending {
  return { status: 'max_steps', error: { message: `Reached the step limit (${maxSteps}).`, type: 'MaxSteps' } };
}

/** The model call failed for good: `storage_error` when the transcript store did, else `provider_error`. */
export function modelFailureEnding(failure: { message: string; type?: string }, storageError: string): Ending {
  const status = failure.type === storageError ? 'storage_error' : 'provider_error';
  return { status, error: { message: failure.message, ...(failure.type ? { type: failure.type } : {}) } };
}

/** The run's wall-clock budget ran out. */
export function timeoutEnding(timeoutMs: number | undefined): Ending {
  return { status: 'timeout', error: { message: `The run's time budget (${timeoutMs} ms) ran out.`, type: 'Timeout' } };
}

/** Why the run stopped mid-step, for the calls it leaves open: its time ran out, it was cancelled, or it failed. */
export type Interruption = { kind: 'timeout' } | { kind: 'cancelled' } | { kind: 'failed'; ending: Ending };

/** The result text of a call the interrupted step leaves without an outcome. */
export function interruptedCallReason(why: Interruption): string {
  if (why.kind === 'timeout') return "Not executed: the run's time budget ran out before this call finished.";
  if (why.kind === 'cancelled') return 'Cancelled: the run was cancelled before this call finished.';
  return `Not executed: the run failed (${why.ending.error?.message}).`;
}

/** The result text of a call the model asked for when a budget of the run was spent. */
export function overBudgetCallReason(over: Ending): string {
  return `Not executed: ${over.error?.message ?? 'a budget of the run is spent.'}`;
}
