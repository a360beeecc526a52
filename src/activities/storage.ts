/** Blob-store failures as Temporal failures the workflow recognises: they end a run `storage_error`. */
import { ApplicationFailure } from '@temporalio/common';
import type { StorageFailureDetails } from '../core/run/contract';
import { STORAGE_ERROR } from '../core/run/contract';
import { BlobNotFoundError } from '../integrations/store/blob-store';
import { errorMessage } from './heartbeat';

/** How to fix a worker whose store lacks a run's content. */
export const SHARED_STORE_HINT =
  'Every worker of a run must read the same store: set DURABLE_AGENT_STORE=postgres://user:pass@host/db or s3://bucket/prefix ' +
  'on every worker (or createWorker({ store })), or keep all workers on one machine with the same DURABLE_AGENT_HOME.';

/**
 * A non-retryable `StorageError` failure for an error the blob store raised while doing `what`
 * (e.g. "load the transcript"). A missing blob names the blob and how to fix the worker.
 */
export function storageFailure(err: unknown, what: string): ApplicationFailure {
  const missing = err instanceof BlobNotFoundError;
  const details: StorageFailureDetails = { storage: true, ...(missing ? { ref: err.ref } : {}) };
  const message = missing
    ? `This worker could not ${what}: ${errorMessage(err)}. ${SHARED_STORE_HINT}`
    : `This worker could not ${what}: the blob store failed: ${errorMessage(err)}`;
  return ApplicationFailure.create({
    message,
    type: STORAGE_ERROR,
    nonRetryable: true,
    details: [details],
    ...(err instanceof Error ? { cause: err } : {}),
  });
}

/** Run a blob-store operation; its failure becomes {@link storageFailure}. */
export async function withStore<T>(what: string, op: () => Promise<T>): Promise<T> {
  try {
    return await op();
  } catch (err) {
    throw storageFailure(err, what);
  }
}
