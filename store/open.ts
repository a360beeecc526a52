/**
 * One setting picks a worker's store: `DURABLE_AGENT_STORE` (or `createWorker({ store })`) holding a
 * directory path, `file://…`, `memory:`, `postgres://…` or `s3://bucket/prefix?…`.
 */
import { resolve } from 'node:path';
import { DurableAgentError } from '../core/errors';
import type { AgentStoreOptions } from './blob-store';
import { AgentStore } from './blob-store';
import { FileObjectStore } from './file-objects';
import type { ObjectStore } from './objects';
import { MemoryObjectStore } from './objects';

/** The environment variable naming the worker's store. */
export const STORE_ENV = 'DURABLE_AGENT_STORE';

/** A store setting that cannot be used (code `invalid_config`). */
export class StoreConfigError extends DurableAgentError {
  constructor(message: string) {
    super('invalid_config', message);
  }
}

/**
 * The backend a store setting names, not yet connected (backends connect on first use).
 *
 * @throws StoreConfigError for a setting it cannot use, naming the accepted forms.
 */
export function objectStoreFor(setting: string): ObjectStore {
  const spec = setting.trim();
  if (!spec) throw new StoreConfigError(`${STORE_ENV} is empty: give a directory, postgres://user@host/db or s3://bucket/prefix`);
  if (spec === 'memory:') return new MemoryObjectStore();
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(spec)?.[1]?.toLowerCase();
  if (scheme === undefined) return new FileObjectStore(resolve(spec));
  if (scheme === 'file') return new FileObjectStore(decodeURIComponent(new URL(spec).pathname));
  throw new StoreConfigError(`unsupported store ${JSON.stringify(redact(spec))}: give a directory, file://…, memory:, postgres://user@host/db or s3://bucket/prefix?endpoint=…`);
}

/** Open the store a setting names (see {@link objectStoreFor}), sealed by `options.cipher` if given. */
export function openStore(setting: string, options: AgentStoreOptions = {}): AgentStore {
  return new AgentStore(objectStoreFor(setting), options);
}

/** A store setting with any password removed, for messages. */
export function redact(setting: string): string {
  return setting.replace(/\/\/([^/@:]*):[^/@]*@/, '//$1:***@').replace(/([?&](?:secret|password|key)[^=]*=)[^&]*/gi, '$1***');
}
