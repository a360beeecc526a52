/**
 * `createWorker` started while the Temporal server is down (a file-backed dev server of this file's own,
 * stopped before the worker starts): it keeps trying its first connection with backoff, one warning per
 * failed attempt naming the address, connects once the server is up a few seconds later, and runs a run.
 * With `connectTimeoutMs: 0` it gives up at once, as before.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { AgentClient } from '../../src/client';
import type { RestartableServer } from '../setup/restartable-server';
import { restartableServer } from '../setup/restartable-server';
import { FileBlobStore } from '../../src/integrations/store/blob-store';
import { createWorker } from '../../src/worker';
import { ScriptedAgents } from '../helpers/agents';

const S = new ScriptedAgents();
S.add('first_connect', [{ text: 'Connected late, answered anyway.' }]);

// This file's own runtime (not the harness's): its log lines are what the test reads.
const logged: string[] = [];
Runtime.install({ logger: new DefaultLogger('INFO', (entry) => logged.push(entry.message)) });

let server: RestartableServer;
beforeAll(async () => {
  const cliPath = inject('temporalCliPath');
  server = await restartableServer(cliPath ? { cli: { path: cliPath, source: 'path' } } : {});
  await server.stop();
});
afterAll(async () => {
  await server?.close();
});

describe('createWorker while Temporal is down', () => {
  it(
    'retries its first connection with backoff, logging each attempt with the address, and runs once the server is up',
    { timeout: 120_000 },
    async () => {
      const taskQueue = `first-connect-${randomUUID()}`;
      const creating = createWorker({
        agents: S.agents,
        providers: { scripted: S.provider },
        store: new FileBlobStore(mkdtempSync(join(tmpdir(), 'durable-agent-store-'))),
        encryption: false,
        address: server.address,
        taskQueue,
        workflowBundle: { codePath: inject('workflowBundlePath') },
        connectTimeoutMs: 60_000,
      });
      let settled = false;
      void creating.then(
        () => (settled = true),
        () => (settled = true),
      );
      await new Promise((r) => setTimeout(r, 4000));
      expect(settled).toBe(false); // still trying, not given up
      const retries = logged.filter((l) => l.includes(`cannot reach the Temporal server at ${server.address}`));
      expect(retries.length).toBeGreaterThanOrEqual(2);
      expect(retries[0]).toMatch(/attempt 1 failed.*retrying in [\d.]+ s/);

      await server.start();
      const worker = await creating;
      const running = worker.run();
      const connection = await Connection.connect({ address: server.address });
      try {
        const client = new AgentClient(new Client({ connection }), taskQueue);
        const run = await client.start('first_connect', { input: 'hello', workflowId: `first-connect-${randomUUID().slice(0, 8)}` });
        const result = await run.result();
        expect(result.status).toBe('success');
        expect(result.finalText).toBe('Connected late, answered anyway.');
        expect(logged.some((l) => l.includes(`connected to the Temporal server at ${server.address}`))).toBe(true);
      } finally {
        await worker.close();
        await running.catch(() => undefined);
        await connection.close();
      }
    },
  );

  it('gives up at once with connectTimeoutMs: 0', async () => {
    if (server.running) await server.stop();
    const started = Date.now();
    await expect(
      createWorker({
        agents: S.agents,
        providers: { scripted: S.provider },
        store: new FileBlobStore(mkdtempSync(join(tmpdir(), 'durable-agent-store-'))),
        encryption: false,
        address: server.address,
        taskQueue: `first-connect-${randomUUID()}`,
        workflowBundle: { codePath: inject('workflowBundlePath') },
        connectTimeoutMs: 0,
      }),
    ).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(5000);
  });
});
