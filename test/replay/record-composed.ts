/**
 * Record the composed histories (`npx tsx test/replay/record-composed.ts [--force]`): a user's workflow
 * that runs an agent (test/fixtures/user-workflows.ts `orderWithAgentWorkflow`), on a plain Temporal
 * worker with the `durableAgents` plugin. The agent asks for an approval (decided by update), then the
 * user workflow waits for a signal and calls its own activity. Writes the parent's and the child's
 * histories to test/replay/composed/<workflowId>.json; existing files are kept unless `--force`.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { AgentClient } from '../../src/client';
import { durableAgentsClient } from '../../src/client/plugin';
import { startDevServer } from '../../apps/cli/dev-server/dev-server';
import { MemoryBlobStore } from '../../src/integrations/store/blob-store';
import { durableAgents } from '../../src/worker/plugin';
import { pluginApp, userActivities } from '../fixtures/plugin-app';
import { orderStateQuery, orderWithAgentWorkflow, proceedSignal } from '../fixtures/user-workflows';
import { leaks, RECORD_NAME, scrub } from './histories';

/** Folder of the composed histories. */
export const COMPOSED_DIR = join(__dirname, 'composed');
/** The user workflow's id (and file stem); its agent's is `<id>--guarded`. */
export const COMPOSED_ID = 'order_with_agent';

async function main(): Promise<void> {
  const force = process.argv.includes('--force');
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const env = await startDevServer({ log: (line) => console.error(line) });
  const scratch = mkdtempSync(join(tmpdir(), 'durable-agent-record-'));
  const native = await NativeConnection.connect({ address: env.address });
  const connection = await Connection.connect({ address: env.address });
  try {
    const { agents, providers } = pluginApp(scratch);
    const worker = await Worker.create({
      connection: native,
      taskQueue: RECORD_NAME,
      identity: RECORD_NAME,
      workflowsPath: join(__dirname, '..', 'fixtures', 'user-workflows.ts'),
      activities: userActivities(scratch),
      plugins: [durableAgents({ agents, providers, store: new MemoryBlobStore(), encryption: false })],
    });
    const temporal = new Client({ connection, identity: RECORD_NAME, plugins: [durableAgentsClient({ encryption: false })] });
    const client = new AgentClient(temporal, RECORD_NAME);
    const childId = `${COMPOSED_ID}--guarded`;
    await worker.runUntil(async () => {
      const order = await temporal.workflow.start(orderWithAgentWorkflow, {
        taskQueue: RECORD_NAME,
        workflowId: COMPOSED_ID,
        args: [{ agent: 'guarded', prompt: 'Refund order 7', childId }],
      });
      const child = client.get(childId);
      const pending = await until(
        () => child.pendingApprovals(),
        (p) => p.length > 0,
      );
      await child.decide({ callId: (pending[0] as { callId: string }).callId, decision: 'approve', by: 'ops:alice' });
      await until(
        () => order.query(orderStateQuery),
        (s) => s.stage === 'waiting',
      );
      await order.signal(proceedSignal, 'ops:bob');
      console.error(JSON.stringify(await order.result()));
      mkdirSync(COMPOSED_DIR, { recursive: true });
      for (const id of [COMPOSED_ID, childId]) {
        const file = join(COMPOSED_DIR, `${id}.json`);
        if (existsSync(file) && !force) {
          console.error(`kept ${file} (--force to overwrite)`);
          continue;
        }
        const json = scrub(JSON.parse(historyToJSON(await temporal.workflow.getHandle(id).fetchHistory())) as unknown);
        const leaked = leaks(json, resolve(__dirname, '..', '..'));
        if (leaked.length) throw new Error(`history of ${id} names this machine (${leaked.join(', ')}); not written`);
        writeFileSync(file, `${JSON.stringify(json, null, 1)}\n`);
        console.error(`wrote ${file}`);
      }
    });
  } finally {
    await connection.close();
    await native.close();
    await env.teardown();
    rmSync(scratch, { recursive: true, force: true });
  }
}

async function until<T>(probe: () => Promise<T>, ok: (v: T) => boolean): Promise<T> {
  for (let i = 0; i < 600; i++) {
    const v = await probe().catch(() => undefined); // e.g. the child not started yet
    if (v !== undefined && ok(v)) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('timed out');
}

if (require.main === module) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  });
}
