/**
 * Benchmark, run by hand (not a test): the worker CPU a step costs, durable-agent against the baseline
 * loop, free of the server and of the other side's load. Records one run of each side on a dev server,
 * then, in this process, with interleaved reps:
 *
 * - **workflow code**: replays each history many times (`debugMode`: the workflow runs in the main
 *   thread, so this process's CPU time is the workflow's), and counts the promises the workflow creates
 *   per step (Temporal's workflow runtime captures and source-maps a stack trace for every promise made
 *   in workflow code, so promises are a large part of a workflow task's cost);
 * - **activities**: runs each side's activities on the inputs its history recorded, in order, in
 *   Temporal's mock activity context (durable-agent on a fresh file store and on a memory store).
 *
 *   npx tsx bench/step-cpu.ts [--steps M] [--copies K] [--reps R] [--part both|workflow|activities]
 */
import { randomUUID } from 'node:crypto';
import { promiseHooks } from 'node:v8';
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import { temporal } from '@temporalio/proto';
import { DefaultLogger, Runtime, Worker, bundleWorkflowCode } from '@temporalio/worker';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Payload } from '@temporalio/common';
import { defaultPayloadConverter } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createActivities } from '../src/activities';
import { AgentRegistry } from '../src/agents/registry';
import type { BlobStore } from '../src/integrations/store/blob-store';
import { FileBlobStore, MemoryBlobStore, blobRef } from '../src/integrations/store/blob-store';
import { TranscriptStore } from '../src/integrations/store/transcript-store';
import { baselineActivities } from './baseline/activities';
import { WORKFLOWS_PATH } from '../src/worker';
import { withAgentPreload } from '../src/worker/workflows-entry';
import { STEP_AGENT, benchAgents } from './agents';
import { startBenchEnvironment } from './environment';
import { intFlag } from './flags';
import { num, spread, table } from './stats';

type History = temporal.api.history.v1.IHistory;
const { EventType } = temporal.api.enums.v1;

const noop = () => undefined;
const quietLogger = { log: noop, trace: noop, debug: noop, info: noop, warn: noop, error: (m: string) => console.error(m) };

/** One timed replay of `copies` copies of a history: CPU ms of this process, and promises created. */
async function replay(
  code: string,
  history: History,
  workflowId: string,
  copies: number,
): Promise<{ cpuMs: number; wallMs: number; promises: number }> {
  let promises = 0;
  // Promises of the workflow's own realm (its vm context), not the worker's.
  const stop = promiseHooks.onInit((promise) => {
    if ((promise as Promise<unknown>).constructor !== Promise) promises++;
  });
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  try {
    const histories = Array.from({ length: copies }, () => ({ workflowId, history }));
    for await (const r of Worker.runReplayHistories(
      { workflowBundle: { code }, debugMode: true } as Parameters<typeof Worker.runReplayHistories>[0],
      histories,
    )) {
      if (r.error) throw r.error;
    }
  } finally {
    stop();
  }
  const cpu = process.cpuUsage(cpu0);
  return { cpuMs: (cpu.user + cpu.system) / 1000, wallMs: performance.now() - t0, promises };
}

/** The activity calls a history recorded, in order: type and decoded arguments. */
function recordedCalls(history: History): Array<{ type: string; args: unknown[] }> {
  return (history.events ?? [])
    .filter((e) => e.activityTaskScheduledEventAttributes)
    .map((e) => {
      const a = e.activityTaskScheduledEventAttributes!;
      return {
        type: a.activityType?.name ?? '',
        args: (a.input?.payloads ?? []).map((p) => defaultPayloadConverter.fromPayload(p as Payload)),
      };
    });
}

/** CPU ms of running `calls` on `activities` in order (each in a mock activity context). */
async function runCalls(
  activities: Record<string, (...args: never[]) => Promise<unknown>>,
  calls: Array<{ type: string; args: unknown[] }>,
): Promise<number> {
  const env = new MockActivityEnvironment();
  const cpu0 = process.cpuUsage();
  for (const call of calls) {
    const fn = activities[call.type];
    if (!fn) throw new Error(`no activity ${call.type}`);
    await env.run(fn as (...args: unknown[]) => Promise<unknown>, ...call.args);
  }
  const cpu = process.cpuUsage(cpu0);
  return (cpu.user + cpu.system) / 1000;
}

/**
 * A file store in a new directory whose shard directories exist and are known to it, as in a worker
 * that has run for a while (a new store makes each shard directory on its first write there).
 */
async function warmFileStore(dir: string): Promise<FileBlobStore> {
  const store = new FileBlobStore(dir);
  for (const text of shardFillers()) await store.put(text);
  return store;
}

let fillers: string[] | undefined;
/** One short text for each of the 256 shards (by the first byte of its SHA-256), found once. */
function shardFillers(): string[] {
  if (fillers) return fillers;
  const byShard = new Map<string, string>();
  for (let i = 0; byShard.size < 256; i++) {
    const text = `warm-up ${i}`;
    const shard = blobRef(text).slice(7, 9);
    if (!byShard.has(shard)) byShard.set(shard, text);
  }
  fillers = [...byShard.values()];
  return fillers;
}

/** Activity CPU per step of each side (medians of interleaved reps), on fresh stores each rep. */
async function activityCpu(
  histories: { agent: History; baseline: History },
  steps: number,
  copies: number,
  reps: number,
): Promise<{ file: number; memory: number; baseline: number }> {
  const { agents, provider } = benchAgents({ steps, longSteps: 1, longBytes: 1 });
  const registry = new AgentRegistry(agents);
  // A run describes its agent in a local activity (a marker, not a scheduled activity): call it first.
  const recorded = recordedCalls(histories.agent);
  const agentCalls = recorded.some((c) => c.type === 'describeAgent')
    ? recorded
    : [{ type: 'describeAgent', args: [{ agent: STEP_AGENT }] }, ...recorded];
  const baselineCalls = recordedCalls(histories.baseline);
  const work = mkdtempSync(join(tmpdir(), 'durable-agent-step-cpu-'));
  const activitiesOn = (blobs: BlobStore) =>
    createActivities({ registry, providers: new Map([['scripted', provider]]), store: new TranscriptStore(blobs) }) as unknown as Record<
      string,
      (...args: never[]) => Promise<unknown>
    >;
  const sides = { file: [] as number[], memory: [] as number[], baseline: [] as number[] };
  try {
    for (let rep = 0; rep <= reps; rep++) {
      const m = { file: 0, memory: 0, baseline: 0 };
      for (let c = 0; c < copies; c++) {
        m.file += await runCalls(activitiesOn(await warmFileStore(join(work, `${rep}-${c}`))), agentCalls);
        m.memory += await runCalls(activitiesOn(new MemoryBlobStore()), agentCalls);
        m.baseline += await runCalls(
          baselineActivities as unknown as Record<string, (...args: never[]) => Promise<unknown>>,
          baselineCalls,
        );
      }
      // Rep 0 warms up.
      if (rep > 0) for (const k of ['file', 'memory', 'baseline'] as const) sides[k].push(m[k] / (copies * steps));
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return { file: spread(sides.file).median, memory: spread(sides.memory).median, baseline: spread(sides.baseline).median };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      steps: { type: 'string', short: 'm', default: '20' },
      copies: { type: 'string', short: 'k', default: '40' },
      reps: { type: 'string', short: 'r', default: '5' },
      part: { type: 'string', default: 'both' },
    },
  });
  const part = values.part;
  if (part !== 'both' && part !== 'workflow' && part !== 'activities')
    throw new Error(`--part must be both, workflow or activities (got ${JSON.stringify(part)})`);
  const steps = intFlag('steps', values.steps, 1);
  const copies = intFlag('copies', values.copies, 1);
  const reps = intFlag('reps', values.reps, 1);
  const env = await startBenchEnvironment({ steps, longSteps: 1, longBytes: 1 }, (l) => console.log(l));
  let histories: { agent: History; baseline: History; agentId: string; baselineId: string };
  try {
    const id = randomUUID().slice(0, 8);
    const agentId = `stepcpu-agent-${id}`;
    const baselineId = `stepcpu-baseline-${id}`;
    const run = await env.agents.start(STEP_AGENT, { input: 'go', workflowId: agentId });
    const r = await run.result();
    if (r.status !== 'success') throw new Error(`agent run ended ${r.status}`);
    await env.temporal.workflow.execute('baselineWorkflow', {
      taskQueue: env.baselineQueue,
      workflowId: baselineId,
      args: [{ toolSteps: steps }],
    });
    histories = {
      agent: await env.temporal.workflow.getHandle(agentId).fetchHistory(),
      baseline: await env.temporal.workflow.getHandle(baselineId).fetchHistory(),
      agentId,
      baselineId,
    };
  } finally {
    await env.close();
  }
  console.log(`\nhistory events by type (durable-agent / baseline):`);
  const types = (h: History) => {
    const m = new Map<string, number>();
    for (const e of h.events ?? [])
      m.set(EventType[e.eventType ?? 0] ?? String(e.eventType), (m.get(EventType[e.eventType ?? 0] ?? '') ?? 0) + 1);
    return m;
  };
  const [ta, tb] = [types(histories.agent), types(histories.baseline)];
  for (const k of new Set([...ta.keys(), ...tb.keys()]))
    console.log(`  ${k.replace('EVENT_TYPE_', '').padEnd(44)} ${String(ta.get(k) ?? 0).padStart(5)} ${String(tb.get(k) ?? 0).padStart(5)}`);
  Runtime.install({ logger: new DefaultLogger('WARN') });
  console.log('bundling workflows…');
  const [agentBundle, baselineBundle] = await Promise.all([
    bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, preloadModules: withAgentPreload(), logger: quietLogger }),
    bundleWorkflowCode({ workflowsPath: join(__dirname, 'baseline', 'workflows.ts'), logger: quietLogger }),
  ]);
  const rows: string[][] = [['per tool step', 'durable-agent', 'baseline', 'ratio']];
  if (part !== 'activities') {
    const w = await workflowCpu(
      {
        agent: { code: agentBundle.code, history: histories.agent, id: histories.agentId },
        baseline: { code: baselineBundle.code, history: histories.baseline, id: histories.baselineId },
      },
      steps,
      copies,
      reps,
    );
    rows.push(['workflow code: CPU ms (replay)', num(w.agent.cpu, 3), num(w.baseline.cpu, 3), num(w.agent.cpu / w.baseline.cpu, 2)]);
    rows.push([
      'promises created in workflow code',
      num(w.agent.promises, 1),
      num(w.baseline.promises, 1),
      num(w.agent.promises / w.baseline.promises, 2),
    ]);
  }
  if (part !== 'workflow') {
    const acts = await activityCpu(histories, steps, copies, reps);
    rows.push(['activities: CPU ms (file store)', num(acts.file, 3), num(acts.baseline, 3), num(acts.file / acts.baseline, 2)]);
    rows.push(['activities: CPU ms (memory store)', num(acts.memory, 3), '', num(acts.memory / acts.baseline, 2)]);
  }
  rows.push([
    'history events',
    num((histories.agent.events?.length ?? 0) / steps, 2),
    num((histories.baseline.events?.length ?? 0) / steps, 2),
    '',
  ]);
  console.log(`\n${copies} copies of one ${steps}-step run per side and rep, ${reps} reps, interleaved (medians)\n`);
  console.log(table(rows));
}

/** Workflow-code CPU and promises per step of each side: replays, after a warm-up, alternating which side goes first. */
async function workflowCpu(
  sides: { agent: { code: string; history: History; id: string }; baseline: { code: string; history: History; id: string } },
  steps: number,
  copies: number,
  reps: number,
): Promise<{ agent: { cpu: number; promises: number }; baseline: { cpu: number; promises: number } }> {
  const m = { agent: { cpu: [] as number[], promises: [] as number[] }, baseline: { cpu: [] as number[], promises: [] as number[] } };
  for (const s of Object.values(sides)) await replay(s.code, s.history, s.id, Math.min(copies, 5));
  for (let rep = 0; rep < reps; rep++) {
    const order = rep % 2 === 0 ? (['agent', 'baseline'] as const) : (['baseline', 'agent'] as const);
    for (const k of order) {
      const r = await replay(sides[k].code, sides[k].history, sides[k].id, copies);
      m[k].cpu.push(r.cpuMs / (copies * steps));
      m[k].promises.push(r.promises / (copies * steps));
    }
  }
  const med = (xs: number[]) => spread(xs).median;
  return {
    agent: { cpu: med(m.agent.cpu), promises: med(m.agent.promises) },
    baseline: { cpu: med(m.baseline.cpu), promises: med(m.baseline.promises) },
  };
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
