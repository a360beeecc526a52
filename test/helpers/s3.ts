/**
 * A throwaway S3-compatible server for tests (moto's S3, one request at a time: see
 * server/s3-test-server.py) on a free port, holding everything in memory; buckets made per suite. Found as
 * `DURABLE_AGENT_S3_SERVER`, else the project-local install (`npm run setup:s3`), else a python3 on PATH
 * with moto[server]. Under CI (`CI=true`, set by `.ci/run`, which installs it) a missing server fails the
 * tests; elsewhere they are skipped with a warning saying what to install.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { describeNeeding } from './component';
import { findS3Server, S3_INSTALL_HINT } from '../../scripts/s3-test-server';
import { freePort, terminate, watchChild } from '../../apps/cli/dev-server/processes';

/** Credentials the test server accepts (any will do); tests put them in the environment, as users would. */
export const TEST_S3_CREDENTIALS = {
  AWS_ACCESS_KEY_ID: 'durable-agent-test',
  AWS_SECRET_ACCESS_KEY: 'durable-agent-test-secret',
  AWS_REGION: 'us-east-1',
} as const;

/**
 * `describe(name, fn)` when an S3 test server is there. Otherwise, under CI, a suite whose one test fails
 * naming what is missing; locally, a skipped suite and a warning saying what to install.
 */
export function describeWithS3(name: string, fn: () => void): void {
  let missing: string | undefined;
  try {
    if (!findS3Server()) missing = `no S3 test server found — ${S3_INSTALL_HINT}`;
  } catch (err) {
    missing = (err as Error).message;
  }
  describeNeeding(name, 'an S3-compatible test server', missing, fn);
}

/** A running throwaway S3 server. */
export interface S3Server {
  /** `http://127.0.0.1:<port>` */
  readonly endpoint: string;
  readonly port: number;
  /** Create a bucket with a fresh name (`prefix-<random>`) and return its name. */
  createBucket(prefix?: string): Promise<string>;
  /** `s3://bucket/prefix?endpoint=…&forcePathStyle=true`: a store setting for this server. */
  setting(bucket: string, prefix: string): string;
  /** Stop the server (its data goes with it). */
  close(): Promise<void>;
}

/** How to start the test server. */
export interface S3ServerOptions {
  /** Check credentials: the server knows none, so every request is refused (moto's `INITIAL_NO_AUTH_ACTION_COUNT=0`). */
  refuseAll?: boolean;
}

/**
 * Start the S3 test server on a free port of 127.0.0.1 and wait until it answers HTTP.
 *
 * @throws when there is no server, it exits at once, or it does not answer within 30 s (with its output).
 */
export async function startS3Server(options: S3ServerOptions = {}): Promise<S3Server> {
  const found = findS3Server();
  if (!found) throw new Error(`no S3 test server found: ${S3_INSTALL_HINT}`);
  const port = await freePort();
  const endpoint = `http://127.0.0.1:${port}`;
  const child = spawn(found.command, [...found.args, '-H', '127.0.0.1', '-p', String(port)], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...(options.refuseAll ? { INITIAL_NO_AUTH_ACTION_COUNT: '0' } : {}) },
  });
  const watched = watchChild(child);
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (watched.exited()) throw new Error(`S3 test server (${found.command}) on port ${port} ${watched.exited()}:\n${watched.output()}`);
    if (await answers(endpoint)) break;
    if (Date.now() > deadline) {
      await terminate(child);
      throw new Error(`S3 test server (${found.command}) on port ${port} did not answer within 30 s:\n${watched.output()}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  const admin = new S3Client({
    endpoint,
    region: TEST_S3_CREDENTIALS.AWS_REGION,
    forcePathStyle: true,
    credentials: { accessKeyId: TEST_S3_CREDENTIALS.AWS_ACCESS_KEY_ID, secretAccessKey: TEST_S3_CREDENTIALS.AWS_SECRET_ACCESS_KEY },
  });
  return {
    endpoint,
    port,
    async createBucket(prefix = 'test') {
      const bucket = `${prefix}-${randomUUID().slice(0, 8)}`;
      await admin.send(new CreateBucketCommand({ Bucket: bucket }));
      return bucket;
    },
    setting(bucket, prefix) {
      return `s3://${bucket}/${prefix}?endpoint=${encodeURIComponent(endpoint)}&forcePathStyle=true`;
    },
    async close() {
      admin.destroy();
      await terminate(child);
    },
  };
}

async function answers(endpoint: string): Promise<boolean> {
  try {
    await fetch(endpoint, { signal: AbortSignal.timeout(2000) });
    return true;
  } catch {
    return false;
  }
}
