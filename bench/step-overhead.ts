/**
 * Benchmark, run by hand (not a test): the per-step overhead of durable-agent over a minimal
 * hand-written Temporal workflow doing the same work, and the history bytes per step of a long run.
 *
 *   npx tsx bench/step-overhead.ts [--runs N] [--steps M] [--reps R] [--warmup W] [--long-steps L] [--long-bytes B]
 *
 * See bench/README.md for what is measured and how to read the output.
 */
import { randomUUID } from 'node:crypto';
import { cpus } from 'node:os';
import { parseArgs } from 'node:util';
import { startBenchEnvironment, WORKER_SETTINGS } from './environment';
import type { BenchEnvironment } from './environment';
import { historyRun } from './history-run';
import type { HistoryRun } from './history-run';
import { num, spread, table } from './stats';
import type { BatchSize, Side } from './throughput';
import { timeBatch } from './throughput';
import { intFlag } from './flags';

const USAGE = `Usage: npx tsx bench/step-overhead.ts [options]

  -n, --runs N        concurrent runs per timed batch (default 10)
  -m, --steps M       tool steps per run; each run also makes one final answering model call (default 20)
  -r, --reps R        timed repetitions of each side, alternating which goes first (default 5)
      --warmup W      untimed warm-up rounds of both sides (default 1)
      --long-steps L  tool steps of the long history run, 0 to skip it (default 200)
      --long-bytes B  bytes each long-run tool call returns (default 2048)
  -h, --help          show this help`;

/** The benchmark's settings. */
interface Settings extends BatchSize {
  reps: number;
  warmup: number;
  longSteps: number;
  longBytes: number;
}

function parseSettings(argv: string[]): Settings | undefined {
  const { values } = parseArgs({
    args: argv,
    options: {
      runs: { type: 'string', short: 'n', default: '10' },
      steps: { type: 'string', short: 'm', default: '20' },
      reps: { type: 'string', short: 'r', default: '5' },
      warmup: { type: 'string', default: '1' },
      'long-steps': { type: 'string', default: '200' },
      'long-bytes': { type: 'string', default: '2048' },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  });
  if (values.help) return undefined;
  const int = intFlag;
  const settings = {
    runs: int('runs', values.runs, 1),
    steps: int('steps', values.steps, 1),
    reps: int('reps', values.reps, 1),
    warmup: int('warmup', values.warmup, 0),
    longSteps: int('long-steps', values['long-steps'], 0),
    longBytes: int('long-bytes', values['long-bytes'], 1),
  };
  if (settings.longSteps > 0 && settings.longSteps < 10) throw new Error('--long-steps must be 0 (skip) or at least 10');
  return settings;
}

/** Timed repetitions, each side once per repetition, the order alternating so drift hits both. */
async function compare(env: BenchEnvironment, s: Settings): Promise<void> {
  for (let w = 0; w < s.warmup; w++) {
    for (const side of ['durable-agent', 'baseline'] as const) await timeBatch(env, side, s);
  }
  const rates: Record<Side, number[]> = { 'durable-agent': [], baseline: [] };
  const rows: string[][] = [['rep', 'first', 'durable-agent steps/s', 'baseline steps/s', 'ratio']];
  for (let rep = 0; rep < s.reps; rep++) {
    const order: Side[] = rep % 2 === 0 ? ['durable-agent', 'baseline'] : ['baseline', 'durable-agent'];
    const got = {} as Record<Side, number>;
    for (const side of order) got[side] = await timeBatch(env, side, s);
    rates['durable-agent'].push(got['durable-agent']);
    rates.baseline.push(got.baseline);
    rows.push([
      String(rep + 1),
      order[0] as string,
      num(got['durable-agent'], 1),
      num(got.baseline, 1),
      num(got['durable-agent'] / got.baseline, 3),
    ]);
  }
  console.log(table(rows));
  const agent = spread(rates['durable-agent']);
  const base = spread(rates.baseline);
  const ratios = spread(rates['durable-agent'].map((a, i) => a / (rates.baseline[i] as number)));
  console.log('');
  console.log(
    table([
      ['', 'min', 'median', 'max'],
      ['durable-agent steps/s', num(agent.min, 1), num(agent.median, 1), num(agent.max, 1)],
      ['baseline steps/s', num(base.min, 1), num(base.median, 1), num(base.max, 1)],
      ['ratio per rep (agent/baseline)', num(ratios.min, 3), num(ratios.median, 3), num(ratios.max, 3)],
    ]),
  );
  console.log(`\nratio of medians (durable-agent / baseline): ${num(agent.median / base.median, 3)}`);
}

function printHistoryRun(run: HistoryRun, longBytes: number): void {
  const steps = [10, run.toolSteps];
  const at = steps.map((k) => {
    const h = run.history.steps.get(k);
    if (!h) throw new Error(`no history events found for step ${k} of ${run.workflowId}`);
    return h;
  });
  const col = (f: (i: number) => number) => at.map((_, i) => num(f(i)));
  console.log(
    `one run of ${run.toolSteps} tool steps + 1 answer, tool returns ${num(longBytes)} B each step: ` +
      `${num(run.seconds, 1)} s, ${num((run.seconds * 1000) / (run.toolSteps + 1), 1)} ms per model call (one run alone)\n`,
  );
  console.log(
    table([
      ['', ...steps.map((k) => `step ${k}`)],
      ['conversation sent to the model (B, not in history)', ...col((i) => run.conversationBytesAt(steps[i] as number))],
      ['callModel input payload (B)', ...col((i) => at[i]!.callModelInputBytes)],
      ['callModel result payload (B)', ...col((i) => at[i]!.callModelResultBytes)],
      ['runTool result payload (B)', ...col((i) => at[i]!.runToolResultBytes)],
      ['history events in the step', ...col((i) => at[i]!.events)],
      ['history bytes in the step', ...col((i) => at[i]!.bytes)],
    ]),
  );
  const h = run.history;
  const all = [...h.steps.values()].filter((x) => x.step <= run.toolSteps).map((x) => x.bytes);
  const perStep = spread(all);
  console.log(
    `\nhistory bytes per tool step over all ${all.length} tool steps: min ${num(perStep.min)}, median ${num(perStep.median)}, max ${num(perStep.max)}`,
  );
  console.log(
    `total history: ${num(h.events)} events, ${num(h.bytes)} B encoded ` +
      `(server reports ${num(run.serverHistoryEvents)} events, ${run.serverHistoryBytes === undefined ? 'size n/a' : `${num(run.serverHistoryBytes)} B`})`,
  );
  console.log(`  of which: start + describeAgent ${num(h.setup.bytes)} B; workflow result (closing event payload) ${num(h.resultBytes)} B`);
}

async function main(): Promise<void> {
  let settings: Settings | undefined;
  try {
    settings = parseSettings(process.argv.slice(2));
  } catch (err) {
    console.error(`${(err as Error).message}\n\n${USAGE}`);
    process.exitCode = 2;
    return;
  }
  if (!settings) {
    console.log(USAGE);
    return;
  }
  const s = settings;
  const log = (line: string) => console.error(line);
  const env = await startBenchEnvironment({ steps: s.steps, longSteps: s.longSteps, longBytes: s.longBytes }, log);
  try {
    const cpu = cpus();
    console.log('durable-agent step overhead');
    console.log(`server:   ${env.server}`);
    console.log(`machine:  ${cpu.length} × ${cpu[0]?.model.trim() ?? 'unknown CPU'}, Node ${process.version}`);
    console.log(`workers:  one per side, same process and connection, settings ${JSON.stringify(WORKER_SETTINGS)}`);
    console.log(
      `workload: ${s.runs} concurrent runs × ${s.steps} steps (model call → one read-only tool call; then one answering model call), ` +
        `${s.reps} reps, ${s.warmup} warm-up; steps/s = runs × steps / wall time of the batch\n`,
    );
    await compare(env, s);
    if (s.longSteps > 0) {
      console.log('\n--- history per step ---');
      printHistoryRun(await historyRun(env, s.longSteps, randomUUID().slice(0, 8)), s.longBytes);
    }
  } finally {
    await env.close();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
