/**
 * Benchmark, run by hand (not a test): many runs waiting for a person's approval on ONE worker process,
 * a child process whose memory is sampled. For each phase (short conversations, then long ones before
 * the wait) a driver worker process brings the runs to their wait, then a fresh worker process takes them
 * over (one query each loads a run into its cache, replaying its history): its RSS at rest, with every
 * run waiting, per waiting run, the load time per run, and how long a run takes to resume after its
 * decision (decision sent → approved tool executed).
 *
 *   npx tsx bench/waiting-runs.ts [--runs 1000] [--cache N] [--long-steps 100] [--long-runs 200]
 *   npx tsx bench/waiting-runs.ts --runs 10000 --cache 10000 --long-runs 0     # the 10,000
 *
 * See bench/README.md for what is measured and how to read the output.
 */
import { fork } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, Runtime, bundleWorkflowCode } from '@temporalio/worker';
import { AgentClient } from '../client';
import { WORKFLOWS_PATH } from '../worker';
import { benchServer } from './environment';
import { intFlag } from './flags';
import { num, table } from './stats';
import { APPROVAL_CALL, WAITING_AGENT } from './waiting-agents';

const USAGE = `Usage: npx tsx bench/waiting-runs.ts [options]

  -n, --runs N          runs waiting at once with a short conversation (2 messages) (default 1000)
  -c, --cache C         the worker's maxCachedWorkflows (default: --runs, every waiting run cached)
      --long-steps S    page reads before the wait in the long phase: 2 + 2 × S messages (default 100)
      --long-runs L     runs of the long phase, 0 to skip it (default 200)
  -b, --bytes B         bytes of each page read (default 500)
  -d, --decide M        runs of each phase decided, one by one, to time their resumption (default 200)
  -r, --rate R          decisions per second (default 20)
  -h, --help            show this help`;

interface Settings {
  runs: number;
  cache: number;
  longSteps: number;
  longRuns: number;
  bytes: number;
  decide: number;
  rate: number;
}

function parseSettings(argv: string[]): Settings | undefined {
  const { values } = parseArgs({
    args: argv,
    options: {
      runs: { type: 'string', short: 'n', default: '1000' },
      cache: { type: 'string', short: 'c' },
      'long-steps': { type: 'string', default: '100' },
      'long-runs': { type: 'string', default: '200' },
      bytes: { type: 'string', short: 'b', default: '500' },
      decide: { type: 'string', short: 'd', default: '200' },
      rate: { type: 'string', short: 'r', default: '20' },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  });
  if (values.help) return undefined;
  const runs = intFlag('runs', values.runs, 1);
  return {
    runs,
    cache: values.cache === undefined ? Math.max(2, runs) : intFlag('cache', values.cache, 2),
    longSteps: intFlag('long-steps', values['long-steps'], 1),
    longRuns: intFlag('long-runs', values['long-runs'], 0),
    bytes: intFlag('bytes', values.bytes, 1),
    decide: intFlag('decide', values.decide, 0),
    rate: intFlag('rate', values.rate, 1),
  };
}

interface Memory {
  rss: number;
  heapUsed: number;
}

/** A worker process of `bench/waiting-worker.ts`, and what it reports. */
class WorkerProcess {
  asked = 0;
  readonly executed = new Map<string, number>();
  private memoryWaiter?: (m: Memory) => void;
  private readonly child: ChildProcess;
  readonly ready: Promise<void>;

  constructor(env: Record<string, string>) {
    this.child = fork(join(__dirname, 'waiting-worker.ts'), [], {
      env: { ...process.env, ...env },
      execArgv: ['--expose-gc', '--import', 'tsx'],
      stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
    });
    this.ready = new Promise((resolve, reject) => {
      this.child.stdout!.on('data', (d: Buffer) => {
        if (d.toString().includes('ready')) resolve();
      });
      this.child.once('exit', (code) => reject(new Error(`the worker process exited (${code}) before it was ready`)));
    });
    this.child.on('message', (m: { type: string; workflowId?: string; at?: number; rss?: number; heapUsed?: number }) => {
      if (m.type === 'asked') this.asked++;
      else if (m.type === 'executed') this.executed.set(m.workflowId!, m.at!);
      else if (m.type === 'memory') this.memoryWaiter?.({ rss: m.rss!, heapUsed: m.heapUsed! });
    });
  }

  /** RSS and heap after a forced GC in the worker process. */
  memory(): Promise<Memory> {
    return new Promise((resolve) => {
      this.memoryWaiter = resolve;
      this.child.send({ type: 'memory' });
    });
  }

  kill(): void {
    this.child.kill('SIGKILL');
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const mb = (bytes: number) => num(bytes / 1e6, 1);

/** Wait until `done()` holds, polling; throws after `ms` naming `what`. */
async function until(done: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

/** `items` through `fn`, at most `parallel` at a time. */
async function pool<T>(items: readonly T[], parallel: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(parallel, items.length) }, async () => {
    while (next < items.length) await fn(items[next++]!);
  }));
}

/** `fn`, tried again (up to 5 times, 1 s apart) when it fails: a query times out on a loaded server. */
async function retried<T>(fn: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (attempt >= 5) throw err;
      await sleep(1000);
    }
  }
}

/** The value at quantile `q` (0..1) of `values`. */
function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

interface PhaseResult {
  label: string;
  runs: number;
  messages: number;
  rest: Memory;
  waiting: Memory;
  latencies: number[];
  /** Seconds the measured worker took to load every waiting run (one query each: a replay). */
  startSeconds: number;
}

/** One phase: a fresh worker process, `count` runs with `steps` page reads each, waiting; then decisions. */
async function phase(address: string, bundle: string, temporal: Client, s: Settings, label: string, count: number, steps: number, log: (l: string) => void): Promise<PhaseResult> {
  const taskQueue = `bench-waiting-${randomUUID().slice(0, 8)}`;
  const storeDir = mkdtempSync(join(tmpdir(), 'durable-agent-waiting-'));
  const workerEnv = {
    TEMPORAL_ADDRESS: address,
    WAIT_TASK_QUEUE: taskQueue,
    WAIT_STORE_DIR: storeDir,
    WAIT_STEPS: String(steps),
    WAIT_BYTES: String(s.bytes),
    WAIT_CACHE: String(s.cache),
    WAIT_WORKFLOW_BUNDLE: bundle,
  };
  // A driver worker brings every run to its wait; then a fresh worker process (the one measured) takes
  // them over, so its memory holds the waiting runs and not what it took to get there.
  const driver = new WorkerProcess(workerEnv);
  let worker: WorkerProcess | undefined;
  try {
    await driver.ready;
    const agents = new AgentClient(temporal, taskQueue);
    const ids = Array.from({ length: count }, (_, i) => `${taskQueue}-${i}`);
    log(`${label}: starting ${num(count)} runs (${num(steps)} page reads each before the wait)…`);
    const runs = new Map<string, Awaited<ReturnType<typeof agents.start>>>();
    await pool(ids, 50, async (workflowId) => {
      runs.set(workflowId, await agents.start(WAITING_AGENT, { input: 'Read the manual, then publish a summary.', workflowId }));
    });
    await until(() => driver.asked >= count, 30 * 60_000, `${count} runs to ask for their approval`);
    // The last runs' workflow tasks finish after their model call: a run is waiting once it lists its approval.
    for (const workflowId of ids.slice(-5)) {
      const deadline = Date.now() + 60_000;
      while ((await retried(() => runs.get(workflowId)!.pendingApprovals())).length === 0) {
        if (Date.now() > deadline) throw new Error(`${workflowId} does not wait for its approval`);
        await sleep(200);
      }
    }
    driver.kill();
    worker = new WorkerProcess(workerEnv);
    await worker.ready;
    await sleep(3000);
    const rest = await worker.memory();
    // Every run asked once (a query): the worker replays it from history into its cache.
    log(`${label}: ${num(count)} runs waiting; loading them into the measured worker's cache…`);
    const loading = Date.now();
    await pool(ids, 20, async (workflowId) => {
      const pending = await retried(() => runs.get(workflowId)!.pendingApprovals());
      if (pending.length !== 1) throw new Error(`${workflowId} lists ${pending.length} approvals, not 1`);
    });
    const startSeconds = (Date.now() - loading) / 1000;
    await sleep(3000);
    const waiting = await worker.memory();
    log(`${label}: loaded in ${num(startSeconds)} s; deciding ${num(Math.min(s.decide, count))} of them at ${s.rate}/s…`);

    // Decide a random sample, one by one: each latency is decision sent → approved tool executed.
    const sample = [...ids].sort(() => Math.random() - 0.5).slice(0, Math.min(s.decide, count));
    const sent = new Map<string, number>();
    for (const workflowId of sample) {
      sent.set(workflowId, Date.now());
      void runs.get(workflowId)!.signalDecision({ callId: APPROVAL_CALL, decision: 'approve', by: 'bench' });
      await sleep(1000 / s.rate);
    }
    await until(() => sample.every((id) => worker!.executed.has(id)), 120_000, 'the decided runs to resume');
    const latencies = sample.map((id) => worker!.executed.get(id)! - sent.get(id)!);
    return { label, runs: count, messages: 2 + 2 * steps, rest, waiting, latencies, startSeconds };
  } finally {
    driver.kill();
    worker?.kill();
    rmSync(storeDir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const s = parseSettings(process.argv.slice(2));
  if (!s) {
    console.log(USAGE);
    return;
  }
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const cleanups: Array<() => Promise<unknown> | unknown> = [];
  const log = (l: string) => console.error(l);
  try {
    const { address, server } = await benchServer(log, cleanups);
    const connection = await Connection.connect({ address });
    cleanups.push(() => connection.close());
    const temporal = new Client({ connection });
    // Built once here, as production workers load it: the worker processes do not bundle at start.
    log('bundling workflows…');
    const quiet = { log: () => undefined, trace: () => undefined, debug: () => undefined, info: () => undefined, warn: () => undefined, error: (m: string) => log(m) };
    const bundleDir = mkdtempSync(join(tmpdir(), 'durable-agent-waiting-bundle-'));
    cleanups.push(() => rmSync(bundleDir, { recursive: true, force: true }));
    const bundle = join(bundleDir, 'workflows.js');
    writeFileSync(bundle, (await bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, logger: quiet })).code);
    console.log(`waiting runs on ${server}; one worker process per phase, maxCachedWorkflows ${num(s.cache)}`);
    const results = [await phase(address, bundle, temporal, s, 'short', s.runs, 0, log)];
    log(`short: ${JSON.stringify(results[0])}`);
    if (s.longRuns > 0) results.push(await phase(address, bundle, temporal, s, 'long', s.longRuns, s.longSteps, log));

    const perRun = (r: PhaseResult) => (r.waiting.rss - r.rest.rss) / r.runs;
    console.log('\nworker process memory after a forced GC (MB), and resumption after a decision (ms, decision sent → tool executed):');
    console.log(
      table([
        ['phase', 'runs', 'messages before the wait', 'RSS at rest', 'RSS, all waiting', 'RSS per run (KB)', 'heap per run (KB)', 'load ms/run', 'resume median', 'p90', 'max'],
        ...results.map((r) => [
          r.label,
          num(r.runs),
          num(r.messages),
          mb(r.rest.rss),
          mb(r.waiting.rss),
          num(perRun(r) / 1e3, 1),
          num((r.waiting.heapUsed - r.rest.heapUsed) / r.runs / 1e3, 1),
          num((r.startSeconds * 1000) / r.runs, 1),
          num(quantile(r.latencies, 0.5)),
          num(quantile(r.latencies, 0.9)),
          num(Math.max(...r.latencies)),
        ]),
      ]),
    );
    if (results.length === 2) console.log(`RSS per waiting run, long / short conversation: ${num(perRun(results[1]!) / perRun(results[0]!), 2)}`);
    const per = perRun(results[0]!);
    console.log(`at this rate, 10,000 waiting runs: ${mb(results[0]!.rest.rss + 10_000 * per)} MB RSS (with every run cached)`);
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  },
);
