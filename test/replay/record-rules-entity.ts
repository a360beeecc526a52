/**
 * Record the rules entity's history the replay test replays (`tsx test/replay/record-rules-entity.ts`):
 * a throwaway dev server and an in-process worker with editors; puts (an agent rule pushed to a waiting
 * run, a namespace rule that expires), a refused put, a change of editors, a remove; then the entity's
 * history goes to test/replay/rules-entity/rules_entity.json (`--force` to overwrite).
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { startDevServer } from '../../apps/cli/dev-server/dev-server';
import { AgentClient } from '../../src/client';
import { RULES_WORKFLOW_ID } from '../../src/core/approvals/rules';
import { MemoryBlobStore } from '../../src/integrations/store/blob-store';
import { createWorker } from '../../src/worker';
import { ScriptedAgents } from '../helpers/agents';
import { deploy } from '../helpers/tools';
import { RECORD_NAME, leaks, missingCoverage, scrub } from './histories';
import { RULES_ENTITY_COVERS, RULES_ENTITY_DIR } from './rules-entity-covers';

const agents = new ScriptedAgents();
agents.add('rules_push', [{ toolCalls: [{ name: 'deploy', args: { service: 'api' } }] }, { text: 'done' }], { tools: [deploy] });

async function main(): Promise<void> {
  const file = join(RULES_ENTITY_DIR, 'rules_entity.json');
  if (existsSync(file) && !process.argv.includes('--force')) throw new Error(`would overwrite ${file}; use --force`);
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const env = await startDevServer({ log: (line) => console.error(line) });
  try {
    const nativeConnection = await NativeConnection.connect({ address: env.address });
    const worker = await createWorker({
      agents: agents.agents,
      providers: { scripted: agents.provider },
      store: new MemoryBlobStore(),
      connection: nativeConnection,
      taskQueue: RECORD_NAME,
      temporal: { identity: RECORD_NAME },
      approvalRules: { editors: ['ops:alice'] },
    });
    const connection = await Connection.connect({ address: env.address });
    const client = new AgentClient(new Client({ connection, identity: RECORD_NAME }), RECORD_NAME);
    await worker.runUntil(async () => {
      const run = await client.start('rules_push', { input: 'deploy', workflowId: 'rules-push-run' });
      for (let i = 0; !(await run.pendingApprovals()).length; i++) {
        if (i > 100) throw new Error('the run never asked');
        await new Promise((r) => setTimeout(r, 100));
      }
      const by = { by: 'ops:alice', path: 'sdk' as const };
      const put = await client.rules.put({ scope: 'agent', agent: 'rules_push', tool: 'deploy', action: 'ask' }, { ...by, reason: 'ask' });
      await client.rules.put({ scope: 'namespace', tool: '*', action: 'deny', until: new Date(Date.now() + 2000).toISOString() }, by);
      await client.rules.put({ scope: 'namespace', tool: 'x', action: 'deny' }, { by: 'ops:mallory' }).then(
        () => Promise.reject(new Error('a non-editor was not refused')),
        () => undefined,
      );
      await client.rules.setEditors(['ops:alice', 'ops:bob'], by);
      await client.rules.remove(put.rule!.id, { ...by, expectedVersion: put.version + 1 });
      // The expiry timer, and the second pushes.
      await new Promise((r) => setTimeout(r, 8000));
      await run.decide({ callId: 'call_1_0', decision: 'approve', by: 'ops:alice' });
      await run.result();
    });
    const json = scrub(JSON.parse(historyToJSON(await client.temporal.workflow.getHandle(RULES_WORKFLOW_ID).fetchHistory())) as unknown);
    const found = leaks(json, resolve(__dirname, '..', '..'));
    if (found.length) throw new Error(`history contains machine-specific strings: ${found.join(', ')}`);
    const uncovered = missingCoverage(json, RULES_ENTITY_COVERS);
    if (uncovered.length) throw new Error(`history lacks ${uncovered.join(', ')}`);
    writeFileSync(file, `${JSON.stringify(json, null, 1)}\n`);
    console.log(`rules_entity: ${(json as { events: unknown[] }).events.length} events -> ${file}`);
    await connection.close();
    await nativeConnection.close();
  } finally {
    await env.teardown();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
