/**
 * The chaos campaign: N runs of the chaos agent on W worker processes that share one store, with
 * `kill -9` of workers at chosen moments (mid-model-call, mid-tool, awaiting approval) and restarts of the
 * Temporal server, beside an uninterrupted baseline (the same scripts on one worker process nobody kills).
 * Used by bench/chaos.ts (by hand) and test/restart/chaos.test.ts (its short version in CI).
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { temporal as proto } from '@temporalio/proto';
import { AgentClient } from '../../src/client';
import { WORKFLOW_TASK_TIMEOUT } from '../../src/core/run/contract';
import { STICKY_TIMEOUT_MS } from '../../src/worker';
import { readRunLog } from './agent';
import type { OpenActivity, TranscriptComparison } from './analysis';
import { compareTranscripts, executionsPerCall, lostApprovals, nextStart, openActivities, spread } from './analysis';
import type { FleetSettings, WorkerProcess } from './fleet';
import { killWorker, startWorkerProcess, stopWorker } from './fleet';
import type { LiveRun, RunRecord } from './person';
import { abandonedCallsSettled, driveRun, readMissingEvents } from './person';

/** The Temporal server of a campaign: one it can stop and start again on the same address and database. */
export interface ServerControl {
  readonly address: string;
  stop(): Promise<void>;
  start(): Promise<void>;
}

/** Options of {@link runCampaign}. */
export interface CampaignOptions {
  server: ServerControl;
  /** Path of a prebuilt workflow bundle the worker processes load. */
  bundlePath: string;
  /** Runs of the chaos agent (and as many baseline runs). */
  runs: number;
  /** Kills that hit each run (the controller aims at every run until it has this many). */
  kills: number;
  /** Restarts of the Temporal server during the campaign. */
  serverRestarts: number;
  /** Worker processes under chaos. */
  workers: number;
  /** Runs in flight at once (default `2 × workers`). */
  concurrency?: number;
  /** Store setting every worker shares (default: a directory under `workDir`). */
  store?: string;
  /** Scratch directory (worker directories, run logs, the default store). */
  workDir: string;
  /** A run not ended after this long counts as stuck (default 5 minutes). */
  runTimeoutMs?: number;
  /** Progress lines. */
  log?: (line: string) => void;
}

/** One kill of a worker. */
export interface KillRecord {
  at: number;
  pid: number;
  /** What the controller aimed at. */
  phase: 'model' | 'tool' | 'approval';
  /** The run it aimed at. */
  target: string;
  /** Model calls and tools the killed worker had running, by run. */
  interrupted: Array<{ workflowId: string; activity: OpenActivity }>;
  /** When the replacement worker was ready (epoch ms). */
  replacementReadyAt?: number;
}

/** How long one interrupted run took to run its step again. */
export interface ResumeSample {
  workflowId: string;
  /** What the kill cut. */
  cut: string;
  killAt: number;
  afterKillMs: number;
  afterReplacementMs?: number;
  /** A server restart happened between the kill and the resume. */
  acrossServerRestart: boolean;
  /** Another worker was killed between the kill and the resume (the step may have been cut again before it ran). */
  acrossOtherKill: boolean;
}

/** Everything a campaign measured; {@link formatCampaign} prints it. */
export interface CampaignResult {
  options: { runs: number; kills: number; serverRestarts: number; workers: number; concurrency: number; store: string };
  wallMs: number;
  chaos: RunRecord[];
  baseline: RunRecord[];
  killsDone: KillRecord[];
  serverRestartsDone: Array<{ stoppedAt: number; startedAt: number }>;
  /** Kills that hit each run (by run number). */
  hitsPerRun: number[];
  statusCounts: Record<string, number>;
  baselineStatusCounts: Record<string, number>;
  completed: number;
  transcripts: { equal: number; outcomeUnknownOnly: number; different: Array<{ workflowId: string; why: string }> };
  atMostOnce: {
    calls: number;
    maxExecutions: number;
    executedMoreThanOnce: Array<{ workflowId: string; callId: string; executions: number }>;
    neverExecuted: number;
  };
  /** Executions of ordinary (at-least-once) tools repeated after a kill: allowed, counted for information. */
  atLeastOnceRepeats: number;
  approvals: { decided: number; bySignal: number; byUpdate: number; lost: string[] };
  stuck: Array<{ workflowId: string; why: string }>;
  /**
   * Kill → the interrupted step running again, and replacement ready → the same (ms; negative: resumed
   * before it was up), for kills whose resume no server restart and no other kill delayed; `samples` has every one.
   */
  resume: { afterKill: number[]; afterReplacement: number[]; samples: ResumeSample[]; neverResumed: string[] };
  outcomeUnknown: number;
  workerLosses: { tools: number; models: number };
  /**
   * Workflow tasks of the chaos runs that timed out: start-to-close (a worker died holding one: Temporal
   * waits the runs' workflow task timeout) and schedule-to-start (on a dead worker's sticky queue).
   */
  workflowTaskTimeouts: { startToClose: number; scheduleToStart: number };
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
const between = (lo: number, hi: number) => lo + Math.random() * (hi - lo);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(Math.random() * xs.length)]!;

/** Run `work(i)` for i in 0..n-1 with at most `limit` at once. */
async function pool<T>(n: number, limit: number, work: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = new Array(n);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(n, limit) }, async () => {
      while (next < n) {
        const i = next++;
        out[i] = await work(i);
      }
    }),
  );
  return out;
}

/**
 * Run a chaos campaign and measure it. Worker processes it started are stopped (or killed) before it returns.
 *
 * @throws {Error} a worker process could not start, or the server could not be restarted.
 */
export async function runCampaign(options: CampaignOptions): Promise<CampaignResult> {
  const log = options.log ?? (() => undefined);
  const concurrency = options.concurrency ?? 2 * options.workers;
  const runTimeoutMs = options.runTimeoutMs ?? 300_000;
  const logDir = join(options.workDir, 'logs');
  mkdirSync(logDir, { recursive: true });
  const store = options.store ?? join(options.workDir, 'store');
  const id = randomUUID().slice(0, 8);
  const chaosFleet: FleetSettings = {
    address: options.server.address,
    taskQueue: `chaos-${id}`,
    bundlePath: options.bundlePath,
    store,
    logDir,
    workDir: options.workDir,
  };
  const baselineFleet: FleetSettings = { ...chaosFleet, taskQueue: `chaos-baseline-${id}` };

  const started = Date.now();
  log(`starting ${options.workers} chaos worker processes and a baseline worker process…`);
  const workers = new Map<number, WorkerProcess>();
  const everyWorker: WorkerProcess[] = [];
  const replacements: Array<Promise<void>> = [];
  const [baselineWorker, ...first] = await Promise.all([
    startWorkerProcess(baselineFleet),
    ...Array.from({ length: options.workers }, () => startWorkerProcess(chaosFleet)),
  ]);
  everyWorker.push(baselineWorker!, ...first);
  for (const w of first) workers.set(w.pid, w);

  const connection = await Connection.connect({ address: options.server.address });
  const temporal = new Client({ connection });
  const chaosClient = new AgentClient(temporal, chaosFleet.taskQueue, { deltas: false });
  const baselineClient = new AgentClient(temporal, baselineFleet.taskQueue, { deltas: false });

  const live = new Map<string, LiveRun>();
  const hits = new Map<string, number>();
  const killsDone: KillRecord[] = [];
  const serverRestartsDone: Array<{ stoppedAt: number; startedAt: number }> = [];
  let finished = 0;
  let serverDown = false;
  let allDone = false;
  const thinkMs = () => between(300, 2000);

  try {
    const baselineRuns = pool(options.runs, concurrency, (n) => {
      const workflowId = `chaos-baseline-${id}-${n}`;
      return driveRun(
        baselineClient,
        n,
        workflowId,
        { n, workflowId, awaiting: new Map(), done: false },
        { timeoutMs: runTimeoutMs, thinkMs },
      );
    });
    const chaosRuns = pool(options.runs, concurrency, async (n) => {
      const workflowId = `chaos-${id}-${n}`;
      const l: LiveRun = { n, workflowId, awaiting: new Map(), done: false, wantsKills: () => (hits.get(workflowId) ?? 0) < options.kills };
      live.set(workflowId, l);
      hits.set(workflowId, 0);
      const record = await driveRun(chaosClient, n, workflowId, l, { timeoutMs: runTimeoutMs, thinkMs });
      live.delete(workflowId);
      finished++;
      log(`run ${n} ${record.result?.status ?? 'STUCK'} (${finished}/${options.runs}; kills that hit it: ${hits.get(workflowId)})`);
      return record;
    });

    /** Kill workers at chosen moments until every run has ended. */
    const killing = (async () => {
      while (!allDone) {
        await pause(between(300, 1500));
        if (serverDown || allDone) continue;
        const alive = [...workers.values()].filter((w) => !w.dead);
        // Never the last living worker of a fleet (a fleet of one excepted): runs resume on the others meanwhile.
        if (alive.length === 0 || (options.workers > 1 && alive.length < 2)) continue;
        // Runs still short of kills, and what each is doing on which living worker.
        const wanting = [...live.values()].filter((r) => !r.done && (hits.get(r.workflowId) ?? 0) < options.kills);
        type Candidate = { phase: KillRecord['phase']; run: LiveRun; pid: number };
        const candidates: Candidate[] = [];
        for (const run of wanting) {
          const lines = readRunLog(logDir, run.workflowId);
          for (const a of openActivities(lines))
            if (workers.has(a.pid) && !workers.get(a.pid)!.dead) candidates.push({ phase: a.what, run, pid: a.pid });
          if (run.awaiting.size) {
            // The worker that last ran something of the run (likely the one caching its workflow), else any.
            const last = [...lines].reverse().find((l) => workers.has(l.pid) && !workers.get(l.pid)!.dead);
            candidates.push({ phase: 'approval', run, pid: last?.pid ?? pick(alive).pid });
          }
        }
        if (candidates.length === 0) continue;
        // The runs furthest from their kills first; among what they are doing, a random phase.
        const fewest = Math.min(...candidates.map((c) => hits.get(c.run.workflowId) ?? 0));
        const lagging = candidates.filter((c) => (hits.get(c.run.workflowId) ?? 0) === fewest);
        const phase = pick([...new Set(lagging.map((c) => c.phase))]);
        const target = pick(lagging.filter((c) => c.phase === phase));
        const victim = workers.get(target.pid)!;
        // A random moment inside what it is doing.
        await pause(between(0, 300));
        if (victim.dead || serverDown) continue;
        const at = Date.now();
        await killWorker(victim);
        workers.delete(victim.pid);
        const interrupted: KillRecord['interrupted'] = [];
        for (const run of live.values()) {
          for (const a of openActivities(readRunLog(logDir, run.workflowId)))
            if (a.pid === victim.pid && a.startedAt <= at) interrupted.push({ workflowId: run.workflowId, activity: a });
        }
        const hit = new Set(interrupted.map((i) => i.workflowId));
        if (phase === 'approval') hit.add(target.run.workflowId);
        for (const w of hit) hits.set(w, (hits.get(w) ?? 0) + 1);
        const kill: KillRecord = { at, pid: victim.pid, phase, target: target.run.workflowId, interrupted };
        killsDone.push(kill);
        log(
          `kill -9 worker ${victim.pid} (${phase} of ${target.run.workflowId}; ${interrupted.length} activities of ${hit.size} runs cut)`,
        );
        // A replacement after a short random delay.
        replacements.push(
          (async () => {
            await pause(between(200, 1500));
            for (let tries = 1; ; tries++) {
              try {
                const w = await startWorkerProcess(chaosFleet);
                everyWorker.push(w);
                workers.set(w.pid, w);
                kill.replacementReadyAt = w.readyAt;
                return;
              } catch (err) {
                if (tries >= 3) throw err;
                log(`replacement worker failed to start (try ${tries}): ${String(err).slice(0, 300)}`);
              }
            }
          })(),
        );
      }
    })();

    /** Restart the server after each k/(R+1) of the runs has ended. */
    const restarting = (async () => {
      for (let k = 1; k <= options.serverRestarts; k++) {
        const due = Math.floor((k * options.runs) / (options.serverRestarts + 1));
        while (finished < due && !allDone) await pause(200);
        serverDown = true;
        const stoppedAt = Date.now();
        log(`stopping the Temporal server (restart ${k} of ${options.serverRestarts})…`);
        await options.server.stop();
        await pause(between(1000, 3000));
        await options.server.start();
        serverRestartsDone.push({ stoppedAt, startedAt: Date.now() });
        log(`Temporal server up again after ${((Date.now() - stoppedAt) / 1000).toFixed(1)} s`);
        serverDown = false;
      }
    })();

    const [baseline, chaos] = await Promise.all([baselineRuns, chaosRuns]);
    const wallMs = Date.now() - started;
    allDone = true;
    await Promise.all([killing, restarting, ...replacements]);
    await Promise.all([readMissingEvents(chaosClient, chaos), readMissingEvents(baselineClient, baseline)]);
    const workflowTaskTimeouts = await countWorkflowTaskTimeouts(
      temporal,
      chaos.map((r) => r.workflowId),
    );
    return {
      ...analyse(options, { concurrency, store, wallMs, chaos, baseline, killsDone, serverRestartsDone, hits, logDir }),
      workflowTaskTimeouts,
    };
  } finally {
    allDone = true;
    // Calls given up on may still be retrying: let them end while workers still answer, before closing.
    await abandonedCallsSettled();
    await Promise.allSettled(everyWorker.map((w) => stopWorker(w)));
    await connection.close();
  }
}

/** Workflow task timeouts in the histories of `workflowIds`, by kind. */
async function countWorkflowTaskTimeouts(
  temporal: Client,
  workflowIds: readonly string[],
): Promise<CampaignResult['workflowTaskTimeouts']> {
  const counts = { startToClose: 0, scheduleToStart: 0 };
  const { EventType, TimeoutType } = proto.api.enums.v1;
  for (const workflowId of workflowIds) {
    const history = await temporal.workflow.getHandle(workflowId).fetchHistory();
    for (const e of history.events ?? []) {
      if (e.eventType !== EventType.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT) continue;
      const type = e.workflowTaskTimedOutEventAttributes?.timeoutType;
      if (type === TimeoutType.TIMEOUT_TYPE_START_TO_CLOSE) counts.startToClose++;
      else if (type === TimeoutType.TIMEOUT_TYPE_SCHEDULE_TO_START) counts.scheduleToStart++;
    }
  }
  return counts;
}

function countStatuses(records: readonly RunRecord[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const r of records) {
    const s = r.result?.status ?? 'stuck';
    counts[s] = (counts[s] ?? 0) + 1;
  }
  return counts;
}

function analyse(
  options: CampaignOptions,
  m: {
    concurrency: number;
    store: string;
    wallMs: number;
    chaos: RunRecord[];
    baseline: RunRecord[];
    killsDone: KillRecord[];
    serverRestartsDone: CampaignResult['serverRestartsDone'];
    hits: Map<string, number>;
    logDir: string;
  },
): Omit<CampaignResult, 'workflowTaskTimeouts'> {
  const transcripts: CampaignResult['transcripts'] = { equal: 0, outcomeUnknownOnly: 0, different: [] };
  const atMostOnce: CampaignResult['atMostOnce'] = { calls: 0, maxExecutions: 0, executedMoreThanOnce: [], neverExecuted: 0 };
  const approvals: CampaignResult['approvals'] = { decided: 0, bySignal: 0, byUpdate: 0, lost: [] };
  const stuck: CampaignResult['stuck'] = [];
  let atLeastOnceRepeats = 0;
  let outcomeUnknown = 0;
  const workerLosses = { tools: 0, models: 0 };

  for (const record of m.chaos) {
    const base = m.baseline[record.n];
    if (record.stuck || !record.result) stuck.push({ workflowId: record.workflowId, why: record.stuck ?? 'no result' });
    if (record.result && base?.result) {
      const c: TranscriptComparison = compareTranscripts(record.result, base.result);
      if (c.kind === 'equal') transcripts.equal++;
      else if (c.kind === 'outcome_unknown_only') transcripts.outcomeUnknownOnly++;
      else transcripts.different.push({ workflowId: record.workflowId, why: c.why });
    } else if (record.result) {
      transcripts.different.push({
        workflowId: record.workflowId,
        why: `its baseline run ${base?.workflowId} has no result: ${base?.stuck}`,
      });
    }
    const lines = readRunLog(m.logDir, record.workflowId);
    const executions = executionsPerCall(lines);
    const calls = record.result?.report.toolCalls.filter((c) => c.tool === 'transfer') ?? [];
    atMostOnce.calls += calls.length;
    for (const c of calls) if (!executions.has(c.callId)) atMostOnce.neverExecuted++;
    for (const [callId, n] of executions) {
      atMostOnce.maxExecutions = Math.max(atMostOnce.maxExecutions, n);
      if (n > 1) atMostOnce.executedMoreThanOnce.push({ workflowId: record.workflowId, callId, executions: n });
    }
    for (const tool of ['lookup', 'deploy', 'nap']) for (const n of executionsPerCall(lines, tool).values()) atLeastOnceRepeats += n - 1;
    for (const d of record.decisions) {
      approvals.decided++;
      if (d.via === 'signal') approvals.bySignal++;
      else approvals.byUpdate++;
    }
    approvals.lost.push(...lostApprovals(record));
    outcomeUnknown += record.result?.report.toolCalls.filter((c) => c.outcomeUnknown).length ?? 0;
    workerLosses.tools += record.result?.report.toolCalls.reduce((s, c) => s + (c.workerLosses ?? 0), 0) ?? 0;
    workerLosses.models += record.result?.report.steps.reduce((s, c) => s + (c.workerLosses ?? 0), 0) ?? 0;
  }

  const resume: CampaignResult['resume'] = { afterKill: [], afterReplacement: [], samples: [], neverResumed: [] };
  for (const kill of m.killsDone) {
    for (const workflowId of new Set(kill.interrupted.map((i) => i.workflowId))) {
      const next = nextStart(readRunLog(m.logDir, workflowId), kill.at, kill.pid);
      const cut = kill.interrupted
        .filter((i) => i.workflowId === workflowId)
        .map((i) => `${i.activity.what} ${i.activity.id}${i.activity.tool ? ` (${i.activity.tool})` : ''}`)
        .join(', ');
      if (next === undefined) {
        resume.neverResumed.push(`${workflowId}: ${cut} (kill at ${new Date(kill.at).toISOString()})`);
        continue;
      }
      const acrossServerRestart = m.serverRestartsDone.some((x) => x.stoppedAt < next && x.startedAt > kill.at);
      const acrossOtherKill = m.killsDone.some((k) => k !== kill && k.at > kill.at && k.at < next);
      const sample: ResumeSample = {
        workflowId,
        cut,
        killAt: kill.at,
        afterKillMs: next - kill.at,
        ...(kill.replacementReadyAt !== undefined ? { afterReplacementMs: next - kill.replacementReadyAt } : {}),
        acrossServerRestart,
        acrossOtherKill,
      };
      resume.samples.push(sample);
      if (acrossServerRestart || acrossOtherKill) continue;
      resume.afterKill.push(sample.afterKillMs);
      if (sample.afterReplacementMs !== undefined) resume.afterReplacement.push(sample.afterReplacementMs);
    }
  }

  return {
    options: {
      runs: options.runs,
      kills: options.kills,
      serverRestarts: options.serverRestarts,
      workers: options.workers,
      concurrency: m.concurrency,
      store: m.store,
    },
    wallMs: m.wallMs,
    chaos: m.chaos,
    baseline: m.baseline,
    killsDone: m.killsDone,
    serverRestartsDone: m.serverRestartsDone,
    hitsPerRun: m.chaos.map((r) => m.hits.get(r.workflowId) ?? 0),
    statusCounts: countStatuses(m.chaos),
    baselineStatusCounts: countStatuses(m.baseline),
    completed: m.chaos.filter((r) => r.result).length,
    transcripts,
    atMostOnce,
    atLeastOnceRepeats,
    approvals,
    stuck,
    resume,
    outcomeUnknown,
    workerLosses,
  };
}

/** Issue target: an interrupted step runs again within 5 s of a new worker being up. */
const RESUME_TARGET_MS = 5000;

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** Median time from start to result of the runs that ended. */
function duration(records: readonly RunRecord[]): string {
  const v = spread(records.filter((r) => r.endedAt !== undefined).map((r) => r.endedAt! - r.startedAt));
  return v ? `${seconds(v.median)} (max ${seconds(v.max)})` : '-';
}

/** The campaign's figures, as printed by bench/chaos.ts. */
export function formatCampaign(r: CampaignResult): string {
  const o = r.options;
  const byPhase = (p: KillRecord['phase']) => r.killsDone.filter((k) => k.phase === p).length;
  const hitsMean = r.hitsPerRun.reduce((a, b) => a + b, 0) / Math.max(1, r.hitsPerRun.length);
  const s = (xs: number[]) => {
    const v = spread(xs);
    return v ? `median ${seconds(v.median)}, p90 ${seconds(v.p90)}, max ${seconds(v.max)} (${v.n} interrupted runs)` : 'none measured';
  };
  const early = r.resume.afterReplacement.filter((ms) => ms < 0).length;
  const across = r.resume.samples.filter((x) => x.acrossServerRestart).length;
  const crossed = r.resume.samples.filter((x) => x.acrossOtherKill && !x.acrossServerRestart);
  const slowest = r.resume.samples
    .filter((x) => !x.acrossServerRestart && !x.acrossOtherKill)
    .sort((a, b) => b.afterKillMs - a.afterKillMs)
    .slice(0, 3);
  const lines = [
    `chaos campaign: ${o.runs} runs, ${o.workers} worker processes, concurrency ${o.concurrency}, store ${o.store}; ${seconds(r.wallMs)}`,
    `kills: ${r.killsDone.length} kill -9 (${byPhase('model')} aimed mid-model-call, ${byPhase('tool')} mid-tool, ${byPhase('approval')} awaiting approval); kills that hit a run: mean ${hitsMean.toFixed(1)}, min ${Math.min(...r.hitsPerRun)} (target ${o.kills})`,
    `run time: median ${duration(r.chaos)} under chaos, ${duration(r.baseline)} in the baseline`,
    `server restarts: ${r.serverRestartsDone.length} (down ${r.serverRestartsDone.map((x) => seconds(x.startedAt - x.stoppedAt)).join(', ') || '-'})`,
    `runs completed: ${r.completed}/${o.runs} (${Object.entries(r.statusCounts)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}); baseline: ${Object.entries(r.baselineStatusCounts)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}`,
    `transcripts equal to the uninterrupted baseline: ${r.transcripts.equal}; equal but for outcome-unknown results: ${r.transcripts.outcomeUnknownOnly}; different: ${r.transcripts.different.length}`,
    `at-most-once "transfer": ${r.atMostOnce.calls} calls, max executions per call ${r.atMostOnce.maxExecutions}, calls executed more than once: ${r.atMostOnce.executedMoreThanOnce.length}, never executed (cut before execute): ${r.atMostOnce.neverExecuted}`,
    `outcome unknown: ${r.outcomeUnknown} calls; worker losses reported: ${r.workerLosses.tools} tool attempts, ${r.workerLosses.models} model attempts; at-least-once tools re-executed: ${r.atLeastOnceRepeats}`,
    `workflow tasks timed out: ${r.workflowTaskTimeouts.startToClose} start-to-close (a worker died holding one: ${WORKFLOW_TASK_TIMEOUT} each, the runs' workflow task timeout), ${r.workflowTaskTimeouts.scheduleToStart} schedule-to-start (a dead worker's sticky queue: ${STICKY_TIMEOUT_MS / 1000} s each)`,
    `approvals: ${r.approvals.decided} decided (${r.approvals.bySignal} by signal, ${r.approvals.byUpdate} by update); lost: ${r.approvals.lost.length}; runs stuck: ${r.stuck.length}`,
    `resume after a kill (kill → interrupted step running again, no other kill or restart in between): ${s(r.resume.afterKill)}`,
    `  not counted: ${across} resumes across a server restart; ${crossed.length} across another kill (${s(crossed.map((x) => x.afterKillMs))})`,
    `resume after the replacement worker was up: ${s(r.resume.afterReplacement.map((ms) => Math.max(0, ms)))}${early ? `; ${early} resumed on another worker before the replacement was up (counted 0)` : ''}`,
  ];
  const counted = r.resume.samples.filter((x) => !x.acrossServerRestart && !x.acrossOtherKill && x.afterReplacementMs !== undefined);
  for (const what of ['model', 'tool'] as const) {
    const xs = counted
      .filter((x) => x.cut.split(', ').some((c) => c.startsWith(`${what} `)))
      .map((x) => Math.max(0, x.afterReplacementMs!));
    lines.push(`  ${what === 'model' ? 'model calls cut' : 'tools cut'}: ${s(xs)}`);
  }
  const overTarget = counted.filter((x) => x.afterReplacementMs! > RESUME_TARGET_MS).length;
  lines.push(`  over ${seconds(RESUME_TARGET_MS)} after the replacement was up: ${overTarget} of ${counted.length}`);
  for (const x of slowest)
    lines.push(
      `  slowest resume: ${seconds(x.afterKillMs)} after the kill${x.afterReplacementMs === undefined ? '' : x.afterReplacementMs >= 0 ? ` (${seconds(x.afterReplacementMs)} after the replacement was up)` : ` (${seconds(-x.afterReplacementMs)} before the replacement was up)`}: ${x.workflowId}, cut ${x.cut}, kill at ${new Date(x.killAt).toISOString().slice(11, 23)}`,
    );
  for (const d of r.transcripts.different) lines.push(`  DIFFERENT ${d.workflowId}: ${d.why}`);
  for (const d of r.atMostOnce.executedMoreThanOnce) lines.push(`  EXECUTED ${d.executions}x ${d.workflowId} ${d.callId}`);
  for (const l of r.approvals.lost) lines.push(`  APPROVAL LOST ${l}`);
  for (const x of r.stuck) lines.push(`  STUCK ${x.workflowId}: ${x.why}`);
  for (const x of r.resume.neverResumed) lines.push(`  NEVER RESUMED ${x}`);
  return lines.join('\n');
}
