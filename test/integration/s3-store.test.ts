/**
 * The S3 store against a real S3-compatible server (moto, from PyPI; test/helpers/s3.ts): the backend
 * contract, the `s3://` setting, two stores sharing a bucket (one claim winner), clear errors for a missing
 * bucket, an unreachable endpoint and refused credentials (the setting's own errors: test/unit/s3-setting.test.ts),
 * and a whole agent run on the real dev server whose worker keeps its conversation in S3, read back by a fresh store.
 */
import { randomUUID } from 'node:crypto';
import { freePort } from '../../apps/cli/dev-server/processes';
import { GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { Keyring } from '../../src/integrations/encryption/keyring';
import { KeyringCipher } from '../../src/integrations/encryption/cipher';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadTranscript } from '../../src/client/transcript';
import { isDurableAgentError } from '../../src/core/run/errors';
import { AgentStore, blobRef } from '../../src/integrations/store/blob-store';
import { objectStoreFor, openStore } from '../../src/integrations/store/open';
import { S3ObjectStore, S3StoreError } from '../../src/integrations/store/s3-objects';
import { ScriptedAgents } from '../helpers/agents';
import { startHarness, testId } from '../helpers/harness';
import { objectStoreContract } from '../helpers/object-store-contract';
import type { S3Server } from '../helpers/s3';
import { describeWithS3, startS3Server, TEST_S3_CREDENTIALS } from '../helpers/s3';

const S = new ScriptedAgents();
S.add('s3_agent', [
  {
    text: 'Looking it up.',
    toolCalls: [
      { name: 'echo', args: { text: 'kept in S3' } },
      { name: 'big', args: { kb: 300 } },
    ],
  },
  { text: 'The echo said: kept in S3.' },
]);

describeWithS3('S3 store (real S3-compatible server)', () => {
  let s3: S3Server;
  let bucket: string;

  beforeAll(async () => {
    // Credentials from the environment, as users give them: the store setting never holds any.
    Object.assign(process.env, TEST_S3_CREDENTIALS);
    s3 = await startS3Server();
    bucket = await s3.createBucket('agents');
  });
  afterAll(async () => {
    await s3?.close();
  });

  const prefix = () => `t-${randomUUID().slice(0, 8)}`;

  objectStoreContract('S3', async () => new S3ObjectStore({ bucket, prefix: prefix(), endpoint: s3.endpoint, forcePathStyle: true }));

  it('openStore("s3://bucket/prefix?endpoint=…") stores under <prefix>/blobs and <prefix>/claims; location names bucket and prefix only', async () => {
    const p = prefix();
    const objects = objectStoreFor(s3.setting(bucket, `${p}/nested`));
    expect(objects).toBeInstanceOf(S3ObjectStore);
    expect(objects.shared).toBe(true);
    expect(objects.location).toBe(`s3://${bucket}/${p}/nested`);
    const store = new AgentStore(objects);
    try {
      const ref = await store.put('stored through the setting');
      expect(await store.claim('run-1/call-1', { attempt: 1, holder: 'w1' })).toMatchObject({ kind: 'claimed' });
      const keys = await listKeys(p);
      expect(keys).toContain(`${p}/nested/blobs/${ref}`);
      expect(keys.filter((k) => k.startsWith(`${p}/nested/claims/`))).toHaveLength(1);
      expect(keys).toHaveLength(2);
    } finally {
      await store.close();
    }
  });

  it('with encryption keys, the raw objects (blobs and claims) hold none of the content in clear', async () => {
    const p = prefix();
    const store = openStore(s3.setting(bucket, p), { cipher: new KeyringCipher(Keyring.parse(`k1:${Keyring.generateKey()}`)) });
    const secret = 'the customer card ends 4242';
    try {
      const ref = await store.put(`note: ${secret}`);
      expect(await store.claim('run-9/call-9', { attempt: 1, holder: 'w1' })).toMatchObject({ kind: 'claimed' });
      await store.settle('run-9/call-9', JSON.stringify({ output: secret }));
      expect(await store.get(ref)).toBe(`note: ${secret}`);
      const raw = new S3Client({ endpoint: s3.endpoint, forcePathStyle: true });
      const keys = await listKeys(p);
      expect(keys).toHaveLength(2);
      for (const key of keys) {
        const body = await (await raw.send(new GetObjectCommand({ Bucket: bucket, Key: key }))).Body?.transformToByteArray();
        expect(Buffer.from(body ?? []).toString('latin1'), key).not.toContain('4242');
      }
      raw.destroy();
    } finally {
      await store.close();
    }
  });

  it("two stores over one bucket and prefix see each other's blobs, and of claims raced from both exactly one wins each", async () => {
    const setting = s3.setting(bucket, prefix());
    const a = openStore(setting);
    const b = openStore(setting);
    try {
      const ref = await a.put('written by machine A');
      expect(await b.get(ref)).toBe('written by machine A');
      const refB = await b.put('written by machine B');
      expect(await a.get(refB)).toBe('written by machine B');

      const keys = Array.from({ length: 8 }, (_, i) => `run-${i}/call-${i}`);
      const attempts = await Promise.all(
        keys.flatMap((key) =>
          [a, b, a, b].map((s, i) =>
            s.claim(key, { attempt: i + 1, holder: s === a ? 'machine-a' : 'machine-b' }).then((state) => ({ key, state })),
          ),
        ),
      );
      for (const key of keys) {
        const states = attempts.filter((t) => t.key === key).map((t) => t.state.kind);
        expect(
          states.filter((k) => k === 'claimed'),
          key,
        ).toHaveLength(1);
        expect(
          states.filter((k) => k === 'in_doubt'),
          key,
        ).toHaveLength(3);
      }
      await a.settle(keys[0]!, '"done"');
      expect(await b.claim(keys[0]!, { attempt: 9, holder: 'machine-b' })).toMatchObject({ kind: 'settled', result: '"done"' });
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('a bucket that does not exist: the error names it and how to create it', async () => {
    const store = openStore(s3.setting('no-such-bucket-here', 'p'));
    try {
      const err = await store.put('x').then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(S3StoreError);
      expect(isDurableAgentError(err, 'invalid_config')).toBe(true);
      expect((err as Error).message).toMatch(
        /S3 bucket "no-such-bucket-here" does not exist .*create it first, e.g. `aws s3 mb s3:\/\/no-such-bucket-here --endpoint-url http:\/\/127\.0\.0\.1:\d+`/,
      );
      await expect(store.get(blobRef('x'))).rejects.toThrow(/S3 bucket "no-such-bucket-here" does not exist/);
    } finally {
      await store.close();
    }
  });

  it('an endpoint nothing listens on: the error names the endpoint and says to check it', async () => {
    const closed = `http://127.0.0.1:${await closedPort()}`;
    const store = openStore(`s3://${bucket}/p?endpoint=${closed}`);
    try {
      const err = await store.put('x').then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(isDurableAgentError(err, 'invalid_config')).toBe(true);
      expect((err as Error).message).toContain(
        `cannot reach the S3 endpoint ${closed} for bucket "${bucket}" (ECONNREFUSED): check ?endpoint= in the store setting`,
      );
    } finally {
      await store.close();
    }
  });

  it('credentials the server refuses: the error says access was denied and where to set credentials', async () => {
    const refusing = await startS3Server({ refuseAll: true });
    const store = openStore(refusing.setting('agents', 'p'));
    try {
      const err = await store.put('x').then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(isDurableAgentError(err, 'invalid_config')).toBe(true);
      expect((err as Error).message).toMatch(
        /access to S3 bucket "agents" denied \(s3:\/\/agents at http:\/\/127\.0\.0\.1:\d+, InvalidAccessKeyId\): check AWS_ACCESS_KEY_ID \/ AWS_SECRET_ACCESS_KEY or AWS_PROFILE/,
      );
      expect((err as Error).message).not.toContain(TEST_S3_CREDENTIALS.AWS_SECRET_ACCESS_KEY);
    } finally {
      await store.close();
      await refusing.close();
    }
  });

  it("a whole agent run on the dev server with the worker's store in S3; a fresh store on the same bucket reads the transcript", async () => {
    const setting = s3.setting(bucket, prefix());
    const workerStore = openStore(setting);
    const h = await startHarness({ agents: S.agents, providers: { scripted: S.provider }, store: workerStore });
    try {
      const client = h.client;
      const run = await client.start('s3_agent', { input: 'What does the echo say?', workflowId: testId('s3-agent') });
      const result = await run.result();
      expect(result.status).toBe('success');
      expect(result.finalText).toBe('The echo said: kept in S3.');

      const reader = openStore(setting);
      try {
        const transcript = await loadTranscript(reader, result);
        const text = JSON.stringify(transcript);
        expect(transcript[0]).toMatchObject({ role: 'user' });
        expect(transcript.at(-1)).toMatchObject({ role: 'assistant' });
        expect(text).toContain('What does the echo say?');
        expect(text).toContain('kept in S3');
        expect(text).toContain('END-OF-BLOB!');
        expect(text).toContain('The echo said: kept in S3.');
      } finally {
        await reader.close();
      }
    } finally {
      await h.stop();
      await workerStore.close();
    }
  });

  async function listKeys(under: string): Promise<string[]> {
    const admin = new S3Client({ endpoint: s3.endpoint, forcePathStyle: true });
    try {
      const out = await admin.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: `${under}/` }));
      return (out.Contents ?? []).map((o) => o.Key ?? '');
    } finally {
      admin.destroy();
    }
  }
});

/** A port nothing listens on (taken from the OS, then released). */
const closedPort = freePort;
