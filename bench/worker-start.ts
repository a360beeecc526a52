/**
 * How fast a worker starts, and how soon `durable-agent run` shows its first event, with the prebuilt
 * agent workflow bundle against bundling at start (the old path). In one run, taken in turn (A B C, A B C…)
 * so the ratios hold when the machine's speed drifts. It asserts nothing; it prints medians, p90s and ratios.
 *
 *   npx tsx bench/worker-start.ts [--runs 9]
 *
 * 1. Worker start (in this process): `createWorker` until the worker is RUNNING (polling), from the prebuilt
 *    bundle vs with `DURABLE_AGENT_WORKFLOW_BUNDLE=off` (bundling at start, as every worker did before), and
 *    Temporal's own `Worker.create` with the same bundle and nothing else (the floor a prebuilt start can reach).
 * 2. `durable-agent run "<prompt>" --json` as a new process (bin/durable-agent.js: dist/ when current), wall
 *    time from spawn to its first event line: with a worker already up on the task queue; with none (the CLI
 *    hosts one) from the prebuilt bundle (the demo's cold path now); with none and bundling at start (before).
 *
 * The prebuilt bundle is built here (`buildAgentBundle`) into a temporary file from the current workflow code
 * and named by `DURABLE_AGENT_WORKFLOW_BUNDLE`, so the figures do not depend on the state of `dist/`.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { demoWorkerConfig } from '../demo';
import { WORKFLOW_BUNDLE_ENV, buildAgentBundle, createWorker } from '../worker';
import { benchServer } from './environment';
import { num, spread, table } from './stats';

const { values } = parseArgs({ options: { runs: { type: 'string', short: 'n', default: '9' } } });
const runs = Number(values.runs);
if (!Number.isInteger(runs) || runs < 1) throw new Error('--runs must be a positive integer');

const log = (line: string) => console.error(line);
const bin = resolve(__dirname, '..', 'bin', 'durable-agent.js');

/** The p-th percentile (0..1) of a non-empty sample, nearest rank. */
function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] as number;
}

/** Milliseconds from `createWorker` to a RUNNING worker, with `env` applied to the process meanwhile. */
async function workerStart(connection: NativeConnection, bundle: string): Promise<number> {
  const previous = process.env[WORKFLOW_BUNDLE_ENV];
  process.env[WORKFLOW_BUNDLE_ENV] = bundle;
  const demo = demoWorkerConfig();
  const started = process.hrtime.bigint();
  try {
    const worker = await createWorker({ agents: demo.agents, providers: demo.providers, connection, taskQueue: `bench-start-${randomUUID().slice(0, 8)}` });
    const running = worker.run();
    while (worker.worker.getState() !== 'RUNNING') await new Promise((r) => setTimeout(r, 2));
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
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
  const worker = await Worker.create({ connection, taskQueue: `bench-floor-${randomUUID().slice(0, 8)}`, workflowBundle: { codePath: bundle } });
  const running = worker.run();
  while (worker.getState() !== 'RUNNING') await new Promise((r) => setTimeout(r, 2));
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  worker.shutdown();
  await running.catch(() => undefined);
  return ms;
}

/** Wall milliseconds from spawning `durable-agent run … --json` to its first event line on stdout; waits for it to exit. */
function runToFirstEvent(address: string, taskQueue: string, bundle: string): Promise<number> {
  return new Promise((resolvePromise, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(process.execPath, [bin, 'run', 'What is 2+2?', '--json', '--address', address, '--task-queue', taskQueue], {
      env: { ...process.env, [WORKFLOW_BUNDLE_ENV]: bundle, TEMPORAL_ADDRESS: address },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let first: number | undefined;
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (first === undefined && line.startsWith('{')) first = Number(process.hrtime.bigint() - started) / 1e6;
    });
    child.on('exit', (code) => {
      if (first === undefined) reject(new Error(`durable-agent run exited ${code} without an event: ${stderr.trim()}`));
      else resolvePromise(first);
    });
  });
}

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
    const connection = await NativeConnection.connect({ address });
    cleanups.push(() => connection.close());

    // A worker already up (from the prebuilt bundle) for the warm `run` path.
    process.env[WORKFLOW_BUNDLE_ENV] = bundle;
    const demo = demoWorkerConfig();
    const warmQueue = `bench-warm-${randomUUID().slice(0, 8)}`;
    const warm = await createWorker({ agents: demo.agents, providers: demo.providers, connection, taskQueue: warmQueue });
    const warmRunning = warm.run();
    cleanups.push(async () => {
      await warm.close();
      await warmRunning.catch(() => undefined);
    });

    console.log(`Worker start and first event: ${runs} reps each, interleaved; server: ${server}; node ${process.version}; demo model: ${demo.offline ? 'offline (scripted)' : `${demo.model.provider}/${demo.model.model}`}`);
    // Warm-up (file cache, JIT) of every path, not counted.
    await workerStart(connection, bundle);
    await workerStart(connection, 'off');
    await runToFirstEvent(address, warmQueue, bundle);

    await plainWorkerStart(connection, bundle);
    const starts = { prebuilt: [] as number[], bundled: [] as number[], floor: [] as number[] };
    const firsts = { warm: [] as number[], hostedPrebuilt: [] as number[], hostedBundled: [] as number[] };
    for (let i = 0; i < runs; i++) {
      starts.prebuilt.push(await workerStart(connection, bundle));
      starts.bundled.push(await workerStart(connection, 'off'));
      starts.floor.push(await plainWorkerStart(connection, bundle));
      firsts.warm.push(await runToFirstEvent(address, warmQueue, bundle));
      firsts.hostedPrebuilt.push(await runToFirstEvent(address, `bench-cold-${randomUUID().slice(0, 8)}`, bundle));
      firsts.hostedBundled.push(await runToFirstEvent(address, `bench-cold-${randomUUID().slice(0, 8)}`, 'off'));
      log(`rep ${i + 1}/${runs} done`);
    }

    const row = (name: string, sample: number[], base: number[]) => [
      name,
      num(spread(sample).median),
      num(percentile(sample, 0.9)),
      `${num(spread(sample).median / spread(base).median, 2)}x`,
      `${num(percentile(sample, 0.9) / percentile(base, 0.9), 2)}x`,
    ];
    const header = ['', 'median ms', 'p90 ms', 'ratio median', 'ratio p90'];
    console.log('\nWorker start (createWorker until RUNNING), against bundling at start:');
    console.log(
      table([
        header,
        row('bundling at start (before)', starts.bundled, starts.bundled),
        row('prebuilt bundle', starts.prebuilt, starts.bundled),
        row("Temporal's Worker.create, same bundle, no plugin (floor)", starts.floor, starts.bundled),
      ]),
    );
    console.log(`prebuilt against the floor: median ${num(spread(starts.prebuilt).median / spread(starts.floor).median, 2)}x, p90 ${num(percentile(starts.prebuilt, 0.9) / percentile(starts.floor, 0.9), 2)}x`);
    console.log('\n`durable-agent run --json`, spawn to first event, against the old cold path (CLI hosts a worker, bundling at start):');
    console.log(
      table([
        header,
        row('no worker up, bundling at start (before)', firsts.hostedBundled, firsts.hostedBundled),
        row('no worker up, prebuilt bundle', firsts.hostedPrebuilt, firsts.hostedBundled),
        row('worker already up', firsts.warm, firsts.hostedBundled),
      ]),
    );
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
