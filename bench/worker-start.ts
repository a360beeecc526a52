/**
 * How fast a worker starts, and how soon `durable-agent run` shows its first event, against baselines
 * measured in the same run. Everything is taken in turn (A B C, A B C…) so the ratios hold when the
 * machine's speed drifts. It asserts nothing; it prints medians, p90s and ratios.
 *
 *   npx tsx bench/worker-start.ts [--runs 9] [--before <checkout>] [--no-bundling]
 *
 * 1. Worker start in this process: `createWorker` until the worker is RUNNING (polling), from the prebuilt
 *    bundle, with `DURABLE_AGENT_WORKFLOW_BUNDLE=off` (bundling at start, as every worker did before the
 *    prebuilt bundle), and Temporal's own `Worker.create` with the same bundle and nothing else (the floor
 *    a prebuilt start can reach); then where a prebuilt start's time goes, phase by phase.
 * 2. Worker process start: `durable-agent worker` as a new process, spawn to its "Press Ctrl-C" banner
 *    (the worker polls by then), against a bare Temporal worker process (`require('@temporalio/worker')`,
 *    connect, `Worker.create` with the same bundle, run: the floor) and `node -e 0`.
 * 3. `durable-agent run "<prompt>" --json` as a new process, wall time from spawn to its first event line:
 *    with a worker already up on the task queue; with none (the CLI hosts one) from the prebuilt bundle;
 *    with none and bundling at start (skipped with --no-bundling); and `node -e 0`.
 *
 * `--before <checkout>`: the same CLI measurements (2 and 3) with another checkout's `bin/durable-agent.js`
 * too (built: `npm run build` there; it gets a bundle of its own workflow code), so a change is measured
 * against what it replaces in one run. Both CLIs run their `dist/` build when it is current (see
 * bin/entry.js); the bench says which build each runs.
 *
 * The prebuilt bundle is built here (`buildAgentBundle`) into a temporary file from the current workflow code
 * and named by `DURABLE_AGENT_WORKFLOW_BUNDLE`, so the figures do not depend on the state of `dist/`.
 */
import { execFileSync, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { demoWorkerConfig } from '../apps/cli/demo';
import { DurableAgentsPlugin, WORKFLOW_BUNDLE_ENV, buildAgentBundle, createWorker } from '../src/worker';
import { benchServer } from './environment';
import { num, spread, table } from './stats';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', short: 'n', default: '9' },
    before: { type: 'string' },
    'no-bundling': { type: 'boolean', default: false },
  },
});
const runs = Number(values.runs);
if (!Number.isInteger(runs) || runs < 1) throw new Error('--runs must be a positive integer');
const root = resolve(__dirname, '..');
const beforeRoot = values.before ? resolve(values.before) : undefined;
/** The first of `paths` (under `checkout`) that exists: checkouts from before the apps/ + src/ layout have the old paths. */
const firstIn = (checkout: string, ...paths: string[][]) => paths.map((p) => join(checkout, ...p)).find((p) => existsSync(p));
const binOf = (checkout: string) =>
  firstIn(checkout, ['apps', 'cli', 'bin', 'durable-agent.js'], ['bin', 'durable-agent.js']) ??
  join(checkout, 'apps', 'cli', 'bin', 'durable-agent.js');
const bundleBuilderOf = (checkout: string) =>
  firstIn(checkout, ['dist', 'src', 'worker', 'build-bundle.js'], ['dist', 'worker', 'build-bundle.js']);
if (beforeRoot && !existsSync(binOf(beforeRoot)))
  throw new Error(`--before ${beforeRoot}: no durable-agent launcher there (apps/cli/bin/ or bin/)`);
if (beforeRoot && !bundleBuilderOf(beforeRoot)) throw new Error(`--before ${beforeRoot}: not built (run npm run build there)`);

const log = (line: string) => console.error(line);
// eslint-disable-next-line @typescript-eslint/no-require-imports -- the launcher is plain CommonJS
const { chooseEntry } = require('../apps/cli/bin/entry.js') as { chooseEntry(root: string): { kind: string } };

/** The p-th percentile (0..1) of a non-empty sample, nearest rank. */
function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] as number;
}

const elapsedMs = (since: bigint) => Number(process.hrtime.bigint() - since) / 1e6;
const queue = (kind: string) => `bench-${kind}-${randomUUID().slice(0, 8)}`;

async function untilRunning(worker: Worker): Promise<void> {
  while (worker.getState() !== 'RUNNING') await new Promise((r) => setTimeout(r, 2));
}

/** Milliseconds from `createWorker` to a RUNNING worker, with `DURABLE_AGENT_WORKFLOW_BUNDLE=bundle` meanwhile. */
async function workerStart(connection: NativeConnection, bundle: string): Promise<number> {
  const previous = process.env[WORKFLOW_BUNDLE_ENV];
  process.env[WORKFLOW_BUNDLE_ENV] = bundle;
  const demo = demoWorkerConfig();
  const started = process.hrtime.bigint();
  try {
    const worker = await createWorker({ agents: demo.agents, providers: demo.providers, connection, taskQueue: queue('start') });
    const running = worker.run();
    await untilRunning(worker.worker);
    const ms = elapsedMs(started);
    await worker.close();
    await running.catch(() => undefined);
    return ms;
  } finally {
    if (previous === undefined) delete process.env[WORKFLOW_BUNDLE_ENV];
    else process.env[WORKFLOW_BUNDLE_ENV] = previous;
  }
}

/** Milliseconds from Temporal's own `Worker.create` (no plugin, no activities) with the same bundle to a RUNNING worker: the floor. */
async function plainWorkerStart(connection: NativeConnection, bundle: string): Promise<number> {
  const started = process.hrtime.bigint();
  const worker = await Worker.create({ connection, taskQueue: queue('floor'), workflowBundle: { codePath: bundle } });
  const running = worker.run();
  await untilRunning(worker);
  const ms = elapsedMs(started);
  worker.shutdown();
  await running.catch(() => undefined);
  return ms;
}

/**
 * The phases of a prebuilt `createWorker`, timed by wrapping the steps of Temporal's `Worker.create` (its
 * internals as of @temporalio/worker 1.24: a phase it no longer has is left out). Milliseconds by phase.
 */
async function phasesOfStart(connection: NativeConnection, bundle: string): Promise<Record<string, number>> {
  const phases: Record<string, number> = {};
  const targets: Array<[object, string, string]> = [
    [DurableAgentsPlugin.prototype, 'configureWorker', "the plugin's configureWorker (activities, search attributes)"],
    [Worker, 'getOrCreateBundle', 'read the bundle, extract its source map, compile it in the main thread'],
    [Worker, 'createWorkflowCreator', 'start the workflow thread: load the SDK there, evaluate the bundle'],
    [
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- Temporal's internal class, looked up by name
      (require('@temporalio/worker/lib/worker') as { NativeWorker: object }).NativeWorker,
      'create',
      'register the worker with the native core',
    ],
  ];
  const restore: Array<() => void> = [];
  for (const [owner, name, label] of targets) {
    const table = owner as Record<string, unknown>;
    const original = table[name];
    if (typeof original !== 'function') continue;
    table[name] = async function (this: unknown, ...args: unknown[]) {
      const started = process.hrtime.bigint();
      try {
        return await (original as (...a: unknown[]) => Promise<unknown>).apply(this, args);
      } finally {
        phases[label] = (phases[label] ?? 0) + elapsedMs(started);
      }
    };
    restore.push(() => (table[name] = original));
  }
  try {
    const total = await workerStart(connection, bundle);
    phases['total (createWorker until RUNNING)'] = total;
  } finally {
    for (const undo of restore) undo();
  }
  return phases;
}

/** Spawn `node ...args` in `cwd`; milliseconds until stdout has a line matching `ready`, after which the process is stopped (Ctrl-C) or waited for. */
function spawnUntil(
  args: string[],
  options: { env: NodeJS.ProcessEnv; ready: (line: string) => boolean; stop: boolean; cwd?: string },
): Promise<number> {
  return new Promise((resolvePromise, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(process.execPath, args, { env: options.env, cwd: options.cwd ?? root, stdio: ['ignore', 'pipe', 'pipe'] });
    let at: number | undefined;
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (at !== undefined || !options.ready(line)) return;
      at = elapsedMs(started);
      if (options.stop) child.kill('SIGINT');
    });
    child.on('exit', (code) => {
      if (at === undefined) reject(new Error(`node ${args.join(' ')} exited ${code} before it was ready: ${stderr.trim()}`));
      else resolvePromise(at);
    });
  });
}

/** A bare Temporal worker process: the SDK, a connection, `Worker.create` with the bundle, run; prints `ready` once RUNNING. */
const BARE_WORKER = `
const { DefaultLogger, NativeConnection, Runtime, Worker } = require('@temporalio/worker');
Runtime.install({ logger: new DefaultLogger('ERROR') });
(async () => {
  const connection = await NativeConnection.connect({ address: process.env.BENCH_ADDRESS });
  const worker = await Worker.create({ connection, taskQueue: process.env.BENCH_QUEUE, workflowBundle: { codePath: process.env.BENCH_BUNDLE } });
  process.once('SIGINT', () => worker.shutdown());
  const running = worker.run();
  while (worker.getState() !== 'RUNNING') await new Promise((r) => setTimeout(r, 2));
  console.log('ready');
  await running;
  await connection.close();
})();
`;

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const cleanups: Array<() => Promise<unknown> | unknown> = [];
  try {
    const { address, server } = await benchServer(log, cleanups);
    const dir = mkdtempSync(join(tmpdir(), 'durable-agent-bench-start-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const bundle = join(dir, 'workflow-bundle.js');
    log('building the prebuilt agent workflow bundle…');
    await buildAgentBundle(bundle);
    const beforeBundle = join(dir, 'before', 'workflow-bundle.js');
    if (beforeRoot) {
      log(`building the prebuilt bundle of ${beforeRoot}…`);
      execFileSync(process.execPath, [bundleBuilderOf(beforeRoot) as string, beforeBundle], { stdio: 'ignore' });
    }
    const connection = await NativeConnection.connect({ address });
    cleanups.push(() => connection.close());

    // A worker already up (from the prebuilt bundle) for the warm `run` path.
    process.env[WORKFLOW_BUNDLE_ENV] = bundle;
    const demo = demoWorkerConfig();
    const warmQueue = queue('warm');
    const warm = await createWorker({ agents: demo.agents, providers: demo.providers, connection, taskQueue: warmQueue });
    const warmRunning = warm.run();
    cleanups.push(async () => {
      await warm.close();
      await warmRunning.catch(() => undefined);
    });

    const env = (workflowBundle: string): NodeJS.ProcessEnv => ({
      ...process.env,
      [WORKFLOW_BUNDLE_ENV]: workflowBundle,
      TEMPORAL_ADDRESS: address,
      ANTHROPIC_API_KEY: '',
    });
    const firstEvent = (checkout: string, taskQueue: string, workflowBundle: string) =>
      spawnUntil([binOf(checkout), 'run', 'What is 2+2?', '--json', '--address', address, '--task-queue', taskQueue], {
        env: env(workflowBundle),
        ready: (l) => l.startsWith('{'),
        stop: false,
      });
    const workerProcess = (checkout: string, workflowBundle: string) =>
      spawnUntil([binOf(checkout), 'worker', '--address', address, '--task-queue', queue('proc')], {
        env: env(workflowBundle),
        ready: (l) => l.includes('Press Ctrl-C'),
        stop: true,
      });
    const bareWorkerProcess = () =>
      spawnUntil(['-e', BARE_WORKER], {
        env: { ...process.env, BENCH_ADDRESS: address, BENCH_QUEUE: queue('bare'), BENCH_BUNDLE: bundle },
        ready: (l) => l === 'ready',
        stop: true,
      });
    const nodeStart = () => spawnUntil(['-e', 'console.log(1)'], { env: process.env, ready: () => true, stop: false });

    const builds = [`this checkout: ${chooseEntry(root).kind}`, ...(beforeRoot ? [`--before: ${chooseEntry(beforeRoot).kind}`] : [])].join(
      ', ',
    );
    console.log(
      `Worker start and first event: ${runs} reps each, interleaved; server: ${server}; node ${process.version}; CLI builds: ${builds}; demo model: ${demo.offline ? 'offline (scripted)' : `${demo.model.provider}/${demo.model.model}`}`,
    );
    if (chooseEntry(root).kind !== 'dist' || (beforeRoot && chooseEntry(beforeRoot).kind !== 'dist'))
      console.log('note: a CLI runs from its TypeScript sources (tsx): run npm run build for the figures users get');

    // Warm-up (file cache, JIT) of every path, not counted.
    await workerStart(connection, bundle);
    await plainWorkerStart(connection, bundle);
    if (!values['no-bundling']) await workerStart(connection, 'off');
    await firstEvent(root, warmQueue, bundle);
    await workerProcess(root, bundle);
    await bareWorkerProcess();
    if (beforeRoot) await firstEvent(beforeRoot, warmQueue, beforeBundle);

    const starts = { prebuilt: [] as number[], bundled: [] as number[], floor: [] as number[] };
    const procs = { worker: [] as number[], before: [] as number[], bare: [] as number[], node: [] as number[] };
    const firsts = {
      warm: [] as number[],
      warmBefore: [] as number[],
      cold: [] as number[],
      coldBefore: [] as number[],
      coldBundled: [] as number[],
    };
    for (let i = 0; i < runs; i++) {
      starts.prebuilt.push(await workerStart(connection, bundle));
      if (!values['no-bundling']) starts.bundled.push(await workerStart(connection, 'off'));
      starts.floor.push(await plainWorkerStart(connection, bundle));
      procs.node.push(await nodeStart());
      procs.worker.push(await workerProcess(root, bundle));
      if (beforeRoot) procs.before.push(await workerProcess(beforeRoot, beforeBundle));
      procs.bare.push(await bareWorkerProcess());
      firsts.warm.push(await firstEvent(root, warmQueue, bundle));
      if (beforeRoot) firsts.warmBefore.push(await firstEvent(beforeRoot, warmQueue, beforeBundle));
      firsts.cold.push(await firstEvent(root, queue('cold'), bundle));
      if (beforeRoot) firsts.coldBefore.push(await firstEvent(beforeRoot, queue('cold'), beforeBundle));
      if (!values['no-bundling']) firsts.coldBundled.push(await firstEvent(root, queue('cold'), 'off'));
      log(`rep ${i + 1}/${runs} done`);
    }
    const phases = await phasesOfStart(connection, bundle);

    const med = (sample: number[]) => spread(sample).median;
    const ratio = (sample: number[], base: number[]) => (base.length ? `${num(med(sample) / med(base), 2)}x` : '—');
    const ratioP90 = (sample: number[], base: number[]) =>
      base.length ? `${num(percentile(sample, 0.9) / percentile(base, 0.9), 2)}x` : '—';
    const rows = (header: string[], lines: Array<[string, number[], ...number[][]]>) =>
      table([
        header,
        ...lines
          .filter(([, sample]) => sample.length > 0)
          .map(([name, sample, ...bases]) => [
            name,
            num(med(sample)),
            num(percentile(sample, 0.9)),
            ...bases.flatMap((base) => [ratio(sample, base), ratioP90(sample, base)]),
          ]),
      ]);

    console.log(
      "\n1. Worker start in this process (createWorker until RUNNING), against Temporal's Worker.create with the same bundle (floor):",
    );
    console.log(
      rows(
        ['', 'median ms', 'p90 ms', 'ratio to floor, median', 'p90'],
        [
          ["Temporal's Worker.create, same bundle, no plugin (floor)", starts.floor, starts.floor],
          ['prebuilt bundle', starts.prebuilt, starts.floor],
          ['bundling at start (before the prebuilt bundle)', starts.bundled, starts.floor],
        ],
      ),
    );
    console.log('\nWhere a prebuilt start goes (one start, after the reps):');
    console.log(table([['phase', 'ms'], ...Object.entries(phases).map(([phase, ms]) => [phase, num(ms)])]));

    console.log(
      '\n2. Worker process start, spawn to polling (durable-agent worker: its banner), against a bare Temporal worker process with the same bundle:',
    );
    console.log(
      rows(
        ['', 'median ms', 'p90 ms', 'ratio to bare worker, median', 'p90', 'ratio to --before, median', 'p90'],
        [
          ['node -e (process start only)', procs.node, procs.bare, procs.before],
          ['bare Temporal worker process (floor)', procs.bare, procs.bare, procs.before],
          ['durable-agent worker', procs.worker, procs.bare, procs.before],
          ['durable-agent worker (--before)', procs.before, procs.bare, procs.before],
        ],
      ),
    );

    console.log('\n3. `durable-agent run --json`, spawn to first event:');
    console.log(
      rows(
        ['', 'median ms', 'p90 ms', 'ratio to node -e, median', 'p90', 'ratio to --before, median', 'p90'],
        [
          ['node -e (process start only)', procs.node, procs.node, []],
          ['worker already up', firsts.warm, procs.node, firsts.warmBefore],
          ['worker already up (--before)', firsts.warmBefore, procs.node, firsts.warmBefore],
          ['no worker up: hosts one, prebuilt bundle', firsts.cold, procs.node, firsts.coldBefore],
          ['no worker up: hosts one, prebuilt bundle (--before)', firsts.coldBefore, procs.node, firsts.coldBefore],
          ['no worker up: hosts one, bundling at start', firsts.coldBundled, procs.node, firsts.coldBefore],
        ],
      ),
    );
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
