/**
 * Benchmark, run by hand (not a test): where a step's time goes, durable-agent against the baseline
 * loop, read from the runs' own Temporal histories (every event carries the server's timestamp) and
 * from a counting blob store. Runs one batch of each side (after a warm-up of each), then per side:
 *
 * - history events and activities per tool step, payload bytes per step;
 * - per step, the median time the model-like and the tool-like activity ran in the worker (started →
 *   completed), the workflow tasks' time in the worker (started → completed), and the step's wall time;
 * - per run, the set-up before the first model call (durable-agent: `describeAgent`);
 * - blob-store puts and gets per step (durable-agent only: the baseline has no store).
 *
 *   npx tsx bench/step-profile.ts [--runs N] [--steps M]
 */
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import { temporal } from '@temporalio/proto';
import type { BlobRef } from '../src/core/messages/messages';
import type { BlobStore } from '../src/integrations/store/blob-store';
import { STEP_AGENT } from './agents';
import { startBenchEnvironment } from './environment';
import type { BenchEnvironment } from './environment';
import { intFlag } from './flags';
import { StepMeter } from './step-meter';
import { num, spread, table } from './stats';

const { EventType } = temporal.api.enums.v1;
type Event = temporal.api.history.v1.IHistoryEvent;

/** The agent worker's blob-store operations, counted (whatever step they belong to). */
class CountingMeter extends StepMeter {
  puts = 0;
  gets = 0;
  override store(inner: BlobStore): BlobStore {
    return {
      put: (data: string): Promise<BlobRef> => {
        this.puts++;
        return inner.put(data);
      },
      get: (ref: BlobRef): Promise<string> => {
        this.gets++;
        return inner.get(ref);
      },
    };
  }
}

/** What one run's history says. */
interface RunProfile {
  events: number;
  activities: Map<string, number>;
  /** ms each activity ran in the worker (started → completed), by activity type. */
  activityMs: Map<string, number[]>;
  /** ms of each workflow task in the worker (started → completed). */
  workflowTaskMs: number[];
  workflowTasks: number;
  /** ms from the run's start to its first model-like activity being scheduled. */
  setupMs: number;
  /** ms from the first model-like activity scheduled to the run's close. */
  loopMs: number;
  /** Payload bytes of activity inputs and results. */
  payloadBytes: number;
  /** Payload bytes of the workflow's input and result. */
  ioBytes: number;
  heartbeatTimeoutSet: number;
}

const ms = (e: Event) => {
  const t = e.eventTime;
  return t ? Number(t.seconds ?? 0) * 1000 + Math.floor((t.nanos ?? 0) / 1e6) : 0;
};
const bytes = (p: temporal.api.common.v1.IPayloads | null | undefined) =>
  (p?.payloads ?? []).reduce(
    (s, x) => s + (x.data?.length ?? 0) + (x.metadata ? Object.values(x.metadata).reduce((a, m) => a + m.length, 0) : 0),
    0,
  );

function profile(events: Event[], modelActivity: string): RunProfile {
  const p: RunProfile = {
    events: events.length,
    activities: new Map(),
    activityMs: new Map(),
    workflowTaskMs: [],
    workflowTasks: 0,
    setupMs: 0,
    loopMs: 0,
    payloadBytes: 0,
    ioBytes: 0,
    heartbeatTimeoutSet: 0,
  };
  const typeOf = new Map<string, string>();
  const startedAt = new Map<string, number>();
  let wftStarted = 0;
  let firstModel = 0;
  const start = ms(events[0]!);
  for (const e of events) {
    switch (e.eventType) {
      case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED:
        p.ioBytes += bytes(e.workflowExecutionStartedEventAttributes?.input);
        break;
      case EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED: {
        const a = e.activityTaskScheduledEventAttributes!;
        const name = a.activityType?.name ?? '';
        typeOf.set(String(e.eventId), name);
        p.activities.set(name, (p.activities.get(name) ?? 0) + 1);
        p.payloadBytes += bytes(a.input);
        if (a.heartbeatTimeout && Number(a.heartbeatTimeout.seconds ?? 0) + (a.heartbeatTimeout.nanos ?? 0) > 0) p.heartbeatTimeoutSet++;
        if (name === modelActivity && !firstModel) firstModel = ms(e);
        break;
      }
      case EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED:
        startedAt.set(String(e.activityTaskStartedEventAttributes?.scheduledEventId), ms(e));
        break;
      case EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED: {
        const a = e.activityTaskCompletedEventAttributes!;
        const id = String(a.scheduledEventId);
        const name = typeOf.get(id) ?? '';
        p.payloadBytes += bytes(a.result);
        const list = p.activityMs.get(name) ?? [];
        list.push(ms(e) - (startedAt.get(id) ?? ms(e)));
        p.activityMs.set(name, list);
        break;
      }
      case EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED:
        wftStarted = ms(e);
        break;
      case EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED:
        p.workflowTasks++;
        p.workflowTaskMs.push(ms(e) - wftStarted);
        break;
      case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED:
        p.ioBytes += bytes(e.workflowExecutionCompletedEventAttributes?.result);
        p.loopMs = ms(e) - firstModel;
        break;
    }
  }
  p.setupMs = firstModel - start;
  return p;
}

/** CPU ms used so far by this process's child processes (the dev server started here), from /proc (Linux). */
function childrenCpuMs(): number {
  let ticks = 0;
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      // Fields after the command (which may hold spaces): state ppid … utime(14) stime(15).
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      if (Number(fields[1]) === process.pid) ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // The process ended meanwhile.
    }
  }
  return ticks * 10;
}

/** CPU ms this process and the dev server used during `f`. */
async function cpuOf<T>(f: () => Promise<T>): Promise<{ value: T; workerMs: number; serverMs: number }> {
  const worker0 = process.cpuUsage();
  const server0 = childrenCpuMs();
  const value = await f();
  const worker = process.cpuUsage(worker0);
  return { value, workerMs: (worker.user + worker.system) / 1000, serverMs: childrenCpuMs() - server0 };
}

async function batch(
  env: BenchEnvironment,
  side: 'agent' | 'baseline',
  runs: number,
  steps: number,
): Promise<{ ids: string[]; seconds: number; workerMs: number; serverMs: number }> {
  const { value, workerMs, serverMs } = await cpuOf(() => runBatch(env, side, runs, steps));
  return { ...value, workerMs, serverMs };
}

async function runBatch(
  env: BenchEnvironment,
  side: 'agent' | 'baseline',
  runs: number,
  steps: number,
): Promise<{ ids: string[]; seconds: number }> {
  const id = randomUUID().slice(0, 8);
  const ids = Array.from({ length: runs }, (_, i) => `profile-${side}-${id}-${i}`);
  const t0 = performance.now();
  await Promise.all(
    ids.map(async (workflowId) => {
      if (side === 'agent') {
        // A prompt of its own: every run's transcript differs, as real ones do (with one prompt, every
        // run of the batch would store the same blobs, which the worker writes only once).
        const run = await env.agents.start(STEP_AGENT, { input: `go ${workflowId}`, workflowId });
        const r = await run.result();
        if (r.status !== 'success') throw new Error(`${workflowId}: ${r.status}`);
      } else {
        await env.temporal.workflow.execute('baselineWorkflow', { taskQueue: env.baselineQueue, workflowId, args: [{ toolSteps: steps }] });
      }
    }),
  );
  return { ids, seconds: (performance.now() - t0) / 1000 };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { runs: { type: 'string', short: 'n', default: '10' }, steps: { type: 'string', short: 'm', default: '20' } },
  });
  const runs = intFlag('runs', values.runs, 1);
  const steps = intFlag('steps', values.steps, 1);
  const counting = new CountingMeter();
  const env = await startBenchEnvironment({ steps, longSteps: 1, longBytes: 1, meter: counting }, (l) => console.log(l));
  try {
    await batch(env, 'agent', runs, steps);
    await batch(env, 'baseline', runs, steps);
    const puts0 = counting.puts;
    const gets0 = counting.gets;
    const agent = await batch(env, 'agent', runs, steps);
    const storeOps = { puts: counting.puts - puts0, gets: counting.gets - gets0 };
    const base = await batch(env, 'baseline', runs, steps);
    const read = async (ids: string[], model: string) =>
      Promise.all(ids.map(async (id) => profile((await env.temporal.workflow.getHandle(id).fetchHistory()).events ?? [], model)));
    const sides = {
      'durable-agent': { ps: await read(agent.ids, 'callModel'), seconds: agent.seconds, cpu: agent, model: 'callModel', tool: 'runTool' },
      baseline: { ps: await read(base.ids, 'modelLike'), seconds: base.seconds, cpu: base, model: 'modelLike', tool: 'toolLike' },
    };
    const steps1 = steps + 1;
    const med = (xs: number[]) => spread(xs).median;
    const per = (f: (p: RunProfile) => number) => Object.values(sides).map((s) => num(med(s.ps.map(f)), 2));
    const all = (f: (p: RunProfile) => number[]) => Object.values(sides).map((s) => num(med(s.ps.flatMap(f)), 2));
    console.log(
      `\n${runs} runs × ${steps} tool steps, one batch each side after a warm-up; medians over runs (or over every activity / workflow task)\n`,
    );
    console.log(
      table([
        ['', 'durable-agent', 'baseline'],
        ['steps/s of the batch', ...Object.values(sides).map((s) => num((runs * steps) / s.seconds, 1))],
        ['worker process CPU ms per tool step (all threads)', ...Object.values(sides).map((s) => num(s.cpu.workerMs / (runs * steps), 2))],
        ['dev server CPU ms per tool step', ...Object.values(sides).map((s) => num(s.cpu.serverMs / (runs * steps), 2))],
        ['history events per tool step', ...per((p) => p.events / steps)],
        [
          'activities per run',
          ...Object.values(sides).map((s) => [...(s.ps[0]?.activities ?? new Map())].map(([k, v]) => `${k} ${v}`).join(', ')),
        ],
        ['activities with a heartbeat timeout per run', ...per((p) => p.heartbeatTimeoutSet)],
        ['workflow tasks per tool step', ...per((p) => p.workflowTasks / steps)],
        ['activity payload bytes per tool step (in + out)', ...per((p) => p.payloadBytes / steps)],
        ['workflow input + result bytes per run', ...per((p) => p.ioBytes)],
        ['ms from start to the first model call (set-up)', ...per((p) => p.setupMs)],
        ['ms per model call after set-up (loop / model calls)', ...per((p) => p.loopMs / steps1)],
        [
          'ms a model-like activity ran in the worker',
          ...Object.values(sides).map((s) => num(med(s.ps.flatMap((p) => p.activityMs.get(s.model) ?? [])), 2)),
        ],
        [
          'ms a tool-like activity ran in the worker',
          ...Object.values(sides).map((s) => num(med(s.ps.flatMap((p) => p.activityMs.get(s.tool) ?? [])), 2)),
        ],
        ['ms a workflow task ran in the worker', ...all((p) => p.workflowTaskMs)],
        ['blob puts / gets per tool step', `${num(storeOps.puts / (runs * steps), 2)} / ${num(storeOps.gets / (runs * steps), 2)}`, '–'],
      ]),
    );
  } finally {
    await env.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
