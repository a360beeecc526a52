/**
 * The `s3://` store setting, without a server: what it accepts, what it refuses and how it says so, and
 * that `@aws-sdk/client-s3` loads only when an S3 store is made (the S3 behaviour itself is tested
 * against a real server in test/integration/s3-store.test.ts).
 */
import { execFile } from 'node:child_process';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { isDurableAgentError } from '../../src/core/run/errors';
import { objectStoreFor, StoreConfigError } from '../../src/integrations/store/open';
import { S3ObjectStore } from '../../src/integrations/store/s3-objects';

const ROOT = resolve(__dirname, '..', '..');

function refused(setting: string): string {
  try {
    objectStoreFor(setting);
  } catch (err) {
    expect(err).toBeInstanceOf(StoreConfigError);
    expect(isDurableAgentError(err, 'invalid_config')).toBe(true);
    return (err as Error).message;
  }
  throw new Error(`accepted ${setting}`);
}

describe('the s3:// store setting', () => {
  it('gives an S3 store over bucket and prefix, whose location names no endpoint or secret', async () => {
    const store = objectStoreFor('s3://my-agents/prod/eu?endpoint=http://127.0.0.1:9000&region=eu-west-1&forcePathStyle=true');
    try {
      expect(store).toBeInstanceOf(S3ObjectStore);
      expect(store.shared).toBe(true);
      expect(store.location).toBe('s3://my-agents/prod/eu');
      const s3 = store as S3ObjectStore;
      expect(s3.key('blob', `sha256-${'a'.repeat(64)}`)).toBe(`prod/eu/blobs/sha256-${'a'.repeat(64)}`);
      expect(s3.key('claim', 'b'.repeat(64))).toBe(`prod/eu/claims/${'b'.repeat(64)}`);
      expect(() => s3.key('blob', '../../etc')).toThrow(/malformed blob ref/);
    } finally {
      await store.close();
    }
    const bare = objectStoreFor('s3://my-agents');
    expect(bare.location).toBe('s3://my-agents');
    expect((bare as S3ObjectStore).key('claim', 'c'.repeat(64))).toBe(`claims/${'c'.repeat(64)}`);
    await bare.close();
  });

  it('refuses a setting without a bucket, with a bad bucket name, endpoint, parameter or credentials, naming the fix', () => {
    expect(refused('s3://')).toMatch(/names no bucket: expected s3:\/\/<bucket>\/<prefix>/);
    expect(refused('s3:///prefix')).toMatch(/names no bucket/);
    expect(refused('s3://Bad_Bucket/p')).toMatch(/invalid S3 bucket name "Bad_Bucket": 3 to 63 lowercase letters/);
    expect(refused('s3://bucket/p?endpoint=not-a-url')).toMatch(/invalid S3 endpoint "not-a-url": give a URL such as http:\/\//);
    expect(refused('s3://bucket/p?endpoint=ftp://host')).toMatch(/must start with http:\/\/ or https:\/\//);
    expect(refused('s3://bucket/p?endpoint=')).toMatch(/endpoint= in the S3 store setting is empty/);
    expect(refused('s3://bucket/p?endpoint=http://user:pw@host:9000')).toMatch(/endpoint must not carry credentials/);
    const withKeys = refused('s3://AKIAEXAMPLE:hunter2@bucket/p');
    expect(withKeys).toMatch(/must not carry credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY/);
    expect(withKeys).not.toMatch(/hunter2/);
    expect(refused('s3://bucket/p?secretAccessKey=x')).toMatch(
      /unknown parameter "secretAccessKey" .*accepted are endpoint, region, forcePathStyle/,
    );
    expect(refused('s3://bucket/p?forcePathStyle=yes')).toMatch(/forcePathStyle=yes .*give true or false/);
  });

  it('does not load @aws-sdk/client-s3 until an S3 store is made', async () => {
    const script = `
      const loaded = () => Object.keys(require.cache).some((k) => k.includes('/node_modules/@aws-sdk/client-s3/'));
      const open = require(${JSON.stringify(join(ROOT, 'src', 'integrations', 'store', 'open.ts'))});
      open.objectStoreFor('memory:');
      const before = loaded();
      open.objectStoreFor('s3://bucket/prefix');
      process.stdout.write(JSON.stringify({ before, after: loaded() }));
    `;
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '-e', script], { cwd: ROOT, timeout: 60_000 });
    expect(JSON.parse(stdout)).toEqual({ before: false, after: true });
  });
});
