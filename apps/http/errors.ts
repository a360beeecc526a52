/**
 * Errors of the HTTP API and how every failure becomes a JSON response: `{ error: { code, message, field? } }`
 * with a 4xx status for what the caller can fix and 500 (with a generic message) for the rest.
 */
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import {
  ApprovalRefusedError,
  MessageRefusedError,
  NoWorkerError,
  RunEndedError,
  RunFilterError,
  RuleChangeRefusedError,
  RunNotFoundError,
} from '../../src/entry/client';
import { isDurableAgentError } from '../../src/entry/client';
import { PolicyError } from '../../src/entry/client';

/** Stable codes of the API's errors. */
export type HttpErrorCode =
  | 'unauthorized'
  | 'forbidden'
  | 'invalid_json'
  | 'invalid_request'
  | 'not_found'
  | 'run_not_found'
  | 'run_ended'
  | 'run_exists'
  | 'no_worker'
  | 'approval_refused'
  | 'message_refused'
  | 'rule_refused'
  | 'rule_conflict'
  | 'internal';

/** The body of every error response. */
export interface HttpErrorBody {
  error: {
    code: HttpErrorCode;
    message: string;
    /** The request field that was wrong (a body field, a query parameter, `id`, `callId`, `after`, `Last-Event-ID`, `Authorization`). */
    field?: string;
    /** `run_ended`: how the run ended (`completed`, `failed`, `cancelled`, `terminated`, ...). */
    status?: string;
  };
  /** On a 403 `forbidden`: the permission the caller's token lacks (`read`, `start`, `cancel`, `admin`, …). */
  missing?: string;
}

/** A failure the API reports as is: its status, code, message and, when one field is at fault, that field. */
export class HttpError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    readonly code: HttpErrorCode,
    message: string,
    readonly field?: string,
    /** The permission the caller lacks (a 403 `forbidden`). */
    readonly missing?: string,
    /** `run_ended`: how the run ended. */
    readonly runStatus?: string,
  ) {
    super(message);
    this.name = 'HttpError';
  }

  /** The JSON body of this error. */
  body(): HttpErrorBody {
    return {
      error: {
        code: this.code,
        message: this.message,
        ...(this.field !== undefined ? { field: this.field } : {}),
        ...(this.runStatus !== undefined ? { status: this.runStatus } : {}),
      },
      ...(this.missing !== undefined ? { missing: this.missing } : {}),
    };
  }
}

/**
 * The API error for any failure: an {@link HttpError} as is; the client's refusals and "not found" with
 * their own status; a malformed request the client library refused as 400; anything else as 500, whose
 * message says nothing of the internals.
 */
export function toHttpError(err: unknown): HttpError {
  if (err instanceof HttpError) return err;
  if (err instanceof RunNotFoundError) return new HttpError(404, 'run_not_found', err.message, 'id');
  if (err instanceof RunEndedError) return new HttpError(409, 'run_ended', err.message, 'id', undefined, err.status);
  if (err instanceof NoWorkerError) return new HttpError(503, 'no_worker', err.message);
  if (err instanceof ApprovalRefusedError) return new HttpError(403, 'approval_refused', err.message);
  if (err instanceof MessageRefusedError) return new HttpError(409, 'message_refused', err.message);
  if (err instanceof RuleChangeRefusedError) {
    if (err.reason === 'forbidden') return new HttpError(403, 'rule_refused', err.message);
    if (err.reason === 'conflict') return new HttpError(409, 'rule_conflict', err.message, 'expectedVersion');
    return new HttpError(400, 'invalid_request', err.message);
  }
  if (err instanceof WorkflowExecutionAlreadyStartedError) {
    return new HttpError(409, 'run_exists', `a run with workflow id "${err.workflowId}" is already running`, 'workflowId');
  }
  if (err instanceof RunFilterError) return new HttpError(400, 'invalid_request', err.message, err.field);
  if (err instanceof PolicyError) return new HttpError(400, 'invalid_request', err.message, `policy.${err.key}`);
  if (isDurableAgentError(err, 'invalid_input')) return new HttpError(400, 'invalid_request', err.message);
  return new HttpError(500, 'internal', 'internal error: the server could not complete the request (see its log)');
}
