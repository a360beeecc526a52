/** Turning any failure into the one line the CLI prints on stderr. */
import { WorkflowFailedError, WorkflowNotFoundError } from '@temporalio/client';
import { ApplicationFailure, TerminatedFailure, TimeoutFailure } from '@temporalio/common';

/** A failure with a message meant for the user, printed as `error: <message>`. */
export class CliError extends Error {
  readonly exitCode: number;
  constructor(message: string, exitCode = 1) {
    super(message);
    this.name = 'CliError';
    this.exitCode = exitCode;
  }
}

/** `text` on one line: lines trimmed and joined with spaces. */
export function oneLine(text: string): string {
  return text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean)
    .join(' ');
}

function failureMessage(err: WorkflowFailedError): string {
  const cause = err.cause;
  if (cause instanceof ApplicationFailure) {
    if (cause.type === 'UnknownAgent' || cause.type === 'InvalidInput') return cause.message;
    return `the run failed: ${cause.message}${cause.type ? ` (${cause.type})` : ''}`;
  }
  if (cause instanceof TerminatedFailure) return 'the run was terminated';
  if (cause instanceof TimeoutFailure) return 'the run timed out';
  return `the run failed: ${cause?.message ?? err.message}`;
}

/** The message of `err` for the user, on one line. */
export function errorMessage(err: unknown): string {
  if (err instanceof WorkflowNotFoundError) return `no run with workflow id "${err.workflowId}"`;
  if (err instanceof WorkflowFailedError) return oneLine(failureMessage(err));
  if (err instanceof Error) return oneLine(err.message || err.name);
  return oneLine(String(err));
}
