/** Turning any failure into the one line the CLI prints on stderr. */
import type { WorkflowFailedError } from '@temporalio/client';
import type * as TemporalClient from '@temporalio/client';
import type * as TemporalCommon from '@temporalio/common';

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

/*
 * Temporal's classes are loaded only to describe one of their errors, so that importing this module (as
 * every command does) loads nothing heavy.
 */
/* eslint-disable @typescript-eslint/no-require-imports -- see above */
const temporalClient = () => require('@temporalio/client') as typeof TemporalClient;
const temporalCommon = () => require('@temporalio/common') as typeof TemporalCommon;
/* eslint-enable @typescript-eslint/no-require-imports */

function failureMessage(err: WorkflowFailedError): string {
  const { ApplicationFailure, TerminatedFailure, TimeoutFailure } = temporalCommon();
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
  if (!(err instanceof Error)) return oneLine(String(err));
  if (!err.name.startsWith('Workflow')) return oneLine(err.message || err.name);
  const { WorkflowFailedError, WorkflowNotFoundError } = temporalClient();
  if (err instanceof WorkflowNotFoundError) return `no run with workflow id "${err.workflowId}"`;
  if (err instanceof WorkflowFailedError) return oneLine(failureMessage(err));
  return oneLine(err.message || err.name);
}
