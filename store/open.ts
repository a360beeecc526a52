/**
 * One setting picks a worker's store: `DURABLE_AGENT_STORE` (or `createWorker({ store })`) holding a
 * directory path, `file://…`, `memory:`, `postgres://…` or `s3://bucket/prefix?…`.
 */
import { resolve } from 'node:path';
import type { AgentStoreOptions } from './blob-store';
import { AgentStore } from './blob-store';
import { StoreConfigError, redact } from './config-error';
import { FileObjectStore } from './file-objects';
import type { ObjectStore } from './objects';
import { MemoryObjectStore } from './objects';
import { PostgresObjectStore } from './postgres-objects';

/** The environment variable naming the worker's store. */
export const STORE_ENV = 'DURABLE_AGENT_STORE';

export { StoreConfigError, redact };

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
  // Options in the query: ?schema=…&table=…&max=… (`pg` itself loads on the first operation).
  if (scheme === 'postgres' || scheme === 'postgresql') return new PostgresObjectStore(spec);
  throw new StoreConfigError(`unsupported store ${JSON.stringify(redact(spec))}: give a directory, file://…, memory:, postgres://user@host/db or s3://bucket/prefix?endpoint=…`);
}

/** Open the store a setting names (see {@link objectStoreFor}), sealed by `options.cipher` if given. */
export function openStore(setting: string, options: AgentStoreOptions = {}): AgentStore {
  return new AgentStore(objectStoreFor(setting), options);
}
