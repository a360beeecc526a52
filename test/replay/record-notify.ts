/**
 * Record the history of a run that sent approval notifications (`npx tsx test/replay/record-notify.ts`,
 * `--force` to overwrite): its own dev server and recorder worker, whose `notifications` option names two
 * webhooks on a local HTTP server — `ok` takes every notification, `broken` refuses them (HTTP 400, not
 * retried) — so the run delivers one notify activity and fails the other (`notification_failed`), then is
 * approved by update and ends. Writes test/replay/histories/notify_failed.json (the replay test replays it).
 */
import { existsSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { startDevServer } from '../../apps/cli/dev-server/dev-server';
import { AgentClient } from '../../src/client';
import { MemoryBlobStore } from '../../src/integrations/store/blob-store';
import { createWorker } from '../../src/worker';
import { ScriptedAgents } from '../helpers/agents';
import { deploy } from '../helpers/tools';
import { HISTORIES_DIR, RECORD_NAME, leaks, missingCoverage, scrub } from './histories';

const NAME = 'notify_failed';
/** What the history must hold: the notification patch, the deliveries (one failed), the decision by update and its search attribute (who decided). */
const COVERS = [
  'patch:approval-notifications',
  'patch:audit-search-attributes',
  'ACTIVITY_TASK_FAILED',
  'WORKFLOW_EXECUTION_UPDATE_ACCEPTED',
];

async function main(): Promise<void> {
  const root = resolve(__dirname, '..', '..');
  const file = join(HISTORIES_DIR, `${NAME}.json`);
  if (existsSync(file) && !process.argv.includes('--force')) throw new Error(`would overwrite ${file}; use --force`);
  const hooks = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(req.url === '/ok' ? 204 : 400).end());
  });
  await new Promise<void>((r) => hooks.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(hooks.address() as AddressInfo).port}`;
  const secret = `whsec_${Buffer.from('replay recording secret, 32 byte').toString('base64')}`;
  const agents = new ScriptedAgents();
  agents.add(NAME, [{ toolCalls: [{ name: 'deploy', args: { service: 'api' } }] }, { text: 'deployed' }], { tools: [deploy] });

  Runtime.install({ logger: new DefaultLogger('WARN') });
  const env = await startDevServer({ log: (line) => console.error(line) });
  try {
    const native = await NativeConnection.connect({ address: env.address });
    const worker = await createWorker({
      agents: agents.agents,
      providers: { scripted: agents.provider },
      store: new MemoryBlobStore(),
      connection: native,
      taskQueue: RECORD_NAME,
      temporal: { identity: RECORD_NAME },
      notifications: {
        webhooks: [
          { name: 'ok', url: `${base}/ok`, secret, events: ['approval.requested', 'approval.decided'] },
          { name: 'broken', url: `${base}/broken`, secret, events: ['approval.requested'] },
        ],
        retry: { maximumAttempts: 1 },
      },
    });
    const connection = await Connection.connect({ address: env.address });
    const client = new AgentClient(new Client({ connection, identity: RECORD_NAME }), RECORD_NAME);
    await worker.runUntil(async () => {
      const run = await client.start(NAME, { input: 'deploy the api', workflowId: NAME });
      for (let i = 0; ; i++) {
        const failed = (await run.readEvents(0)).events.some((e) => e.type === 'notification_failed');
        if (failed && (await run.pendingApprovals()).length) break;
        if (i > 300) throw new Error(`${NAME}: no failed notification and pending approval`);
        await new Promise((r) => setTimeout(r, 100));
      }
      await run.decide({ callId: 'call_1_0', decision: 'approve', by: 'ops:alice' });
      const result = await run.result();
      if (result.status !== 'success') throw new Error(`${NAME}: ended ${result.status}`);
      // The decision's notification is delivered before the recording ends (a run may close with it in flight).
      await new Promise((r) => setTimeout(r, 1000));
      const json = scrub(JSON.parse(historyToJSON(await run.handle.fetchHistory())) as unknown);
      const found = leaks(json, root);
      if (found.length) throw new Error(`${NAME}: history contains machine-specific strings: ${found.join(', ')}`);
      if (JSON.stringify(json).includes(base)) throw new Error(`${NAME}: history contains a webhook URL`);
      const uncovered = missingCoverage(json, COVERS);
      if (uncovered.length) throw new Error(`${NAME}: history lacks ${uncovered.join(', ')}`);
      const text = `${JSON.stringify(json, null, 1)}\n`;
      writeFileSync(file, text);
      console.log(
        `${NAME}: ${(json as { events: unknown[] }).events.length} events, ${text.length} bytes -> ${file.slice(root.length + 1)}`,
      );
    });
    await connection.close();
    await native.close();
  } finally {
    hooks.close();
    await env.teardown();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
