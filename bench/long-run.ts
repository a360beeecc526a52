/**
 * Benchmark, run by hand (not a test): one agent run of many steps with sizable tool outputs, the way a
 * background agent lives for days, and beside it the naive loop that passes the whole conversation
 * through every model activity, to show where that one dies.
 *
 *   npx tsx bench/long-run.ts [--steps 10000] [--bytes 20480] [--naive-steps 500]
 *
 * See bench/README.md for what is measured and how to read the output.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { LONG_AGENT } from './agents';
import { startBenchEnvironment } from './environment';
import type { BenchEnvironment } from './environment';
import { naiveRun } from './naive-run';
import { num, spread, table } from './stats';
import { StepMeter } from './step-meter';
import { intFlag } from './flags';

const USAGE = `Usage: npx tsx bench/long-run.ts [options]

  -s, --steps N        tool steps of the durable-agent run, 0 to skip it (default 10000; at least 400)
  -b, --bytes B        bytes each tool call returns (default 20480)
  -w, --window T       the agent's context window in tokens (default 200000): it compacts at 80%
      --naive-steps M  most steps the naive loop is given, 0 to skip it (default 500; it dies long before)
  -h, --help           show this help`;

interface Settings {
  steps: number;
  bytes: number;
  window: number;
  naiveSteps: number;
}

function parseSettings(argv: string[]): Settings | undefined {
  const { values } = parseArgs({
    args: argv,
    options: {
      steps: { type: 'string', short: 's', default: '10000' },
      bytes: { type: 'string', short: 'b', default: '20480' },
      window: { type: 'string', short: 'w', default: '200000' },
      'naive-steps': { type: 'string', default: '500' },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  });
  if (values.help) return undefined;
  const int = intFlag;
  const settings = {
    steps: int('steps', values.steps, 0),
    bytes: int('bytes', values.bytes, 1),
    window: int('window', values.window, 1000),
    naiveSteps: int('naive-steps', values['naive-steps'], 0),
  };
  if (settings.steps > 0 && settings.steps < 400)
    throw new Error('--steps must be 0 (skip the durable-agent run) or at least 400, to compare steps ~100 and ~N-100');
  return settings;
}

/** A forced garbage collection, so heap figures are live data rather than garbage not yet collected. */
const gc: () => void = (() => {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
})();

interface MemorySample {
  step: number;
  rss: number;
  heapUsed: number;
}

function memory(step: number): MemorySample {
  gc();
  const m = process.memoryUsage();
  return { step, rss: m.rss, heapUsed: m.heapUsed };
}

const mb = (bytes: number) => num(bytes / 1e6, 1);

/** The durable-agent run: per-step times, memory, and history per execution. */
async function agentRun(env: BenchEnvironment, meter: StepMeter, s: Settings): Promise<void> {
  const memoryAt = s.steps >= 2000 ? 1000 : Math.floor(s.steps / 2);
  // Step 200, the middle, step 2,000 (or the last tool step of a shorter run): memory must stay flat.
  const lateStep = Math.min(2000, s.steps);
  const sampled = new Set([200, memoryAt, lateStep]);
  const samples: MemorySample[] = [memory(0)];
  meter.onStep = (step) => {
    if (sampled.has(step)) samples.push(memory(step));
  };
  const started = performance.now();
  const run = await env.agents.start(LONG_AGENT, {
    input: 'Read the manual page by page.',
    workflowId: `bench-long-run-${randomUUID().slice(0, 8)}`,
  });
  let lastStep = 0;
  const progress = setInterval(() => {
    const step = Math.max(0, ...meter.steps.keys());
    if (step !== lastStep) console.error(`  … step ${num(step)} (${num((performance.now() - started) / 1000)} s)`);
    lastStep = step;
  }, 60_000);
  const result = await run.result().finally(() => clearInterval(progress));
  const seconds = (performance.now() - started) / 1000;
  samples.push(memory(s.steps + 1));
  if (result.status !== 'success' || result.steps !== s.steps + 1)
    throw new Error(`the run ended ${result.status} after ${result.steps} steps: ${result.error?.message ?? ''}`);

  const executions: Array<{ events: number; bytes: number }> = [];
  for await (const w of env.temporal.workflow.list({ query: `WorkflowId = '${run.workflowId}'` })) {
    const d = await env.temporal.workflow.getHandle(run.workflowId, w.runId).describe();
    executions.push({ events: d.historyLength, bytes: d.historySize ?? 0 });
  }
  const events = spread(executions.map((e) => e.events));
  const bytes = spread(executions.map((e) => e.bytes));
  const totalBytes = executions.reduce((n, e) => n + e.bytes, 0);

  console.log(
    `\ndurable-agent: ${num(s.steps)} tool steps + the answer, ${num(s.bytes)} B per tool output: ${result.status} in ${num(seconds)} s (${num((seconds * 1000) / (s.steps + 1), 1)} ms per step overall)`,
  );
  console.log(`executions: ${executions.length} (continued as new ${executions.length - 1} times)`);
  console.log(`  events per execution: min ${num(events.min)}, median ${num(events.median)}, max ${num(events.max)}`);
  console.log(
    `  MB of history per execution: min ${mb(bytes.min)}, median ${mb(bytes.median)}, max ${mb(bytes.max)} (all executions: ${mb(totalBytes)} MB)`,
  );
  console.log(
    `  result: ${num(JSON.stringify(result).length)} B (report steps ${result.report.steps.length}, omitted ${result.report.stepsOmitted})`,
  );
  const largest = env.provider.largestRequest.get(LONG_AGENT) ?? 0;
  console.log(
    `context: window ${num(s.window)} tokens; compacted ${num(result.report.compactions ?? 0)} times; largest request the model was sent: ${num(largest)} tokens (estimate, 4 characters a token)`,
  );

  const window = (from: number, to: number) => ({
    label: `steps ${num(from)}–${num(to)}`,
    ms: meter.msPerStep(from, to),
    model: meter.mean(from, to, (x) => x.modelMs),
    gets: meter.mean(from, to, (x) => x.blobGets),
    getBytes: meter.mean(from, to, (x) => x.blobGetBytes),
    summaries: meter.mean(from, to, (x) => x.summaries) * (to - from),
  });
  const early = window(50, 150);
  const late = window(s.steps - 150, s.steps - 50);
  const tenth = Math.floor(s.steps / 10);
  const curve = Array.from({ length: 10 }, (_, i) => window(Math.max(1, i * tenth), (i + 1) * tenth));
  const row = (w: ReturnType<typeof window>) => [
    w.label,
    num(w.ms, 1),
    num(w.model, 1),
    num(w.ms - w.model, 1),
    num(w.gets, 1),
    mb(w.getBytes),
    num(w.summaries),
  ];
  console.log('\nper-step time (wall clock between model calls, measured in the worker):');
  console.log(
    table([
      ['', 'ms/step', 'in the model', 'the rest', 'blob reads/step', 'MB read/step', 'compactions'],
      row(early),
      row(late),
      [],
      ...curve.map(row),
    ]),
  );
  console.log(
    `ratio late/early: ${num(late.ms / early.ms, 2)} (without the model's own time: ${num((late.ms - late.model) / (early.ms - early.model), 2)})`,
  );

  const at = (step: number) => samples.find((m) => m.step === step)!;
  console.log('\nworker process memory after a forced GC (MB; the worker runs in this process):');
  console.log(
    table([
      ['', 'RSS', 'heap used'],
      ...[samples[0]!, ...[...sampled].sort((a, b) => a - b).map(at), at(s.steps + 1)].map((m) => [
        m.step === 0 ? 'start' : m.step > s.steps ? `end (step ${num(m.step)})` : `step ${num(m.step)}`,
        mb(m.rss),
        mb(m.heapUsed),
      ]),
    ]),
  );
  console.log(
    `RSS at step ${num(lateStep)} / step 200: ${num(at(lateStep).rss / at(200).rss, 3)} (heap used: ${num(at(lateStep).heapUsed / at(200).heapUsed, 3)})`,
  );
}

/** The naive loop, until it dies. */
async function naive(env: BenchEnvironment, s: Settings): Promise<void> {
  const out = await naiveRun(env, s.naiveSteps, s.bytes, randomUUID().slice(0, 8));
  console.log(
    `\nnaive loop (whole conversation in every model activity's input), ${num(s.bytes)} B per tool output, at most ${num(s.naiveSteps)} steps:`,
  );
  console.log(
    out.completed
      ? `  finished all ${num(out.stepsDone)} model calls (raise --naive-steps to see it die)`
      : `  died after ${num(out.stepsDone)} model calls (${out.status}): ${out.reason}`,
  );
  console.log(
    `  history: ${num(out.historyEvents)} events, ${mb(out.historyBytes)} MB; largest model input ${mb(out.largestInputBytes)} MB; ${num(out.seconds)} s`,
  );
}

async function main(): Promise<void> {
  const s = parseSettings(process.argv.slice(2));
  if (!s) {
    console.log(USAGE);
    return;
  }
  const meter = new StepMeter();
  const env = await startBenchEnvironment(
    { steps: 1, longSteps: s.steps, longBytes: s.bytes, longContext: { windowTokens: s.window }, naive: s.naiveSteps > 0, meter },
    (l) => console.error(l),
  );
  try {
    console.log(`long run on ${env.server}, scripted zero-latency model`);
    if (s.steps > 0) await agentRun(env, meter, s);
    if (s.naiveSteps > 0) await naive(env, s);
  } finally {
    await env.close();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  },
);
