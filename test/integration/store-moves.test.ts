/**
 * A run moving to a worker whose store is empty (another machine, a lost disk): with the one-machine
 * default it ends `storage_error` with a message naming the fix; with a store both workers share it goes
 * on: a shared directory, a real PostgreSQL database (test/helpers/postgres.ts) and a real S3-compatible
 * bucket (moto, test/helpers/s3.ts), each worker with a store object of its own (as on two machines:
 * nothing in common but the database or bucket). For PostgreSQL and S3 the same move between two
 * workers whose settings differ (another schema, another prefix) ends `storage_error`: the run goes on
 * only because the store is shared. Workers run in this process, one after the other, on one task queue.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { defineTool } from '../../src/agents/define';
import { z } from 'zod';
import { ScriptedAgents } from '../helpers/agents';
import type { Harness } from '../helpers/harness';
import { startHarness, testId } from '../helpers/harness';
import { resultWithin, waitForPending } from '../helpers/events';
import type { PostgresServer } from '../helpers/postgres';
import { describeWithPostgres, startPostgres } from '../helpers/postgres';
import type { S3Server } from '../helpers/s3';
import { describeWithS3, startS3Server, TEST_S3_CREDENTIALS } from '../helpers/s3';
import type { AgentStore } from '../../src/integrations/store/blob-store';
import { openStore } from '../../src/integrations/store/open';

const guarded = defineTool({
  name: 'guarded',
  description: 'Do something once a person approves',
  input: z.object({ what: z.string() }),
  needsApproval: true,
  execute: ({ what }) => `did ${what}`,
});

const S = new ScriptedAgents();
const agent = S.add(
  'mover',
  [{ text: 'Asking first.', toolCalls: [{ name: 'guarded', args: { what: 'the thing' } }] }, { text: 'Done after approval.' }],
  { tools: [guarded] },
);

const harnesses: Harness[] = [];
/** Stores opened from a setting (PostgreSQL, S3): closed after each test, once its workers have stopped. */
const opened: AgentStore[] = [];
afterEach(async () => {
  await Promise.all(harnesses.splice(0).map((h) => h.stop().catch(() => undefined)));
  await Promise.all(opened.splice(0).map((s) => s.close().catch(() => undefined)));
});

/** A worker's store: files in a directory, or a store of its own opened from a setting (`postgres://…`, `s3://…`). */
type WorkerStore = string | { setting: string };

/** The harness option for `where`; a setting opens a new store object (another machine's), closed after the test. */
function storeOption(where: WorkerStore): { storeDir: string } | { store: AgentStore } {
  if (typeof where === 'string') return { storeDir: where };
  const store = openStore(where.setting);
  opened.push(store);
  return { store };
}

/** Start a run on a worker with store `first`, stop that worker while the run waits, go on with store `second`. */
async function moveMidRun(first: WorkerStore, second: WorkerStore) {
  const a = await startHarness({ agents: S.agents, providers: { scripted: S.provider }, ...storeOption(first) });
  harnesses.push(a);
  const run = await a.client.start(agent, { input: 'do it', workflowId: testId('mover') });
  const [pending] = await waitForPending(run);
  await a.stop();
  harnesses.splice(harnesses.indexOf(a), 1);
  const b = await startHarness({ agents: S.agents, providers: { scripted: S.provider }, ...storeOption(second), taskQueue: a.taskQueue });
  harnesses.push(b);
  const moved = b.client.get(run.workflowId);
  await moved.decide({ callId: pending?.callId ?? '', decision: 'approve', by: 'ops:test' });
  return resultWithin(moved, 30_000);
}

const dir = () => mkdtempSync(join(tmpdir(), 'durable-agent-store-'));

describe('a run moving to a worker with an empty store', () => {
  it('one-machine stores: ends storage_error, naming the missing blob and DURABLE_AGENT_STORE as the fix', async () => {
    const result = await moveMidRun(dir(), dir());
    expect(result.status).toBe('storage_error');
    expect(result.status !== 'success' && result.error.message).toMatch(/blob sha256-[0-9a-f]{64} not found/);
    expect(result.status !== 'success' && result.error.message).toContain('DURABLE_AGENT_STORE=postgres://');
  });

  it('a store both workers read: the run goes on and succeeds', async () => {
    const shared = dir();
    const result = await moveMidRun(shared, shared);
    expect(result.status).toBe('success');
    expect(result.finalText).toBe('Done after approval.');
  });
});

/** The storage_error a run ends with when the worker it moved to lacks its conversation. */
function expectMissingBlob(result: Awaited<ReturnType<typeof moveMidRun>>) {
  expect(result.status).toBe('storage_error');
  expect(result.status !== 'success' && result.error.message).toMatch(/blob sha256-[0-9a-f]{64} not found/);
}

describeWithPostgres('a run moving between workers on a real PostgreSQL store', () => {
  let pg: PostgresServer;
  const schema = () => `moves_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  beforeAll(async () => {
    pg = await startPostgres();
  });
  afterAll(async () => {
    await pg?.stop();
  });

  it('one database both workers use (each its own connection pool): the run goes on and succeeds', async () => {
    const setting = `${pg.url}?schema=${schema()}`;
    const result = await moveMidRun({ setting }, { setting });
    expect(result.status, JSON.stringify(result.status !== 'success' && result.error)).toBe('success');
    expect(result.finalText).toBe('Done after approval.');
  });

  it('the same move to a worker on another schema (a store not shared): storage_error', async () => {
    const result = await moveMidRun({ setting: `${pg.url}?schema=${schema()}` }, { setting: `${pg.url}?schema=${schema()}` });
    expectMissingBlob(result);
  });
});

describeWithS3('a run moving between workers on a real S3-compatible store', () => {
  let s3: S3Server;
  let bucket: string;
  const prefix = () => `moves-${randomUUID().slice(0, 8)}`;
  beforeAll(async () => {
    // Credentials from the environment, as users give them: the store setting never holds any.
    Object.assign(process.env, TEST_S3_CREDENTIALS);
    s3 = await startS3Server();
    bucket = await s3.createBucket('moves');
  });
  afterAll(async () => {
    await s3?.close();
  });

  it('one bucket and prefix both workers use (each its own S3 client): the run goes on and succeeds', async () => {
    const setting = s3.setting(bucket, prefix());
    const result = await moveMidRun({ setting }, { setting });
    expect(result.status, JSON.stringify(result.status !== 'success' && result.error)).toBe('success');
    expect(result.finalText).toBe('Done after approval.');
  });

  it('the same move to a worker on another prefix (a store not shared): storage_error', async () => {
    const result = await moveMidRun({ setting: s3.setting(bucket, prefix()) }, { setting: s3.setting(bucket, prefix()) });
    expectMissingBlob(result);
  });
});
