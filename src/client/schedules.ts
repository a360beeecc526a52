/**
 * Scheduled agents on Temporal Schedules: a schedule whose every firing starts a normal agent run
 * (`agentWorkflow` with an `AgentWorkflowInput`, workflow id `<scheduleId>-<timestamp>`) on the
 * client's task queue. Loads `@temporalio/client` only.
 */
import type { Client, ScheduleDescription, ScheduleExecutionResult, ScheduleHandle, ScheduleSummary } from '@temporalio/client';
import { ScheduleAlreadyRunning, ScheduleNotFoundError as TemporalScheduleNotFound, ScheduleOverlapPolicy } from '@temporalio/client';
import type { Duration } from '@temporalio/common';
import { msToNumber } from '@temporalio/common';
import type { AnyAgent, ToolNamesOf } from '../agents/define';
import type { RunPolicy } from '../core/approvals/approvals';
import type { ApprovalWaiver } from '../core/approvals/run-policy';
import { AGENT_WORKFLOW, isAgentTaskQueue, WORKFLOW_TASK_TIMEOUT } from '../core/run/contract';
import type { AgentWorkflowInput } from '../core/run/contract';
import { DurableAgentError } from '../core/run/errors';
import { inputProblems } from '../workflows/run-input';
import type { Budget } from '../core/budget/budget';
import type { BudgetOptions } from './run-budget';
import { runBudget } from './run-budget';
import { RUN_STATUS } from '../workflows/search-attributes';

/** What a schedule does when a firing comes while its previous run is still running. */
export type ScheduleOverlap = 'skip' | 'buffer_one' | 'buffer_all' | 'cancel_other' | 'terminate_other' | 'allow_all';

const OVERLAP_POLICIES: Record<ScheduleOverlap, ScheduleOverlapPolicy> = {
  skip: ScheduleOverlapPolicy.SKIP,
  buffer_one: ScheduleOverlapPolicy.BUFFER_ONE,
  buffer_all: ScheduleOverlapPolicy.BUFFER_ALL,
  cancel_other: ScheduleOverlapPolicy.CANCEL_OTHER,
  terminate_other: ScheduleOverlapPolicy.TERMINATE_OTHER,
  allow_all: ScheduleOverlapPolicy.ALLOW_ALL,
};

/** Memo key under which a durable-agent schedule records what it runs (read back by list and describe). */
export const SCHEDULE_MEMO_KEY = 'durableAgent';

/** The smallest interval a schedule accepts. */
export const MIN_SCHEDULE_INTERVAL_MS = 1000;

/** Options of {@link AgentClient.schedule}: when to run agent `A`, and with what. Give exactly one of `cron` and `interval`. */
export interface AgentScheduleOptions<A = AnyAgent> {
  /** Default `<agent>-schedule-<8 hex>`. Each run's workflow id is `<scheduleId>-<timestamp>`. */
  scheduleId?: string;
  /**
   * A cron expression (5, 6 or 7 fields, `@daily`, `@every 10m`, optional `CRON_TZ=…` prefix), in UTC unless
   * prefixed; checked by the Temporal server.
   */
  cron?: string;
  /** Every this long: a Temporal duration (`'30s'`, `'5m'`, `'1 day'`) or milliseconds; at least 1 second. */
  interval?: Duration;
  /** The user's request each run receives. */
  input: string;
  /** Lower the agent's step cap for each run. */
  maxSteps?: number;
  /** Run-level approval policy of each run, by tool name (`*` for the rest): checked as `start`'s (see `RunOptions.policy`). */
  policy?: RunPolicy<ToolNamesOf<A>>;
  /** The identity allowed to loosen approvals in `policy`, recorded in each run's input (see `RunOptions.approvalWaiver`). */
  approvalWaiver?: ApprovalWaiver;
  /** Lower the agent's budget for each run (tokens, US dollars, wall-clock `timeout`, turns): see `start`. */
  budget?: BudgetOptions;
  /** When a firing comes while the previous run still runs. Default `skip`. */
  overlap?: ScheduleOverlap;
  /** Create it paused (no firings until {@link AgentSchedule.unpause}). */
  paused?: boolean;
  /** A note for people (shown by `describe`, `durable-agent schedule list`). */
  note?: string;
}

/** When a schedule fires, as given at creation (or read from the server for schedules made elsewhere). */
export interface AgentScheduleSpec {
  /** The cron expression, when the schedule has one. */
  cron?: string;
  /** The interval in milliseconds, when the schedule has one. */
  intervalMs?: number;
  /** Human form: `cron "0 9 * * *"`, `every 5m`, or `calendar` for other specs. */
  text: string;
}

/** A run a schedule started. */
export interface ScheduledRun {
  workflowId: string;
  /** Run id of the run's first execution. */
  runId: string;
  /** When it was due (jitter included). */
  scheduledAt: Date;
  /** When the schedule started it. */
  takenAt: Date;
}

/** A scheduled run and how it stands now. */
export interface ScheduledRunStatus extends ScheduledRun {
  /**
   * The agent's status (`running`, `awaiting_approval`, `success`, `max_steps`, …) from the run's search
   * attribute; the workflow's status (`terminated`, `timed_out`, `failed`, `not_found`) when the run did not
   * end through the agent loop or cannot be read.
   */
  status: string;
}

/** A durable-agent schedule as the server lists it (eventually consistent: a new schedule shows up within a moment). */
export interface AgentScheduleSummary {
  scheduleId: string;
  /** The agent each firing runs. */
  agent: string;
  spec: AgentScheduleSpec;
  paused: boolean;
  note: string | undefined;
  /** The next times it fires (none while paused). */
  nextRunTimes: Date[];
  /** The most recent runs it started, oldest first (triggers included). */
  recentRuns: ScheduledRun[];
}

/** A durable-agent schedule in full, as {@link AgentSchedule.describe} reads it. */
export interface AgentScheduleDescription extends AgentScheduleSummary {
  taskQueue: string;
  /** The user's request each run receives. */
  input: string;
  maxSteps: number | undefined;
  policy: RunPolicy | undefined;
  /** Each run's budget, as the workflow receives it (timeout in milliseconds). */
  budget: Budget | undefined;
  overlap: ScheduleOverlap;
  /** Runs it started that are still running. */
  runningRuns: Array<{ workflowId: string; runId: string }>;
  /** How many runs it has started (triggers included). */
  runsStarted: number;
  /** Firings skipped because the previous run was still running (overlap `skip`). */
  skippedOverlap: number;
  createdAt: Date;
}

/** What a schedule records in its memo. */
interface ScheduleMemo {
  agent: string;
  taskQueue: string;
  cron?: string;
  intervalMs?: number;
}

/** No schedule with this id exists (never created, or deleted). Code `schedule_not_found`. */
export class ScheduleNotFoundError extends DurableAgentError {
  /** The schedule id that was asked for. */
  readonly scheduleId: string;

  constructor(scheduleId: string, options?: { cause?: unknown }) {
    super('schedule_not_found', `no schedule with id "${scheduleId}" (list them with: durable-agent schedule list)`, options);
    this.scheduleId = scheduleId;
  }
}

function invalid(message: string, cause?: unknown): DurableAgentError {
  return new DurableAgentError('invalid_input', message, cause !== undefined ? { cause } : undefined);
}

/** `5m`, `1h30m`, `45s`, `250ms`: a short human form of a duration. */
export function formatInterval(ms: number): string {
  const units: Array<[string, number]> = [
    ['d', 86_400_000],
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1000],
  ];
  let rest = ms;
  let text = '';
  for (const [unit, size] of units) {
    const n = Math.floor(rest / size);
    if (n > 0) text += `${n}${unit}`;
    rest -= n * size;
  }
  if (rest > 0 || !text) text += `${rest}ms`;
  return text;
}

function specText(spec: Omit<AgentScheduleSpec, 'text'>): string {
  if (spec.cron !== undefined) return `cron "${spec.cron}"`;
  if (spec.intervalMs !== undefined) return `every ${formatInterval(spec.intervalMs)}`;
  return 'calendar';
}

/** Milliseconds of `interval`, checked. */
function intervalMs(where: string, interval: Duration): number {
  let ms: number;
  try {
    ms = msToNumber(interval);
  } catch (err) {
    throw invalid(
      `${where}: interval ${JSON.stringify(interval)} is not a duration: give milliseconds or a string like '30s', '5m', '1h', '1 day'`,
      err,
    );
  }
  if (!Number.isFinite(ms) || ms < MIN_SCHEDULE_INTERVAL_MS) {
    throw invalid(
      `${where}: interval ${JSON.stringify(interval)} is too short: a schedule fires at most once a second (give at least '1s')`,
    );
  }
  return ms;
}

/** The checked options of a new schedule: its memo, spec and the runs' input. */
export function scheduleRequest(
  name: string,
  options: AgentScheduleOptions,
  defaultId: () => string,
): { scheduleId: string; memo: ScheduleMemo; input: AgentWorkflowInput; overlap: ScheduleOverlap } {
  const where = `schedule("${name}", options)`;
  if (!options || typeof options !== 'object') throw invalid(`${where}: options must be an object { input, cron | interval, … }`);
  const scheduleId = options.scheduleId ?? defaultId();
  if (typeof scheduleId !== 'string' || !scheduleId.trim())
    throw invalid(`${where}: scheduleId must be a non-empty string (or leave it out for a generated one)`);
  if (typeof options.input !== 'string' || !options.input.trim())
    throw invalid(`${where}: input must be the user's request as a non-empty string`);
  const hasCron = options.cron !== undefined;
  const hasInterval = options.interval !== undefined;
  if (hasCron === hasInterval) {
    throw invalid(`${where}: give exactly one of cron (e.g. '0 9 * * *') and interval (e.g. '5m')${hasCron ? ', not both' : ''}`);
  }
  if (hasCron && (typeof options.cron !== 'string' || !options.cron.trim()))
    throw invalid(`${where}: cron must be a non-empty cron expression such as '0 9 * * *'`);
  const overlap = options.overlap ?? 'skip';
  if (!Object.hasOwn(OVERLAP_POLICIES, overlap)) {
    throw invalid(`${where}: overlap ${JSON.stringify(overlap)} is not one of ${Object.keys(OVERLAP_POLICIES).join(', ')}`);
  }
  const budget = runBudget(options.budget, `${where}: options.budget`);
  const input: AgentWorkflowInput = {
    agent: name,
    prompt: options.input,
    ...(options.maxSteps !== undefined ? { maxSteps: options.maxSteps } : {}),
    ...(options.policy !== undefined ? { policy: options.policy as RunPolicy } : {}),
    ...(options.approvalWaiver !== undefined ? { approvalWaiver: options.approvalWaiver } : {}),
    ...(budget ? { budget } : {}),
  };
  const problems = inputProblems(input);
  if (problems) throw invalid(`${where}: ${problems}`);
  const memo: ScheduleMemo = {
    agent: name,
    taskQueue: '',
    ...(hasCron ? { cron: (options.cron as string).trim() } : { intervalMs: intervalMs(where, options.interval as Duration) }),
  };
  return { scheduleId, memo, input, overlap };
}

function memoOf(memo: Record<string, unknown> | undefined): Partial<ScheduleMemo> {
  const value = memo?.[SCHEDULE_MEMO_KEY];
  return value && typeof value === 'object' ? (value as Partial<ScheduleMemo>) : {};
}

function specOf(memo: Partial<ScheduleMemo>, server: ScheduleSummary['spec']): AgentScheduleSpec {
  const spec: Omit<AgentScheduleSpec, 'text'> =
    memo.cron !== undefined
      ? { cron: memo.cron }
      : memo.intervalMs !== undefined
        ? { intervalMs: memo.intervalMs }
        : server?.intervals?.[0] !== undefined
          ? { intervalMs: server.intervals[0].every }
          : {};
  return { ...spec, text: specText(spec) };
}

function runsOf(actions: ScheduleExecutionResult[]): ScheduledRun[] {
  return actions.map((a) => ({
    workflowId: a.action.workflow.workflowId,
    runId: a.action.workflow.firstExecutionRunId,
    scheduledAt: a.scheduledAt,
    takenAt: a.takenAt,
  }));
}

/** The agent input of a schedule's action, when it is one. */
function actionInput(description: ScheduleDescription): Partial<AgentWorkflowInput> {
  const arg = description.action.args?.[0];
  return arg && typeof arg === 'object' ? (arg as Partial<AgentWorkflowInput>) : {};
}

/** Rethrow Temporal's "no such schedule" as {@link ScheduleNotFoundError}. */
async function mapNotFound<T>(scheduleId: string, op: () => Promise<T>): Promise<T> {
  try {
    return await op();
  } catch (err) {
    if (err instanceof TemporalScheduleNotFound) throw new ScheduleNotFoundError(scheduleId, { cause: err });
    throw err;
  }
}

/** How scheduled runs stand now, read from each run (in parallel). */
export async function scheduledRunStatuses(temporal: Client, runs: ScheduledRun[]): Promise<ScheduledRunStatus[]> {
  return Promise.all(
    runs.map(async (run): Promise<ScheduledRunStatus> => {
      try {
        const d = await temporal.workflow.getHandle(run.workflowId).describe();
        const execution = d.status.name.toLowerCase();
        const agentStatus = d.typedSearchAttributes.get(RUN_STATUS);
        const status = (execution === 'running' || execution === 'completed') && agentStatus ? agentStatus : execution;
        return { ...run, status };
      } catch {
        return { ...run, status: 'not_found' };
      }
    }),
  );
}

/**
 * A durable-agent schedule: each firing starts a run of its agent. Get one from {@link AgentClient.schedule}
 * (creates it) or {@link AgentClient.getSchedule} (nothing is checked until you use it: a missing schedule
 * then throws {@link ScheduleNotFoundError}).
 */
export class AgentSchedule {
  constructor(
    /** The Temporal schedule handle, for what this class does not cover (update, backfill). */
    readonly handle: ScheduleHandle,
    private readonly temporal: Client,
  ) {}

  /** The schedule's id; its runs' workflow ids are `<scheduleId>-<timestamp>`. */
  get scheduleId(): string {
    return this.handle.scheduleId;
  }

  /**
   * What the schedule runs, when, and what it started.
   *
   * @throws {ScheduleNotFoundError} no schedule with this id.
   * @throws {DurableAgentError} code `invalid_input` when the schedule does not start agent runs.
   */
  async describe(): Promise<AgentScheduleDescription> {
    const d = await mapNotFound(this.scheduleId, () => this.handle.describe());
    if (d.action.workflowType !== AGENT_WORKFLOW) {
      throw invalid(`schedule "${this.scheduleId}" starts ${d.action.workflowType} workflows, not agent runs (${AGENT_WORKFLOW})`);
    }
    const memo = memoOf(d.memo);
    const input = actionInput(d);
    const overlap = (Object.entries(OVERLAP_POLICIES).find(([, p]) => p === d.policies.overlap)?.[0] ?? 'skip') as ScheduleOverlap;
    return {
      scheduleId: d.scheduleId,
      agent: input.agent ?? memo.agent ?? '?',
      taskQueue: d.action.taskQueue,
      spec: specOf(memo, d.spec),
      input: input.prompt ?? '',
      maxSteps: input.maxSteps,
      policy: input.policy,
      budget: input.budget,
      overlap,
      paused: d.state.paused,
      note: d.state.note || undefined,
      nextRunTimes: d.info.nextActionTimes,
      recentRuns: runsOf(d.info.recentActions),
      runningRuns: d.info.runningActions.map((a) => ({ workflowId: a.workflow.workflowId, runId: a.workflow.firstExecutionRunId })),
      runsStarted: d.info.numActionsTaken,
      skippedOverlap: d.info.numActionsSkippedOverlap,
      createdAt: d.info.createdAt,
    };
  }

  /**
   * The schedule's recent runs (oldest first) with how each stands now (`running`, `success`, …).
   *
   * @throws {ScheduleNotFoundError} no schedule with this id.
   */
  async runs(): Promise<ScheduledRunStatus[]> {
    return scheduledRunStatuses(this.temporal, (await this.describe()).recentRuns);
  }

  /**
   * Start a run now, whatever the spec says and even while paused; it runs alongside any run still going.
   * It shows in {@link describe}'s `recentRuns` a moment later.
   *
   * @throws {ScheduleNotFoundError} no schedule with this id.
   */
  async trigger(): Promise<void> {
    await mapNotFound(this.scheduleId, () => this.handle.trigger(ScheduleOverlapPolicy.ALLOW_ALL));
  }

  /**
   * Stop firing until {@link unpause} (runs already started go on).
   *
   * @throws {ScheduleNotFoundError} no schedule with this id.
   */
  async pause(note = 'paused by durable-agent'): Promise<void> {
    await mapNotFound(this.scheduleId, () => this.handle.pause(note));
  }

  /**
   * Fire again on the spec.
   *
   * @throws {ScheduleNotFoundError} no schedule with this id.
   */
  async unpause(note = 'unpaused by durable-agent'): Promise<void> {
    await mapNotFound(this.scheduleId, () => this.handle.unpause(note));
  }

  /**
   * Delete the schedule (runs already started go on).
   *
   * @throws {ScheduleNotFoundError} no schedule with this id.
   */
  async delete(): Promise<void> {
    await mapNotFound(this.scheduleId, () => this.handle.delete());
  }
}

/**
 * Create a schedule that starts runs of agent `name` on `taskQueue` (what {@link AgentClient.schedule} does).
 *
 * @throws {DurableAgentError} code `invalid_input` for bad options, a cron expression the server refuses,
 * or a schedule id already in use.
 */
export async function createAgentSchedule(
  temporal: Client,
  taskQueue: string,
  name: string,
  options: AgentScheduleOptions,
  defaultId: () => string,
): Promise<AgentSchedule> {
  const { scheduleId, memo, input, overlap } = scheduleRequest(name, options, defaultId);
  const where = `schedule("${name}", options)`;
  try {
    const handle = await temporal.schedule.create({
      scheduleId,
      spec: memo.cron !== undefined ? { cronExpressions: [memo.cron] } : { intervals: [{ every: memo.intervalMs as number }] },
      action: {
        type: 'startWorkflow',
        workflowType: AGENT_WORKFLOW,
        taskQueue,
        workflowId: scheduleId,
        workflowTaskTimeout: WORKFLOW_TASK_TIMEOUT,
        args: [input],
      },
      policies: { overlap: OVERLAP_POLICIES[overlap] },
      memo: { [SCHEDULE_MEMO_KEY]: { ...memo, taskQueue } },
      state: {
        ...(options.paused ? { paused: true } : {}),
        ...(options.note !== undefined ? { note: options.note } : {}),
      },
    });
    return new AgentSchedule(handle, temporal);
  } catch (err) {
    if (err instanceof ScheduleAlreadyRunning) {
      throw invalid(
        `${where}: a schedule with id "${scheduleId}" already exists: choose another scheduleId, or delete that schedule first`,
        err,
      );
    }
    if (err instanceof TypeError && memo.cron !== undefined) {
      throw invalid(
        `${where}: invalid cron expression "${memo.cron}": ${err.message} (expected 5-7 fields such as '0 9 * * *', or @daily, @hourly, @every 10m)`,
        err,
      );
    }
    throw err;
  }
}

/**
 * Every durable-agent schedule for `taskQueue`: schedules whose action starts `agentWorkflow` and whose
 * memo (or, for schedules made elsewhere, whose action) names this task queue; with `taskQueue`
 * undefined, those on their agent's own queue (`agentTaskQueue`).
 */
export async function listAgentSchedules(temporal: Client, taskQueue: string | undefined): Promise<AgentScheduleSummary[]> {
  const wanted = (queue: string | undefined, agent: string | undefined) =>
    taskQueue === undefined ? queue !== undefined && isAgentTaskQueue(queue, agent) : queue === taskQueue;
  const found: AgentScheduleSummary[] = [];
  for await (const s of temporal.schedule.list()) {
    if (s.action?.workflowType !== AGENT_WORKFLOW) continue;
    const memo = memoOf(s.memo);
    let agent = memo.agent;
    if (memo.taskQueue === undefined) {
      // Made without durable-agent (the temporal CLI, another SDK): its action says where it runs.
      let d: ScheduleDescription;
      try {
        d = await temporal.schedule.getHandle(s.scheduleId).describe();
      } catch {
        continue; // deleted since the list was written
      }
      agent = actionInput(d).agent;
      if (!wanted(d.action.taskQueue, agent)) continue;
    } else if (!wanted(memo.taskQueue, agent)) continue;
    found.push({
      scheduleId: s.scheduleId,
      agent: agent ?? '?',
      spec: specOf(memo, s.spec),
      paused: s.state.paused,
      note: s.state.note || undefined,
      nextRunTimes: s.info.nextActionTimes,
      recentRuns: runsOf(s.info.recentActions),
    });
  }
  return found;
}
