/**
 * Benchmark, run by hand (not a test): many runs waiting for a person's approval on ONE worker process,
 * a child process whose memory is sampled. For each phase (short conversations, then long ones before
 * the wait) a driver worker process brings the runs to their wait, then fresh worker processes take them
 * over, one per measured configuration (one query per run loads it into the cache, replaying its
 * history): RSS at rest and with the cache full, per cached run, the load time per run; then, on the
 * same worker, how long a run takes to resume after its decision (decision sent → approved tool
 * executed), for runs still cached and for runs the cache evicted (they replay their history on wake).
 *
 *   npx tsx bench/waiting-runs.ts [--runs 1000] [--cache N] [--long-steps 100] [--long-runs 200]
 *   npx tsx bench/waiting-runs.ts --runs 10000 --cache 2000 --long-runs 0     # the issue's 10,000
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
import { AgentClient } from '../src/client';
import type { AgentRun } from '../src/client';
import { WORKFLOWS_PATH } from '../src/worker';
import { benchServer } from './environment';
import { intFlag } from './flags';
import { num, table } from './stats';
import { APPROVAL_CALL, WAITING_AGENT } from './waiting-agents';

/** A worker configuration: environment of the worker process, Node flags, the bundle with preloaded modules. */
interface Variant {
  about: string;
  env?: Record<string, string>;
  execArgv?: string[];
  preload?: true;
}

/** Worker configurations `--variants` can name (combine them with `+`, e.g. `preload+arena-2`). */
const VARIANTS: Record<string, Variant> = {
  default: { about: "the SDK's defaults (reuseV8Context, workflows on one worker thread)" },
  'main-thread': {
    about: "workflows on the main thread (Temporal's debugMode): the heap figures include them",
    env: { WAIT_MAIN_THREAD: '1' },
  },
  'arena-2': { about: 'MALLOC_ARENA_MAX=2 (glibc: at most 2 malloc arenas)', env: { MALLOC_ARENA_MAX: '2' } },
  'no-reuse': { about: 'reuseV8Context: false (a V8 context per run)', env: { WAIT_REUSE_V8: '0' } },
  'semi-1': { about: '--max-semi-space-size=1 (1 MiB young generation semi-spaces)', execArgv: ['--max-semi-space-size=1'] },
  size: { about: '--optimize-for-size (V8: smaller heap growth, more frequent GC)', execArgv: ['--optimize-for-size'] },
  preload: {
    about:
      'a bundle with bundlerOptions.preloadModules = the agent workflows: their modules shared by every run instead of evaluated per run',
    preload: true,
  },
};

/** The variant `name` names: one of {@link VARIANTS}, or several joined by `+`. */
function variant(name: string): Variant | undefined {
  const parts = name.split('+').map((p) => VARIANTS[p]);
  if (parts.some((p) => !p)) return undefined;
  return parts.reduce<Variant>(
    (all, p) => ({
      about: all.about ? `${all.about} + ${p!.about}` : p!.about,
      env: { ...all.env, ...p!.env },
      execArgv: [...(all.execArgv ?? []), ...(p!.execArgv ?? [])],
      ...(all.preload || p!.preload ? { preload: true as const } : {}),
    }),
    { about: '' },
  );
}

const USAGE = `Usage: npx tsx bench/waiting-runs.ts [options]

  -n, --runs N          runs waiting at once with a short conversation (2 messages) (default 1000)
  -c, --cache C         the measured worker's maxCachedWorkflows (default: --runs, every waiting run cached)
      --driver-cache D  maxCachedWorkflows of the worker that brings the runs to their wait (default: --runs)
      --long-steps S    page reads before the wait in the long phase: 2 + 2 × S messages (default 100)
      --long-runs L     runs of the long phase, 0 to skip it (default 200)
  -b, --bytes B         bytes of each page read (default 500)
  -d, --decide M        runs each variant decides, one by one, to time their resumption: M cached, and M evicted when
                        the cache is smaller than the runs (default 200)
  -r, --rate R          decisions per second (default 20)
      --variants LIST   worker configurations measured one after another on the same waiting runs, comma-
                        separated, each a name or names joined by +; each decides --decide runs of its own (default: default). Known:
${Object.entries(VARIANTS)
  .map(([name, v]) => `                          ${name}: ${v.about}`)
  .join('\n')}
  -h, --help            show this help`;

interface Settings {
  runs: number;
  cache: number;
  driverCache: number;
  longSteps: number;
  longRuns: number;
  bytes: number;
  decide: number;
  rate: number;
  variants: string[];
}

function parseSettings(argv: string[]): Settings | undefined {
  const { values } = parseArgs({
    args: argv,
    options: {
      runs: { type: 'string', short: 'n', default: '1000' },
      cache: { type: 'string', short: 'c' },
      'driver-cache': { type: 'string' },
      'long-steps': { type: 'string', default: '100' },
      'long-runs': { type: 'string', default: '200' },
      bytes: { type: 'string', short: 'b', default: '500' },
      decide: { type: 'string', short: 'd', default: '200' },
      rate: { type: 'string', short: 'r', default: '20' },
      variants: { type: 'string', default: 'default' },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  });
  if (values.help) return undefined;
  const runs = intFlag('runs', values.runs, 1);
  const variants = values.variants
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);
  const unknown = variants.filter((v) => !variant(v));
  if (unknown.length > 0 || variants.length === 0) {
    throw new Error(`--variants: unknown ${JSON.stringify(unknown.join(','))}; name one or more of ${Object.keys(VARIANTS).join(', ')}`);
  }
  return {
    runs,
    cache: values.cache === undefined ? Math.max(2, runs) : intFlag('cache', values.cache, 2),
    driverCache: values['driver-cache'] === undefined ? Math.max(2, runs) : intFlag('driver-cache', values['driver-cache'], 2),
    longSteps: intFlag('long-steps', values['long-steps'], 1),
    longRuns: intFlag('long-runs', values['long-runs'], 0),
    bytes: intFlag('bytes', values.bytes, 1),
    decide: intFlag('decide', values.decide, 0),
    rate: intFlag('rate', values.rate, 1),
    variants,
  };
}

/** A worker process's memory after a forced GC of its main thread (bytes). */
interface Memory {
  rss: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
  /** Anonymous resident memory (malloc arenas, V8 heaps, thread stacks): RSS without mapped files. */
  anonymous: number;
  /** The highest RSS the process has had so far. */
  peakRss: number;
}

/** A worker process of `bench/waiting-worker.ts`, and what it reports. */
class WorkerProcess {
  asked = 0;
  readonly executed = new Map<string, number>();
  private memoryWaiter?: (m: Memory) => void;
  private readonly child: ChildProcess;
  readonly ready: Promise<void>;

  constructor(env: Record<string, string>, execArgv: string[] = []) {
    this.child = fork(join(__dirname, 'waiting-worker.ts'), [], {
      env: { ...process.env, ...env },
      execArgv: ['--expose-gc', ...execArgv, '--import', 'tsx'],
      stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
    });
    this.ready = new Promise((resolve, reject) => {
      this.child.stdout!.on('data', (d: Buffer) => {
        if (d.toString().includes('ready')) resolve();
      });
      this.child.once('exit', (code) => reject(new Error(`the worker process exited (${code}) before it was ready`)));
    });
    this.child.on('message', (m: { type: string; workflowId?: string; at?: number } & Partial<Memory>) => {
      if (m.type === 'asked') this.asked++;
      else if (m.type === 'executed') this.executed.set(m.workflowId!, m.at!);
      else if (m.type === 'memory')
        this.memoryWaiter?.({
          rss: m.rss!,
          heapUsed: m.heapUsed!,
          heapTotal: m.heapTotal!,
          external: m.external!,
          anonymous: m.anonymous!,
          peakRss: m.peakRss!,
        });
    });
  }

  /** Memory after a forced GC in the worker process. */
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

/** `items` through `fn`, at most `parallel` at a time; `progress(done)` every 10 s. */
async function pool<T>(
  items: readonly T[],
  parallel: number,
  fn: (item: T) => Promise<void>,
  progress?: (done: number) => void,
): Promise<void> {
  let next = 0;
  let done = 0;
  const timer = progress ? setInterval(() => progress(done), 10_000) : undefined;
  try {
    await Promise.all(
      Array.from({ length: Math.min(parallel, items.length) }, async () => {
        while (next < items.length) {
          await fn(items[next++]!);
          done++;
        }
      }),
    );
  } finally {
    if (timer) clearInterval(timer);
  }
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

/** `count` items of `items` picked at random. */
function sampleOf<T>(items: readonly T[], count: number): T[] {
  return [...items].sort(() => Math.random() - 0.5).slice(0, Math.min(count, items.length));
}

/** Resumption latencies (ms) by workflow id, of runs decided while cached and of runs the cache had evicted. */
interface Latencies {
  cached: Map<string, number>;
  evicted: Map<string, number>;
}

interface Measured {
  variant: string;
  /** Runs waiting when this variant's worker loaded them. */
  runs: number;
  rest: Memory;
  full: Memory;
  /** Runs the cache holds once every run was loaded. */
  cached: number;
  /** Seconds the worker took to load every waiting run (one query each: a replay). */
  loadSeconds: number;
  latencies: Latencies;
}

interface PhaseResult {
  label: string;
  runs: number;
  messages: number;
  measured: Measured[];
}

/** One phase: `count` runs with `steps` page reads each brought to their wait, then each variant measured. */
async function phase(
  address: string,
  bundles: { plain: string; preload?: string },
  temporal: Client,
  s: Settings,
  label: string,
  count: number,
  steps: number,
  log: (l: string) => void,
): Promise<PhaseResult> {
  const taskQueue = `bench-waiting-${randomUUID().slice(0, 8)}`;
  const storeDir = mkdtempSync(join(tmpdir(), 'durable-agent-waiting-'));
  const env = (cache: number) => ({
    TEMPORAL_ADDRESS: address,
    WAIT_TASK_QUEUE: taskQueue,
    WAIT_STORE_DIR: storeDir,
    WAIT_STEPS: String(steps),
    WAIT_BYTES: String(s.bytes),
    WAIT_CACHE: String(cache),
    WAIT_WORKFLOW_BUNDLE: bundles.plain,
  });
  // A driver worker brings every run to its wait; then fresh worker processes (the ones measured) take
  // them over, so their memory holds the waiting runs and not what it took to get there.
  const driver = new WorkerProcess(env(s.driverCache));
  let worker: WorkerProcess | undefined;
  try {
    await driver.ready;
    const agents = new AgentClient(temporal, taskQueue);
    const ids = Array.from({ length: count }, (_, i) => `${taskQueue}-${i}`);
    log(`${label}: starting ${num(count)} runs (${num(steps)} page reads each before the wait)…`);
    const began = Date.now();
    const runs = new Map<string, AgentRun>();
    await pool(
      ids,
      50,
      async (workflowId) => {
        runs.set(workflowId, await agents.start(WAITING_AGENT, { input: 'Read the manual, then publish a summary.', workflowId }));
      },
      (started) => log(`  ${num(started)} started, ${num(driver.asked)} asking for approval (${num((Date.now() - began) / 1000)} s)`),
    );
    const progress = setInterval(
      () => log(`  ${num(driver.asked)} of ${num(count)} asking for approval (${num((Date.now() - began) / 1000)} s)`),
      10_000,
    );
    try {
      await until(() => driver.asked >= count, 60 * 60_000, `${count} runs to ask for their approval`);
    } finally {
      clearInterval(progress);
    }
    // The last runs' workflow tasks finish after their model call: a run is waiting once it lists its approval.
    for (const workflowId of ids.slice(-5)) {
      const deadline = Date.now() + 60_000;
      while ((await retried(() => runs.get(workflowId)!.pendingApprovals())).length === 0) {
        if (Date.now() > deadline) throw new Error(`${workflowId} does not wait for its approval`);
        await sleep(200);
      }
    }
    log(`${label}: ${num(count)} runs waiting after ${num((Date.now() - began) / 1000)} s`);
    driver.kill();

    const measured: Measured[] = [];
    // Each variant, in turn, loads the runs still waiting, then decides a sample of them (which ends them).
    let waiting: readonly string[] = ids;
    for (const name of s.variants) {
      const spec = variant(name)!;
      worker = new WorkerProcess(
        { ...env(s.cache), ...spec.env, ...(spec.preload ? { WAIT_WORKFLOW_BUNDLE: bundles.preload! } : {}) },
        spec.execArgv,
      );
      await worker.ready;
      await sleep(3000);
      const rest = await worker.memory();
      // Every run asked once (a query), in order: the worker replays it from history into its cache,
      // which keeps the most recently asked `cache` runs.
      log(`${label} [${name}]: loading ${num(waiting.length)} waiting runs into a worker with maxCachedWorkflows ${num(s.cache)}…`);
      const loading = Date.now();
      await pool(
        waiting,
        20,
        async (workflowId) => {
          const pending = await retried(() => runs.get(workflowId)!.pendingApprovals());
          if (pending.length !== 1) throw new Error(`${workflowId} lists ${pending.length} approvals, not 1`);
        },
        (loaded) => log(`  ${num(loaded)} loaded (${num((Date.now() - loading) / 1000)} s)`),
      );
      const loadSeconds = (Date.now() - loading) / 1000;
      await sleep(3000);
      const full = await worker.memory();
      log(`${label} [${name}]: loaded in ${num(loadSeconds)} s; RSS ${mb(rest.rss)} → ${mb(full.rss)} MB (peak ${mb(full.peakRss)} MB)`);
      const latencies = await decide(worker, runs, waiting, s, `${label} [${name}]`, log);
      measured.push({ variant: name, rest, full, runs: waiting.length, cached: Math.min(waiting.length, s.cache), loadSeconds, latencies });
      const decided = new Set([...latencies.cached.keys(), ...latencies.evicted.keys()]);
      waiting = waiting.filter((id) => !decided.has(id));
      worker.kill();
      worker = undefined;
    }
    return { label, runs: count, messages: 2 + 2 * steps, measured };
  } finally {
    driver.kill();
    worker?.kill();
    rmSync(storeDir, { recursive: true, force: true });
  }
}

/**
 * Decide runs one by one at `--rate` per second: first a sample of the most recently loaded (cached)
 * runs, then, when the cache is smaller than the runs, a sample of the first loaded (evicted) ones.
 * Each latency is decision sent → approved tool executed.
 */
async function decide(
  worker: WorkerProcess,
  runs: Map<string, AgentRun>,
  ids: readonly string[],
  s: Settings,
  label: string,
  log: (l: string) => void,
): Promise<Latencies> {
  // Loaded 20 at a time in order: the last half-cache of ids is surely cached, the first (runs − cache) surely not.
  const cachedPool = ids.slice(ids.length - Math.floor(Math.min(s.cache, ids.length) / 2));
  const evictedPool = s.cache < ids.length ? ids.slice(0, Math.max(0, ids.length - s.cache - 20)) : [];
  const groups = { cached: sampleOf(cachedPool, s.decide), evicted: sampleOf(evictedPool, s.decide) };
  const result: Latencies = { cached: new Map(), evicted: new Map() };
  for (const group of ['cached', 'evicted'] as const) {
    const sample = groups[group];
    if (sample.length === 0) continue;
    log(`${label}: deciding ${num(sample.length)} ${group} runs at ${s.rate}/s…`);
    const sent = new Map<string, number>();
    for (const workflowId of sample) {
      sent.set(workflowId, Date.now());
      void runs.get(workflowId)!.signalDecision({ callId: APPROVAL_CALL, decision: 'approve', by: 'bench' });
      await sleep(1000 / s.rate);
    }
    await until(() => sample.every((id) => worker.executed.has(id)), 300_000, `the decided ${group} runs to resume`);
    for (const id of sample) result[group].set(id, worker.executed.get(id)! - sent.get(id)!);
  }
  return result;
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
    const quiet = {
      log: () => undefined,
      trace: () => undefined,
      debug: () => undefined,
      info: () => undefined,
      warn: () => undefined,
      error: (m: string) => log(m),
    };
    const bundleDir = mkdtempSync(join(tmpdir(), 'durable-agent-waiting-bundle-'));
    cleanups.push(() => rmSync(bundleDir, { recursive: true, force: true }));
    const bundles: { plain: string; preload?: string } = { plain: join(bundleDir, 'workflows.js') };
    writeFileSync(bundles.plain, (await bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, logger: quiet })).code);
    if (s.variants.some((v) => variant(v)!.preload)) {
      bundles.preload = join(bundleDir, 'workflows-preloaded.js');
      writeFileSync(
        bundles.preload,
        (await bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, logger: quiet, preloadModules: [WORKFLOWS_PATH] })).code,
      );
    }
    console.log(`waiting runs on ${server}; measured workers: maxCachedWorkflows ${num(s.cache)}, variants ${s.variants.join(', ')}`);
    const results = [await phase(address, bundles, temporal, s, 'short', s.runs, 0, log)];
    log(`short: ${JSON.stringify(results[0], (_k, v: unknown) => (v instanceof Map ? [...v.values()] : v))}`);
    if (s.longRuns > 0) results.push(await phase(address, bundles, temporal, s, 'long', s.longRuns, s.longSteps, log));

    const perRun = (m: Measured, key: keyof Memory) => (m.full[key] - m.rest[key]) / m.cached;
    console.log('\nworker process memory after a forced GC of its main thread (MB; per cached run in KB):');
    console.log(
      table([
        [
          'phase',
          'variant',
          'runs',
          'cached',
          'messages before the wait',
          'RSS at rest',
          'RSS, cache full',
          'peak RSS',
          'RSS/run',
          'anonymous/run',
          'heap used/run',
          'heap total/run',
          'load ms/run',
        ],
        ...results.flatMap((r) =>
          r.measured.map((m) => [
            r.label,
            m.variant,
            num(m.runs),
            num(m.cached),
            num(r.messages),
            mb(m.rest.rss),
            mb(m.full.rss),
            mb(m.full.peakRss),
            num(perRun(m, 'rss') / 1e3, 1),
            num(perRun(m, 'anonymous') / 1e3, 1),
            num(perRun(m, 'heapUsed') / 1e3, 1),
            num(perRun(m, 'heapTotal') / 1e3, 1),
            num((m.loadSeconds * 1000) / m.runs, 1),
          ]),
        ),
      ]),
    );
    const baseline = (r: PhaseResult) => r.measured.find((m) => m.variant === s.variants[0])!;
    for (const r of results) {
      for (const m of r.measured.filter((x) => x.variant !== s.variants[0])) {
        console.log(
          `${r.label}: RSS per cached run, ${m.variant} / ${s.variants[0]}: ${num(perRun(m, 'rss') / perRun(baseline(r), 'rss'), 2)}`,
        );
      }
    }
    console.log(`\nresumption after a decision (ms, decision sent → approved tool executed; ${s.rate} decisions/s):`);
    console.log(
      table([
        ['phase', 'variant', 'runs', 'runs decided', 'median', 'p90', 'p99', 'max'],
        ...results.flatMap((r) =>
          r.measured.flatMap((m) =>
            (['cached', 'evicted'] as const)
              .filter((g) => m.latencies[g].size > 0)
              .map((g) => {
                const l = [...m.latencies[g].values()];
                return [
                  r.label,
                  m.variant,
                  g,
                  num(l.length),
                  num(quantile(l, 0.5)),
                  num(quantile(l, 0.9)),
                  num(quantile(l, 0.99)),
                  num(Math.max(...l)),
                ];
              }),
          ),
        ),
      ]),
    );
    if (results.length === 2)
      console.log(
        `RSS per cached run, long / short conversation: ${num(perRun(baseline(results[1]!), 'rss') / perRun(baseline(results[0]!), 'rss'), 2)}`,
      );
    const short = baseline(results[0]!);
    const per = perRun(short, 'rss');
    console.log(
      `sizing: RSS ≈ ${mb(short.rest.rss)} MB + cache × ${num(per / 1e3)} KB; a 1 GB worker caches about ${num(Math.max(0, (1e9 - short.rest.rss) / per))} such runs`,
    );
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
