/**
 * Objects in an S3-compatible bucket (AWS S3, MinIO, Cloudflare R2, GCS's S3 API), shared by workers on
 * any number of machines. Keys are `<prefix>/blobs/<name>` and `<prefix>/claims/<name>`. `create` is a
 * conditional PutObject (`If-None-Match: *`): the server refuses it with 412 when the key exists, so of
 * concurrent creators on any machine exactly one wins. Credentials come from the AWS SDK's standard chain
 * (environment, shared config/credentials files, SSO, instance roles), never from the store setting.
 */
import type * as S3Sdk from '@aws-sdk/client-s3';
import type { S3Client, S3ClientConfig } from '@aws-sdk/client-s3';
import { DurableAgentError } from '../../core/run/errors';
import { loadPeer, PEERS } from '../optional-peer';
import type { ObjectKind, ObjectStore } from './objects';

const BLOB_NAME = /^sha256-[0-9a-f]{64}$/;
const CLAIM_NAME = /^[0-9a-f]{64}$/;
/** Bucket names S3 accepts (3–63 of lowercase letters, digits, dots, hyphens; starting and ending alphanumeric). */
const BUCKET_NAME = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
/** How often `create` retries a conditional write refused with 409 (a concurrent conditional write in flight). */
const CONFLICT_RETRIES = 5;

/** The AWS SDK, loaded when the first S3 store is made: users of other stores never load it. */
function sdk(): typeof S3Sdk {
  return loadPeer<typeof S3Sdk>(PEERS.s3);
}

/** The HTTP status of an S3 service error, if `err` is one. */
function statusOf(err: unknown): number | undefined {
  return err instanceof sdk().S3ServiceException ? err.$metadata.httpStatusCode : undefined;
}

/** Where an {@link S3ObjectStore} keeps its objects and how it reaches them. No credentials here. */
export interface S3ObjectStoreOptions {
  /** The bucket; it must exist (the store never creates buckets). */
  bucket: string;
  /** Key prefix of every object (no leading or trailing `/`); default none. */
  prefix?: string;
  /** The S3 API's URL for a non-AWS server (MinIO, R2, GCS, a test server), e.g. `http://127.0.0.1:9000`. */
  endpoint?: string;
  /** The region; default the AWS chain's (`AWS_REGION`, the config file), else `us-east-1` when an endpoint is given. */
  region?: string;
  /** Address buckets as `endpoint/bucket/key` rather than `bucket.endpoint/key` (MinIO and most test servers need it). */
  forcePathStyle?: boolean;
  /** Extra client settings (credentials, retries, a request handler), merged over the ones above. */
  client?: Omit<S3ClientConfig, 'endpoint' | 'region' | 'forcePathStyle'>;
}

/**
 * An S3 store failure with what to do about it: a missing bucket, refused credentials, an unreachable
 * endpoint (code `invalid_config`, the setting cannot be used), or another failure (`storage_error`).
 */
export class S3StoreError extends DurableAgentError {}

/**
 * The S3-compatible backend. The client is created at once but connects on first use.
 *
 * @example
 * ```ts
 * const objects = new S3ObjectStore({ bucket: 'agents', prefix: 'prod', endpoint: 'http://minio:9000', forcePathStyle: true });
 * const store = new AgentStore(objects);
 * ```
 * @throws S3StoreError (`invalid_config`) for a malformed bucket name or endpoint.
 */
export class S3ObjectStore implements ObjectStore {
  readonly shared = true;
  /** `s3://bucket/prefix` (the endpoint and credentials are not part of it). */
  readonly location: string;
  readonly bucket: string;
  readonly prefix: string;
  private readonly endpoint: string | undefined;
  private readonly client: S3Client;
  private readonly sdk = sdk();

  constructor(options: S3ObjectStoreOptions) {
    if (!BUCKET_NAME.test(options.bucket)) {
      throw new S3StoreError(
        'invalid_config',
        `invalid S3 bucket name ${JSON.stringify(options.bucket)}: 3 to 63 lowercase letters, digits, dots or hyphens, e.g. s3://my-agents/prefix`,
      );
    }
    this.bucket = options.bucket;
    this.prefix = (options.prefix ?? '').replace(/^\/+|\/+$/g, '');
    if (options.endpoint !== undefined) {
      let url: URL;
      try {
        url = new URL(options.endpoint);
      } catch {
        throw new S3StoreError(
          'invalid_config',
          `invalid S3 endpoint ${JSON.stringify(options.endpoint)}: give a URL such as http://127.0.0.1:9000 or https://<account>.r2.cloudflarestorage.com`,
        );
      }
      if (url.protocol !== 'http:' && url.protocol !== 'https:') {
        throw new S3StoreError(
          'invalid_config',
          `invalid S3 endpoint ${JSON.stringify(options.endpoint)}: it must start with http:// or https://`,
        );
      }
      if (url.username || url.password) {
        throw new S3StoreError(
          'invalid_config',
          'the S3 endpoint must not carry credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or an AWS profile) instead',
        );
      }
      this.endpoint = url.origin + url.pathname.replace(/\/+$/, '');
    }
    this.location = `s3://${this.bucket}${this.prefix ? `/${this.prefix}` : ''}`;
    const region =
      options.region ?? (this.endpoint && !process.env.AWS_REGION && !process.env.AWS_DEFAULT_REGION ? 'us-east-1' : undefined);
    this.client = new this.sdk.S3Client({
      ...options.client,
      ...(this.endpoint ? { endpoint: this.endpoint } : {}),
      ...(region ? { region } : {}),
      ...(options.forcePathStyle !== undefined ? { forcePathStyle: options.forcePathStyle } : {}),
    });
  }

  /** The object key of a blob or claim, after checking the name is one the store makes. */
  key(kind: ObjectKind, name: string): string {
    if (kind === 'blob' ? !BLOB_NAME.test(name) : !CLAIM_NAME.test(name)) {
      throw new Error(`malformed ${kind === 'blob' ? 'blob ref' : 'claim name'}: ${JSON.stringify(name)}`);
    }
    return `${this.prefix ? `${this.prefix}/` : ''}${kind === 'blob' ? 'blobs' : 'claims'}/${name}`;
  }

  async read(kind: ObjectKind, name: string): Promise<Uint8Array | undefined> {
    const key = this.key(kind, name);
    try {
      const out = await this.client.send(new this.sdk.GetObjectCommand({ Bucket: this.bucket, Key: key }));
      if (!out.Body) return new Uint8Array();
      return await out.Body.transformToByteArray();
    } catch (err) {
      if (err instanceof this.sdk.S3ServiceException && err.name === 'NoSuchKey') return undefined;
      throw this.failure(err, `read ${key}`);
    }
  }

  async write(kind: ObjectKind, name: string, data: Uint8Array): Promise<void> {
    const key = this.key(kind, name);
    if (kind === 'blob') {
      // Equal names hold equal content: an existing blob needs no second upload.
      await this.putIfAbsent(key, data);
      return;
    }
    try {
      await this.client.send(new this.sdk.PutObjectCommand({ Bucket: this.bucket, Key: key, Body: data }));
    } catch (err) {
      throw this.failure(err, `write ${key}`);
    }
  }

  async create(kind: ObjectKind, name: string, data: Uint8Array): Promise<boolean> {
    return this.putIfAbsent(this.key(kind, name), data);
  }

  async remove(kind: ObjectKind, name: string): Promise<void> {
    const key = this.key(kind, name);
    try {
      await this.client.send(new this.sdk.DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
    } catch (err) {
      throw this.failure(err, `remove ${key}`);
    }
  }

  async close(): Promise<void> {
    this.client.destroy();
  }

  /** PutObject with `If-None-Match: *`: true if this call stored it, false if the key already existed. */
  private async putIfAbsent(key: string, data: Uint8Array): Promise<boolean> {
    for (let attempt = 0; ; attempt++) {
      try {
        await this.client.send(new this.sdk.PutObjectCommand({ Bucket: this.bucket, Key: key, Body: data, IfNoneMatch: '*' }));
        return true;
      } catch (err) {
        const status = statusOf(err);
        if (status === 412) return false;
        // AWS answers 409 ConditionalRequestConflict while another conditional write of the key is in flight: ask again.
        if (status === 409 && attempt < CONFLICT_RETRIES) {
          await new Promise((r) => setTimeout(r, 50 * 2 ** attempt));
          continue;
        }
        throw this.failure(err, `create ${key}`);
      }
    }
  }

  /** The error to throw for a failed request: what went wrong with this bucket and how to fix it. */
  private failure(err: unknown, what: string): Error {
    const where = `s3://${this.bucket}${this.endpoint ? ` at ${this.endpoint}` : ''}`;
    const name = err instanceof Error ? err.name : '';
    const status = statusOf(err);
    const code = (err as { code?: unknown }).code;
    const detail = err instanceof Error ? err.message : String(err);
    const fail = (c: 'invalid_config' | 'storage_error', message: string) => new S3StoreError(c, message, { cause: err });
    if (name === 'NoSuchBucket') {
      const endpointFlag = this.endpoint ? ` --endpoint-url ${this.endpoint}` : '';
      return fail(
        'invalid_config',
        `S3 bucket "${this.bucket}" does not exist (${where}): create it first, e.g. \`aws s3 mb s3://${this.bucket}${endpointFlag}\`, or fix the bucket name in the store setting`,
      );
    }
    if (
      name === 'AccessDenied' ||
      name === 'InvalidAccessKeyId' ||
      name === 'SignatureDoesNotMatch' ||
      name === 'Forbidden' ||
      status === 403
    ) {
      return fail(
        'invalid_config',
        `access to S3 bucket "${this.bucket}" denied (${where}, ${name || status}): check AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY or AWS_PROFILE, and that they may GetObject, PutObject and DeleteObject under ${this.prefix ? `${this.prefix}/` : 'the bucket'}`,
      );
    }
    if (name === 'CredentialsProviderError' || /could not load credentials/i.test(detail)) {
      return fail(
        'invalid_config',
        `no AWS credentials for S3 bucket "${this.bucket}": set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE (credentials never go in the store setting) — ${detail}`,
      );
    }
    if (/region is missing/i.test(detail)) {
      return fail(
        'invalid_config',
        `no AWS region for S3 bucket "${this.bucket}": add ?region=… to the s3:// store setting or set AWS_REGION`,
      );
    }
    if (typeof code === 'string' && /^(ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH)$/.test(code)) {
      return fail(
        'invalid_config',
        `cannot reach the S3 endpoint ${this.endpoint ?? '(AWS)'} for bucket "${this.bucket}" (${code}): check ?endpoint= in the store setting and that the server is up`,
      );
    }
    return fail('storage_error', `S3 ${what} failed (${where}): ${name ? `${name}: ` : ''}${detail}`);
  }
}
