/** Errors the client throws: each a {@link DurableAgentError} with a stable `code`. */
import { DurableAgentError } from '../core/run/errors';

/**
 * The run refused an approval decision sent with `run.decide()` (unknown or already decided call,
 * expired approval, malformed decision, approver not allowed). The reason is the message; nothing was
 * written to the run's history. Code `approval_refused`.
 */
export class ApprovalRefusedError extends DurableAgentError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('approval_refused', message, options);
  }
}

/**
 * The run refused a message sent with `run.send()` (malformed, inbox full, or the run is ending). The
 * reason is the message; nothing was written to the run's history. Code `message_refused`.
 */
export class MessageRefusedError extends DurableAgentError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('message_refused', message, options);
  }
}

/** No run with this workflow id exists in the namespace (never started, or deleted by retention). Code `run_not_found`. */
export class RunNotFoundError extends DurableAgentError {
  /** The workflow id that was asked for. */
  readonly workflowId: string;

  constructor(workflowId: string, options?: { cause?: unknown }) {
    super('run_not_found', `no run with workflow id "${workflowId}"`, options);
    this.workflowId = workflowId;
  }
}

/** How a run that is no longer running ended, as Temporal names it (lowercase). */
export type RunEndedStatus = 'completed' | 'failed' | 'cancelled' | 'terminated' | 'continued_as_new' | 'timed_out' | 'unknown';

/**
 * The run has already ended, so it cannot take what was sent (`send`, `decide`, `end`, `signalMessage`,
 * `signalDecision`). `status` says how it ended. Code `run_ended`.
 */
export class RunEndedError extends DurableAgentError {
  /** The run's workflow id. */
  readonly workflowId: string;
  /** How the run ended. */
  readonly status: RunEndedStatus;

  constructor(workflowId: string, status: RunEndedStatus, options?: { cause?: unknown }) {
    super('run_ended', `run "${workflowId}" has already ended (${status})`, options);
    this.workflowId = workflowId;
    this.status = status;
  }
}

/** The {@link RunEndedStatus} of a Temporal status name (`COMPLETED` → `completed`). */
export function runEndedStatus(name: string): RunEndedStatus {
  const s = name.toLowerCase();
  const known: readonly RunEndedStatus[] = ['completed', 'failed', 'cancelled', 'terminated', 'continued_as_new', 'timed_out'];
  return (known as readonly string[]).includes(s) ? (s as RunEndedStatus) : 'unknown';
}

/**
 * What was asked needs a worker (a running run's events are read by a query its worker answers, as are
 * those of runs that ended without recording them in history) and no worker polls the run's task queue. Start one for the run's agent; the run goes on from where it is.
 * Code `no_worker`.
 */
export class NoWorkerError extends DurableAgentError {
  /** The run's task queue. */
  readonly taskQueue: string;

  /**
   * @param options `ended`: the run has ended without recording its events in history (terminated, or ended before runs did): a worker replays it to answer.
   */
  constructor(workflowId: string, taskQueue: string, options?: { cause?: unknown; ended?: boolean }) {
    const which = options?.ended
      ? 'which ended without recording its events in history (terminated, or older than that)'
      : 'which is still running';
    super(
      'no_worker',
      `no worker polls task queue "${taskQueue}": the events of run "${workflowId}", ${which}, are read by a query a worker answers (start a worker for its agent)`,
      options,
    );
    this.taskQueue = taskQueue;
  }
}
