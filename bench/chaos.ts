/**
 * The chaos campaign, by hand: N runs of a scripted agent (parallel read-only lookups, a serial
 * at-most-once transfer, deployments a person approves by signal or by update, a tool that sleeps) on W
 * worker processes sharing one store, with `kill -9` of workers mid-model-call, mid-tool and while runs
 * await approval (each run hit `--kills` times), restarts of the Temporal server on its persistent
 * database, and an uninterrupted baseline of the same scripts. Prints runs completed, transcripts equal
 * to the baseline, executions per call of the at-most-once tool, approvals lost, resume times.
 *
 *   npx tsx bench/chaos.ts --runs 100 --kills 3 --server-restarts 2 [--workers 3] [--store <setting>] [--concurrency N]
 *
 * It starts its own file-backed dev server (it must restart it: TEMPORAL_ADDRESS is not used).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { DefaultLogger, Runtime, bundleWorkflowCode } from '@temporalio/worker';
import { ensureTemporalCli } from '../apps/cli/dev-server/temporal-cli';
import { WORKFLOWS_PATH } from '../src/worker';
import { formatCampaign, runCampaign } from './chaos/campaign';
import { restartableServer } from '../test/setup/restartable-server';
import { intFlag } from './flags';

const USAGE = `npx tsx bench/chaos.ts [options]
  -n, --runs N              runs of the chaos agent, and as many baseline runs (default 20)
  -k, --kills K             kills of a worker that hit each run (default 3)
  -r, --server-restarts R   restarts of the Temporal server during the campaign (default 2)
  -w, --workers W           worker processes under chaos (default 3)
  -c, --concurrency C       runs in flight at once (default 2 × workers)
  -s, --store SETTING       store every worker shares: a directory, postgres://…, s3://… (default: a
                            temporary directory)
      --run-timeout S       seconds after which a run that has not ended counts as stuck (default 300)
      --keep                keep the scratch directory (run logs, worker directories, the store)
  -h, --help                show this help`;

function parseSettings(argv: string[]) {
  const { values } = parseArgs({
    args: argv,
    options: {
      runs: { type: 'string', short: 'n', default: '20' },
      kills: { type: 'string', short: 'k', default: '3' },
      'server-restarts': { type: 'string', short: 'r', default: '2' },
      workers: { type: 'string', short: 'w', default: '3' },
      concurrency: { type: 'string', short: 'c' },
      store: { type: 'string', short: 's' },
      'run-timeout': { type: 'string', default: '300' },
      keep: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  });
  if (values.help) return undefined;
  const int = intFlag;
  const workers = int('workers', values.workers, 1);
  return {
    runs: int('runs', values.runs, 1),
    kills: int('kills', values.kills, 0),
    serverRestarts: int('server-restarts', values['server-restarts'], 0),
    workers,
    concurrency: values.concurrency === undefined ? 2 * workers : int('concurrency', values.concurrency, 1),
    ...(values.store !== undefined ? { store: values.store } : {}),
    runTimeoutMs: int('run-timeout', values['run-timeout'], 10) * 1000,
    keep: values.keep,
  };
}

const noop = () => undefined;
const quietLogger = { log: noop, trace: noop, debug: noop, info: noop, warn: noop, error: (m: string) => console.error(m) };

async function main(): Promise<void> {
  const settings = parseSettings(process.argv.slice(2));
  if (!settings) {
    console.log(USAGE);
    return;
  }
  const log = (line: string) => console.log(`${new Date().toISOString().slice(11, 19)} ${line}`);
  // Connection failures while the server restarts are expected: keep the core's warnings out of the figures.
  Runtime.install({
    logger: new DefaultLogger('ERROR'),
    telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' }, forward: {} } },
  });
  const workDir = mkdtempSync(join(tmpdir(), 'durable-agent-chaos-'));
  const cli = ensureTemporalCli(log);
  const server = await restartableServer({ dir: workDir, ...(cli ? { cli } : {}) });
  try {
    log(`Temporal dev server (file-backed) at ${server.address}; bundling workflows…`);
    const bundlePath = join(workDir, 'workflow-bundle.js');
    writeFileSync(bundlePath, (await bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, logger: quietLogger })).code);
    const result = await runCampaign({ ...settings, server, bundlePath, workDir, log });
    console.log(`\n${formatCampaign(result)}`);
    const failed =
      result.completed < settings.runs ||
      result.transcripts.different.length ||
      result.atMostOnce.executedMoreThanOnce.length ||
      result.approvals.lost.length;
    if (failed) process.exitCode = 1;
  } finally {
    await server.close();
    if (settings.keep) console.log(`kept ${workDir} (run logs in logs/)`);
    else rmSync(workDir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? (err.stack ?? err.message) : err);
  process.exitCode = 1;
});
