/**
 * The PostgreSQL store on a real throwaway PostgreSQL server: the backend contract, the store setting,
 * two machines sharing one database, schema creation racing, clear errors, and an agent run on the dev
 * server whose worker keeps its conversation in PostgreSQL.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Client as PgClient } from 'pg';
import { loadTranscript } from '../../src/client/transcript';
import { AgentStore, blobRef } from '../../src/integrations/store/blob-store';
import { Keyring } from '../../src/integrations/encryption/keyring';
import { KeyringCipher } from '../../src/integrations/encryption/cipher';
import { StoreConfigError, objectStoreFor, openStore } from '../../src/integrations/store/open';
import { PostgresObjectStore, PostgresStoreError } from '../../src/integrations/store/postgres-objects';
import { ScriptedAgents } from '../helpers/agents';
import { installTestRuntime, startHarness, testId } from '../helpers/harness';
import { objectStoreContract } from '../helpers/object-store-contract';
import type { PostgresServer } from '../helpers/postgres';
import { describeWithPostgres, startPostgres } from '../helpers/postgres';
import { freePort } from '../../apps/cli/dev-server/processes';

/** A password with characters that must be percent-encoded in a URL. */
const AGENT_PASSWORD = 'p@ss:w/rd#7';
const bytes = (s: string) => new TextEncoder().encode(s);
const schemaName = () => `t_${randomUUID().replace(/-/g, '').slice(0, 12)}`;

const S = new ScriptedAgents();
S.add('pg_echo', [
  { text: 'Echoing.', toolCalls: [{ name: 'echo', args: { text: 'stored in postgres' } }] },
  { text: 'The echo said: stored in postgres.' },
]);

describeWithPostgres('PostgreSQL store', () => {
  let pg: PostgresServer;
  /** `postgres://agent:<password>@127.0.0.1:<port>/agents`: a non-superuser owning its database. */
  let agentUrl: string;
  const opened: PostgresObjectStore[] = [];
  const store = (url: string, options: ConstructorParameters<typeof PostgresObjectStore>[1] = {}) => {
    const s = new PostgresObjectStore(url, options);
    opened.push(s);
    return s;
  };

  beforeAll(async () => {
    installTestRuntime();
    pg = await startPostgres();
    const admin = new PgClient({ connectionString: pg.url });
    await admin.connect();
    try {
      await admin.query(`CREATE ROLE agent LOGIN PASSWORD '${AGENT_PASSWORD}'`);
      await admin.query('CREATE DATABASE agents OWNER agent');
    } finally {
      await admin.end();
    }
    agentUrl = `postgres://agent:${encodeURIComponent(AGENT_PASSWORD)}@127.0.0.1:${pg.port}/agents`;
  });

  afterAll(async () => {
    await Promise.all(opened.map((s) => s.close()));
    await pg?.stop();
  });

  objectStoreContract('PostgreSQL', async () => new PostgresObjectStore(agentUrl, { schema: schemaName() }));

  it('openStore(postgres://…) works as an AgentStore; its location names host, port and database, never the user or password', async () => {
    for (const scheme of ['postgres', 'postgresql']) {
      const url = agentUrl.replace(/^postgres/, scheme);
      const s = openStore(`${url}?schema=${schemaName()}&max=3`);
      try {
        expect(s.shared).toBe(true);
        expect(s.location).toBe(`postgres://127.0.0.1:${pg.port}/agents`);
        expect(s.location).not.toContain('agent:');
        const ref = await s.put('hello from a fleet');
        expect(await s.get(ref)).toBe('hello from a fleet');
      } finally {
        await s.objects.close();
      }
    }
  });

  it('connects through a unix socket given as ?host=<folder>', async () => {
    const s = store(`postgres:///agents?host=${encodeURIComponent(pg.socketDir)}&port=${pg.port}&user=agent&schema=${schemaName()}`);
    expect(s.location).toBe(`postgres://${encodeURIComponent(pg.socketDir)}:${pg.port}/agents`);
    expect(await s.create('claim', 'c'.repeat(64), bytes('over the socket'))).toBe(true);
    expect(new TextDecoder().decode(await s.read('claim', 'c'.repeat(64)))).toBe('over the socket');
  });

  it('survives the server ending its idle connections (restart, failover): the next operation reconnects', async () => {
    const s = store(agentUrl, { schema: schemaName() });
    await s.write('blob', blobRef('before'), bytes('before'));
    const admin = new PgClient({ connectionString: pg.url });
    await admin.connect();
    try {
      const ended = await admin.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = 'agent' AND pid <> pg_backend_pid()",
      );
      expect(ended.rowCount).toBeGreaterThan(0);
    } finally {
      await admin.end();
    }
    await new Promise((r) => setTimeout(r, 200)); // the pool hears of it (an 'error' on an idle client)
    expect(new TextDecoder().decode(await s.read('blob', blobRef('before')))).toBe('before');
  });

  it('keeps its rows in the table it names, in the schema it names (created on first use)', async () => {
    const schema = schemaName();
    const s = store(`${agentUrl}?schema=${schema}&table=objs`);
    await s.write('blob', blobRef('row'), bytes('row'));
    const admin = new PgClient({ connectionString: agentUrl });
    await admin.connect();
    try {
      const rows = await admin.query(`SELECT kind, name, convert_from(data, 'UTF8') AS data FROM "${schema}".objs`);
      expect(rows.rows).toEqual([{ kind: 'blob', name: blobRef('row'), data: 'row' }]);
    } finally {
      await admin.end();
    }
  });

  it('with encryption keys, the raw rows (blobs and claims) hold none of the content in clear', async () => {
    const schema = schemaName();
    const s = openStore(`${agentUrl}?schema=${schema}`, { cipher: new KeyringCipher(Keyring.parse(`k1:${Keyring.generateKey()}`)) });
    const secret = 'the customer card ends 4242';
    const admin = new PgClient({ connectionString: agentUrl });
    try {
      const ref = await s.put(`note: ${secret}`);
      expect(await s.claim('run-9/call-9', { attempt: 1, holder: 'w1' })).toMatchObject({ kind: 'claimed' });
      await s.settle('run-9/call-9', JSON.stringify({ output: secret }));
      expect(await s.get(ref)).toBe(`note: ${secret}`);
      await admin.connect();
      const rows = await admin.query<{ kind: string; data: Buffer }>(`SELECT kind, data FROM "${schema}".durable_agent_objects`);
      expect(rows.rows.map((r) => r.kind).sort()).toEqual(['blob', 'claim']);
      for (const row of rows.rows) expect(row.data.toString('latin1'), row.kind).not.toContain('4242');
    } finally {
      await admin.end();
      await s.close();
    }
  });

  it("two machines on one database see each other's blobs, and of their concurrent claims exactly one wins", async () => {
    const schema = schemaName();
    const a = new AgentStore(store(agentUrl, { schema }));
    const b = new AgentStore(store(agentUrl, { schema }));
    const ref = await a.put('written on machine A');
    expect(await b.get(ref)).toBe('written on machine A');
    const refB = await b.put('written on machine B');
    expect(await a.get(refB)).toBe('written on machine B');

    const takers = Array.from({ length: 12 }, (_, i) => (i % 2 ? a : b).claim('run-1/call-1', { attempt: i + 1, holder: `w${i}` }));
    const taken = await Promise.all(takers);
    expect(taken.filter((t) => t.kind === 'claimed')).toHaveLength(1);
    expect(taken.filter((t) => t.kind === 'in_doubt')).toHaveLength(11);
    await a.settle('run-1/call-1', '{"paid":true}');
    expect(await b.claim('run-1/call-1', { attempt: 13, holder: 'w13' })).toMatchObject({ kind: 'settled', result: '{"paid":true}' });
  });

  it('creating the schema and table from 5 stores at once succeeds (several workers starting together)', async () => {
    for (let round = 0; round < 4; round++) {
      const schema = schemaName();
      const stores = Array.from({ length: 5 }, () => store(agentUrl, { schema, max: 2 }));
      const created = await Promise.all(stores.map((s, i) => s.create('claim', 'a'.repeat(64), bytes(`store ${i}`))));
      expect(created.filter(Boolean)).toHaveLength(1);
    }
  });

  it('a malformed URL or option is a StoreConfigError that names the fix and not the password', () => {
    const bad = [
      `postgres://agent:${AGENT_PASSWORD}@127.0.0.1:99999/agents`,
      `${agentUrl}?max=0`,
      `${agentUrl}?schema=Robert'); DROP TABLE x;--`,
    ];
    for (const setting of bad) {
      let error: unknown;
      try {
        objectStoreFor(setting);
      } catch (err) {
        error = err;
      }
      expect(error, setting).toBeInstanceOf(StoreConfigError);
      const message = (error as Error).message;
      expect(message).not.toContain(AGENT_PASSWORD);
      expect(message).not.toContain(encodeURIComponent(AGENT_PASSWORD));
    }
    expect(() => objectStoreFor(`${agentUrl}?max=0`)).toThrow(/max.*positive whole number/);
    expect(() => objectStoreFor(`${agentUrl}?schema=Robert'); DROP TABLE x;--`)).toThrow(/not a plain identifier/);
    expect(() => objectStoreFor(`postgres://agent:${AGENT_PASSWORD}@127.0.0.1:99999/agents`)).toThrow(
      /postgres:\/\/user:password@host:5432\/database/,
    );
  });

  it('an unreachable server, a wrong password or a missing database: a clear storage error naming the server and the fix, never the password', async () => {
    const closedPort = await freePort();
    const unreachable = store(`postgres://agent:${encodeURIComponent(AGENT_PASSWORD)}@127.0.0.1:${closedPort}/agents`, {
      connectTimeoutMs: 3000,
    });
    const e1 = await unreachable.read('blob', blobRef('x')).catch((err: unknown) => err);
    expect(e1).toBeInstanceOf(PostgresStoreError);
    expect((e1 as PostgresStoreError).code).toBe('storage_error');
    expect((e1 as PostgresStoreError).reason).toBe('ECONNREFUSED');
    expect((e1 as Error).message).toMatch(
      new RegExp(
        `^PostgreSQL store postgres://127\\.0\\.0\\.1:${closedPort}/agents: cannot connect: .*ECONNREFUSED.*running and reachable`,
      ),
    );

    const wrong = store(`postgres://agent:not-the-${encodeURIComponent(AGENT_PASSWORD)}@127.0.0.1:${pg.port}/agents`);
    const e2 = await wrong.write('blob', blobRef('x'), bytes('x')).catch((err: unknown) => err);
    expect(e2).toBeInstanceOf(PostgresStoreError);
    expect((e2 as Error).message).toMatch(
      /cannot connect: password authentication failed for user "agent" \(28P01\): check the user and password/,
    );

    const nodb = store(`postgres://agent:${encodeURIComponent(AGENT_PASSWORD)}@127.0.0.1:${pg.port}/no_such_db`);
    const e3 = await nodb.create('claim', 'b'.repeat(64), bytes('x')).catch((err: unknown) => err);
    expect((e3 as Error).message).toMatch(/no_such_db.*does not exist \(3D000\): create the database/);

    for (const e of [e1, e2, e3]) {
      expect(JSON.stringify(e, Object.getOwnPropertyNames(e))).not.toContain(AGENT_PASSWORD); // nothing it carries
      expect((e as Error).message).not.toContain(AGENT_PASSWORD);
      expect((e as Error).message).not.toContain(encodeURIComponent(AGENT_PASSWORD));
      expect((e as Error).message).not.toContain('agent:');
    }
  });

  it('an agent run whose worker keeps the conversation in PostgreSQL: a second, fresh store over the database loads its transcript', async () => {
    const setting = `${agentUrl}?schema=${schemaName()}`;
    const workerStore = openStore(setting);
    const h = await startHarness({ agents: S.agents, providers: { scripted: S.provider }, store: workerStore });
    const client = h.client;
    try {
      const result = await (await client.start('pg_echo', { input: 'echo something', workflowId: testId('pg-run') })).result();
      expect(result.status, JSON.stringify(result.error)).toBe('success');
      expect(result.finalText).toBe('The echo said: stored in postgres.');

      const elsewhere = openStore(setting); // another machine: nothing in common with the worker but the database
      try {
        const transcript = await loadTranscript(elsewhere, result);
        const text = JSON.stringify(transcript);
        expect(transcript.length).toBeGreaterThanOrEqual(4);
        expect(text).toContain('echo something');
        expect(text).toContain('stored in postgres');
        expect(text).toContain('The echo said: stored in postgres.');
      } finally {
        await elsewhere.objects.close();
      }
    } finally {
      await h.stop();
      await workerStore.objects.close();
    }
  });
});
