/**
 * Record the histories the replay test replays: `npm run record-histories` (tsx test/replay/record.ts).
 * Starts a throwaway dev server and an in-process worker, runs every scenario of ./scenarios.ts, and
 * writes each history to test/replay/histories/<name>[.<suffix>].json in Temporal's JSON history format.
 *
 * Existing files are kept (old histories must keep replaying); pass `--suffix <s>` to add a new
 * generation next to them, `--force` to overwrite, `--only <name>` (repeatable) to record some scenarios,
 * `--missing` to record only the scenarios that have no history yet.
 * See ./README.md for when to re-record.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import type { AgentRun } from '../../src/client';
import { AgentClient } from '../../src/client';
import { startDevServer } from '../../apps/cli/dev-server/dev-server';
import { MemoryBlobStore } from '../../src/integrations/store/blob-store';
import { createWorker } from '../../src/worker';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { HISTORIES_DIR, RECORD_NAME, historyFiles, isHistoryOf, leaks, missingCoverage, scrub } from './histories';
import type { Scenario } from './scenarios';
import { SCENARIOS, replayAgents } from './scenarios';

interface Args {
  force: boolean;
  missing: boolean;
  suffix?: string;
  only: string[];
}

function parseArgs(argv: readonly string[]): Args {
  const args: Args = { force: false, missing: false, only: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--force') args.force = true;
    else if (a === '--missing') args.missing = true;
    else if (a === '--suffix' || a === '--only') {
      const v = argv[++i];
      if (!v || !/^[\w-]+$/.test(v)) throw new Error(`${a} needs a value of letters, digits, _ or -`);
      if (a === '--suffix') args.suffix = v;
      else args.only.push(v);
    } else throw new Error(`unknown argument ${a} (use --force, --missing, --suffix <s>, --only <name>)`);
  }
  for (const name of args.only) if (!SCENARIOS.some((s) => s.name === name)) throw new Error(`no scenario "${name}"`);
  return args;
}

/**
 * Run one scenario under `workflowId`: the stem of its history file, the id the replay test replays it
 * under (a workflow that derives ids from its own, such as a sub-agent's child id, replays identically).
 */
async function runScenario(client: AgentClient, s: Scenario, workflowId: string): Promise<AgentRun> {
  const run = await client.start(s.name, {
    input: s.input,
    workflowId,
    ...(s.maxSteps ? { maxSteps: s.maxSteps } : {}),
    ...(s.policy ? { policy: s.policy } : {}),
    ...(s.approvalWaiver ? { approvalWaiver: s.approvalWaiver } : {}),
    ...(s.session ? { session: s.session } : {}),
    ...(s.budget ? { budget: s.budget } : {}),
  });
  if (s.cancelDuring) {
    const deadline = Date.now() + 30_000;
    while (!(await run.snapshot()).runningTools.some((t) => t.tool === s.cancelDuring)) {
      if (Date.now() > deadline) throw new Error(`${s.name}: ${s.cancelDuring} never started`);
      await new Promise((r) => setTimeout(r, 50));
    }
    await run.cancel();
  }
  await s.during?.(run);
  const result = await run.result();
  if (result.status !== s.status) throw new Error(`${s.name}: expected status ${s.status}, got ${result.status}`);
  return run;
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const root = resolve(__dirname, '..', '..');
  const recorded = historyFiles();
  const scenarios = SCENARIOS.filter(
    (s) => (!args.only.length || args.only.includes(s.name)) && (!args.missing || !recorded.some((f) => isHistoryOf(f, s.name))),
  );
  if (!scenarios.length) throw new Error('no scenario to record');
  const target = (s: Scenario) => join(HISTORIES_DIR, `${s.name}${args.suffix ? `.${args.suffix}` : ''}.json`);
  const existing = scenarios.filter((s) => existsSync(target(s)));
  if (existing.length && !args.force) {
    throw new Error(`would overwrite ${existing.map((s) => target(s)).join(', ')}; use --suffix <s> for a new generation or --force`);
  }
  mkdirSync(HISTORIES_DIR, { recursive: true });

  Runtime.install({ logger: new DefaultLogger('WARN') });
  const env = await startDevServer({ log: (line) => console.error(line) });
  try {
    const nativeConnection = await NativeConnection.connect({ address: env.address });
    const worker = await createWorker({
      agents: replayAgents.agents,
      providers: { scripted: replayAgents.provider },
      store: new MemoryBlobStore(),
      connection: nativeConnection,
      taskQueue: RECORD_NAME,
      temporal: { identity: RECORD_NAME },
    });
    const connection = await Connection.connect({ address: env.address });
    const client = new AgentClient(new Client({ connection, identity: RECORD_NAME }), RECORD_NAME);
    await worker.runUntil(async () => {
      const save = (s: Scenario, json: unknown, file: string, covers: readonly string[]) => {
        const found = leaks(json, root);
        if (found.length) throw new Error(`${s.name}: history contains machine-specific strings: ${found.join(', ')}`);
        const uncovered = missingCoverage(json, covers);
        if (uncovered.length) throw new Error(`${s.name}: history lacks ${uncovered.join(', ')}`);
        const text = `${JSON.stringify(json, null, 1)}\n`;
        writeFileSync(file, text);
        console.log(
          `${s.name}: ${s.status}, ${(json as { events: unknown[] }).events.length} events, ${text.length} bytes -> ${file.slice(root.length + 1)}`,
        );
      };
      for (const s of scenarios) {
        const run = await runScenario(client, s, basename(target(s), '.json'));
        save(s, scrub(JSON.parse(historyToJSON(await run.handle.fetchHistory())) as unknown), target(s), s.covers ?? []);
        // A run that continued as new: its first execution (which ends handing over) is recorded too.
        const first = (run.handle as { firstExecutionRunId?: string }).firstExecutionRunId;
        const latest = (await run.handle.describe()).runId;
        if (first && first !== latest) {
          const firstHistory = await client.temporal.workflow.getHandle(run.workflowId, first).fetchHistory();
          save(s, scrub(JSON.parse(historyToJSON(firstHistory)) as unknown), target(s).replace(/\.json$/, '.first.json'), [
            'WORKFLOW_EXECUTION_CONTINUED_AS_NEW',
          ]);
        }
      }
    });
    await connection.close();
    await nativeConnection.close();
  } finally {
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
