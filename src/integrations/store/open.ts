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
import { S3ObjectStore, S3StoreError } from './s3-objects';

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
  if (scheme === 's3') return s3ObjectStore(spec);
  // Options in the query: ?schema=…&table=…&max=… (`pg` itself loads on the first operation).
  if (scheme === 'postgres' || scheme === 'postgresql') return new PostgresObjectStore(spec);
  throw new StoreConfigError(
    `unsupported store ${JSON.stringify(redact(spec))}: give a directory, file://…, memory:, postgres://user@host/db or s3://bucket/prefix?endpoint=…`,
  );
}

/** The query parameters an `s3://` setting accepts. */
const S3_PARAMS = ['endpoint', 'region', 'forcePathStyle'];

/**
 * `s3://bucket/prefix?endpoint=…&region=…&forcePathStyle=true`. `forcePathStyle` defaults to true when an
 * endpoint is given (MinIO and test servers need it). The AWS SDK loads only when such a store is made.
 */
function s3ObjectStore(spec: string): ObjectStore {
  const example = 's3://my-bucket/agents?endpoint=http://127.0.0.1:9000&region=us-east-1&forcePathStyle=true';
  let url: URL;
  try {
    url = new URL(spec);
  } catch {
    throw new StoreConfigError(`malformed S3 store setting ${JSON.stringify(redact(spec))}: expected ${example}`);
  }
  if (url.username || url.password) {
    throw new StoreConfigError(
      'an s3:// store setting must not carry credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or AWS_PROFILE) in the environment instead',
    );
  }
  const bucket = decodeURIComponent(url.hostname);
  if (!bucket)
    throw new StoreConfigError(
      `the S3 store setting ${JSON.stringify(redact(spec))} names no bucket: expected s3://<bucket>/<prefix>, e.g. ${example}`,
    );
  const unknown = [...url.searchParams.keys()].filter((k) => !S3_PARAMS.includes(k));
  if (unknown.length)
    throw new StoreConfigError(
      `unknown parameter ${unknown.map((k) => JSON.stringify(k)).join(', ')} in the S3 store setting: accepted are ${S3_PARAMS.join(', ')} (credentials come from the AWS environment, never the setting)`,
    );
  const endpoint = url.searchParams.get('endpoint') ?? undefined;
  const region = url.searchParams.get('region') ?? undefined;
  const pathStyle = url.searchParams.get('forcePathStyle');
  if (pathStyle !== null && !['true', 'false'].includes(pathStyle))
    throw new StoreConfigError(`forcePathStyle=${pathStyle} in the S3 store setting: give true or false`);
  if (endpoint === '')
    throw new StoreConfigError("endpoint= in the S3 store setting is empty: give the server's URL, e.g. endpoint=http://127.0.0.1:9000");
  if (region === '')
    throw new StoreConfigError('region= in the S3 store setting is empty: give a region such as us-east-1, or leave it out');
  try {
    return new S3ObjectStore({
      bucket,
      prefix: decodeURIComponent(url.pathname),
      ...(endpoint !== undefined ? { endpoint } : {}),
      ...(region !== undefined ? { region } : {}),
      forcePathStyle: pathStyle === null ? endpoint !== undefined : pathStyle === 'true',
    });
  } catch (err) {
    if (err instanceof S3StoreError) throw new StoreConfigError(err.message);
    throw err;
  }
}

/** Open the store a setting names (see {@link objectStoreFor}), sealed by `options.cipher` if given. */
export function openStore(setting: string, options: AgentStoreOptions = {}): AgentStore {
  return new AgentStore(objectStoreFor(setting), options);
}
