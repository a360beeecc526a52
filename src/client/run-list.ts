/**
 * Listing agent runs through Temporal visibility (workflow type `agentWorkflow` and the search attributes
 * workers register), newest first, with what each is known to have cost. Used by `AgentClient.listRuns`,
 * the CLI's `runs` and the HTTP API's `GET /runs`.
 */
import type { Client } from '@temporalio/client';
import { msToNumber } from '@temporalio/common';
import { DurableAgentError } from '../core/run/errors';
import { RUN_STATUSES } from '../core/run/result';
import { AGENT_NAME, RUN_STATUS } from '../workflows/search-attributes';
import { anyWorkflowPoller } from './pollers';
import type { AgentRun } from './run';
import type { VisibleRun } from './visible-runs';
import { visibleRuns } from './visible-runs';
import type { ListedRun } from '../core/run/run-views';

export type { ListedRun };

/** Statuses a filter accepts: the phases of a running run, then every way a run ends. */
export const LISTED_STATUSES: readonly string[] = ['running', 'awaiting_approval', 'awaiting_message', ...RUN_STATUSES];

/** The workflow type of agent runs. */
const AGENT_WORKFLOW_TYPE = 'agentWorkflow';
/** Runs read from visibility at most, to sort them newest first. */
const SCAN_LIMIT = 5000;
/** Default `limit`. */
export const DEFAULT_RUNS_LIMIT = 20;
/** The largest `limit`. */
export const MAX_RUNS_LIMIT = 1000;
/** How long the snapshot of a running run is waited for (its worker answers it). */
const SNAPSHOT_WAIT_MS = 2_000;

/** Which runs to list. */
export interface RunFilter {
  /** Only runs of this agent. */
  agent?: string;
  /** Only runs in this status (one of `LISTED_STATUSES`: `running`, `awaiting_approval`, `awaiting_message` or a run status; `running`: every run not yet ended). */
  status?: string;
  /** Only runs started within this long: a duration such as `30m`, `24h`, `7d` (or milliseconds). */
  since?: string | number;
  /** At most this many (1 to 1000, `MAX_RUNS_LIMIT`). Default 20 (`DEFAULT_RUNS_LIMIT`). */
  limit?: number;
}

/**
 * A filter of {@link RunFilter} that cannot be used; `field` names it (`agent`, `status`, `since`, `limit`)
 * and the message says why and what to give instead. Code `invalid_input`.
 */
export class RunFilterError extends DurableAgentError {
  constructor(
    readonly field: keyof RunFilter,
    message: string,
  ) {
    super('invalid_input', message);
    this.name = 'RunFilterError';
  }
}

/**
 * The visibility query of a filter.
 * @throws {RunFilterError} naming the bad filter field.
 * @example
 * ```ts
 * runsQuery({ agent: 'support', status: 'success', since: '24h' });
 * ```
 */
export function runsQuery(filter: Pick<RunFilter, 'agent' | 'status' | 'since'>, now = Date.now()): string {
  const clauses = [`WorkflowType = '${AGENT_WORKFLOW_TYPE}'`];
  if (filter.agent !== undefined) {
    // eslint-disable-next-line no-control-regex -- control characters are what it rejects
    if (!/^[^'"\\\u0000-\u001f]+$/.test(filter.agent))
      throw new RunFilterError('agent', `agent "${filter.agent}" is not an agent name (no quotes, backslashes or control characters)`);
    clauses.push(`${AGENT_NAME.name} = '${filter.agent}'`);
  }
  if (filter.status !== undefined) {
    if (!LISTED_STATUSES.includes(filter.status))
      throw new RunFilterError('status', `status "${filter.status}" is not a run status; use one of: ${LISTED_STATUSES.join(', ')}`);
    // Every run not yet ended, whatever its phase (and runs of workers that keep no search attributes).
    if (filter.status === 'running') clauses.push(`ExecutionStatus = 'Running'`);
    else clauses.push(`${RUN_STATUS.name} = '${filter.status}'`);
  }
  if (filter.since !== undefined) {
    let ms: number;
    try {
      ms = msToNumber(filter.since as Parameters<typeof msToNumber>[0]);
    } catch {
      ms = NaN;
    }
    if (!Number.isFinite(ms) || ms <= 0)
      throw new RunFilterError('since', `since "${filter.since}" is not a duration: give one like 30m, 24h or 7d`);
    clauses.push(`StartTime > '${new Date(now - ms).toISOString()}'`);
  }
  return clauses.join(' AND ');
}

/**
 * The filter's limit, checked.
 * @throws {RunFilterError} not an integer from 1 to {@link MAX_RUNS_LIMIT}.
 */
export function runsLimit(limit: number | undefined): number {
  if (limit === undefined) return DEFAULT_RUNS_LIMIT;
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_RUNS_LIMIT)
    throw new RunFilterError('limit', `limit "${limit}" must be a whole number from 1 to ${MAX_RUNS_LIMIT}`);
  return limit;
}

function statusOf(w: VisibleRun): string {
  const recorded = w.typedSearchAttributes.get(RUN_STATUS);
  const execution = w.status.toLowerCase();
  if (w.status === 'RUNNING') return recorded && !(RUN_STATUSES as readonly string[]).includes(recorded) ? recorded : 'running';
  if (w.status === 'COMPLETED') return recorded && (RUN_STATUSES as readonly string[]).includes(recorded) ? recorded : execution;
  return execution; // failed, terminated, timed_out, cancelled, continued_as_new: the server's word
}

/** `promise`, or undefined once `ms` have passed. */
async function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  promise.catch(() => undefined);
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([promise, new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

/** Options of `listRuns` (`AgentClient.listRuns`). */
export interface ListRunsOptions {
  /** Is a worker polling this task queue (so a running run's snapshot can be asked)? Default: any poller on it. */
  hasWorker?: (taskQueue: string) => Promise<boolean>;
  /** More visibility clauses, each AND-ed to the filter's (e.g. a search attribute that narrows the runs). */
  where?: readonly string[];
}

/** Steps and cost of one run, from what the run itself records; nothing when it cannot tell. */
async function detailsOf(
  run: AgentRun,
  w: VisibleRun,
  workers: Map<string, Promise<boolean>>,
  hasWorker: (taskQueue: string) => Promise<boolean>,
): Promise<Partial<ListedRun>> {
  try {
    if (w.status === 'COMPLETED') {
      const r = await run.result();
      const unpriced = r.report.unpricedSteps ?? 0;
      // Results recorded before costUsd could be null say 0 when no step had a price: unknown too.
      const cost = r.costUsd === null || (r.steps > 0 && unpriced === r.steps && !r.costUsd) ? undefined : r.costUsd;
      return { steps: r.steps, unpricedSteps: unpriced, ...(cost !== undefined ? { costUsd: cost } : {}) };
    }
    if (w.status === 'RUNNING') {
      if (!workers.has(w.taskQueue))
        workers.set(
          w.taskQueue,
          hasWorker(w.taskQueue).catch(() => false),
        );
      if (await workers.get(w.taskQueue)) {
        const snapshot = await within(run.snapshot(), SNAPSHOT_WAIT_MS);
        if (snapshot) return { steps: snapshot.step };
      }
    }
  } catch {
    // unreadable (a codec this client lacks, a run gone since listed): unknown
  }
  return {};
}

/**
 * Runs matching `filter`, newest first, at most `filter.limit`. `runOf` gives the run object of a listed
 * execution (to read its result or snapshot).
 * @throws {RunFilterError} a bad filter, before anything is asked of the server.
 */
export async function listRuns(
  client: Client,
  runOf: (workflowId: string, runId: string) => AgentRun,
  filter: RunFilter = {},
  options: ListRunsOptions = {},
): Promise<ListedRun[]> {
  const query = [runsQuery(filter), ...(options.where ?? [])].join(' AND ');
  const limit = runsLimit(filter.limit);
  const hasWorker = options.hasWorker ?? ((q: string) => anyWorkflowPoller(client, q));
  const found: VisibleRun[] = [];
  // Raw visibility, not `client.workflow.list()`: that decodes every memo, so one run sealed with a key this
  // process lacks would fail the whole listing.
  for await (const w of visibleRuns(client, query)) {
    found.push(w);
    if (found.length >= SCAN_LIMIT) break;
  }
  found.sort((a, b) => b.startTime.getTime() - a.startTime.getTime());
  const shown = found.slice(0, limit);
  const workers = new Map<string, Promise<boolean>>();
  const listed: ListedRun[] = [];
  for (let i = 0; i < shown.length; i += 10) {
    const batch = shown.slice(i, i + 10);
    const details = await Promise.all(batch.map((w) => detailsOf(runOf(w.workflowId, w.runId), w, workers, hasWorker)));
    batch.forEach((w, k) => {
      const agent = w.typedSearchAttributes.get(AGENT_NAME);
      listed.push({
        workflowId: w.workflowId,
        runId: w.runId,
        ...(agent ? { agent } : {}),
        status: statusOf(w),
        startedAt: w.startTime.toISOString(),
        ...(w.closeTime ? { closedAt: w.closeTime.toISOString() } : {}),
        ...details[k],
      });
    });
  }
  return listed;
}
