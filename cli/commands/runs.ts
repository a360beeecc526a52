/**
 * `durable-agent runs`: agent runs found through Temporal visibility (workflow type `agentWorkflow` and
 * the search attributes workers register), newest first, with what each is known to have cost.
 */
import type { WorkflowExecutionInfo } from '@temporalio/client';
import { msToNumber } from '@temporalio/common/lib/time';
import { RUN_STATUSES } from '../../core/result';
import { AGENT_NAME, RUN_STATUS } from '../../workflows/search-attributes';
import { CliError } from '../errors';
import { formatUsd } from '../format';
import { Output } from '../output';
import { UNKNOWN } from '../report-format';
import { Session } from '../session';
import { formatTable } from '../table';
import type { ConnectionFlags } from '../target';
import { resolveTarget } from '../target';

/** Options of `runs`. */
export interface RunsFlags extends Omit<ConnectionFlags, 'taskQueue'> {
  agent?: string;
  status?: string;
  /** Only runs started within this long, e.g. `24h`. */
  since?: string;
  limit?: number;
  json?: boolean;
}

/** Statuses `--status` accepts: the phases of a running run, then every way a run ends. */
export const LISTED_STATUSES: readonly string[] = ['running', 'awaiting_approval', 'awaiting_message', ...RUN_STATUSES];

/** The workflow type of agent runs. */
const AGENT_WORKFLOW_TYPE = 'agentWorkflow';
/** Runs read from visibility at most, to sort them newest first. */
const SCAN_LIMIT = 5000;
/** Default `--limit`. */
export const DEFAULT_RUNS_LIMIT = 20;

/** One listed run. */
export interface ListedRun {
  workflowId: string;
  runId: string;
  agent?: string;
  /** The run's status search attribute, else its Temporal execution status (lower case). */
  status: string;
  startedAt: string;
  closedAt?: string;
  /** Steps taken: from the result of a finished run, or the snapshot of a running one a worker answers for. */
  steps?: number;
  /** Cost in USD, from a finished run's result (absent when unknown or no step had a price). */
  costUsd?: number;
  /** Steps without a known price (finished runs). */
  unpricedSteps?: number;
}

/** The visibility query for the flags; throws a {@link CliError} naming a bad flag. */
export function runsQuery(flags: Pick<RunsFlags, 'agent' | 'status' | 'since'>, now = Date.now()): string {
  const clauses = [`WorkflowType = '${AGENT_WORKFLOW_TYPE}'`];
  if (flags.agent !== undefined) {
    // eslint-disable-next-line no-control-regex -- control characters are what it rejects
    if (!/^[^'"\\\u0000-\u001f]+$/.test(flags.agent)) throw new CliError(`--agent "${flags.agent}" is not an agent name (no quotes, backslashes or control characters)`);
    clauses.push(`${AGENT_NAME.name} = '${flags.agent}'`);
  }
  if (flags.status !== undefined) {
    if (!LISTED_STATUSES.includes(flags.status)) throw new CliError(`--status "${flags.status}" is not a run status; use one of: ${LISTED_STATUSES.join(', ')}`);
    // Every run not yet ended, whatever its phase (and runs of workers that keep no search attributes).
    if (flags.status === 'running') clauses.push(`ExecutionStatus = 'Running'`);
    else clauses.push(`${RUN_STATUS.name} = '${flags.status}'`);
  }
  if (flags.since !== undefined) {
    let ms: number;
    try {
      ms = msToNumber(flags.since as Parameters<typeof msToNumber>[0]);
    } catch {
      ms = NaN;
    }
    if (!Number.isFinite(ms) || ms <= 0) throw new CliError(`--since "${flags.since}" is not a duration: give one like 30m, 24h or 7d`);
    clauses.push(`StartTime > '${new Date(now - ms).toISOString()}'`);
  }
  return clauses.join(' AND ');
}

function statusOf(w: WorkflowExecutionInfo): string {
  const recorded = w.typedSearchAttributes.get(RUN_STATUS);
  const execution = w.status.name.toLowerCase();
  if (w.status.name === 'RUNNING') return recorded && !(RUN_STATUSES as readonly string[]).includes(recorded) ? recorded : 'running';
  if (w.status.name === 'COMPLETED') return recorded && (RUN_STATUSES as readonly string[]).includes(recorded) ? recorded : execution;
  return execution; // failed, terminated, timed_out, cancelled, continued_as_new: the server's word
}

/** Steps and cost of one run, from what the run itself records; nothing when it cannot tell. */
async function detailsOf(session: Session, w: WorkflowExecutionInfo, workers: Map<string, Promise<boolean>>): Promise<Partial<ListedRun>> {
  const run = session.agentClient(w.taskQueue).get(w.workflowId, w.runId);
  try {
    if (w.status.name === 'COMPLETED') {
      const r = await run.result();
      const unpriced = r.report.unpricedSteps ?? 0;
      const priced = !(r.steps > 0 && unpriced === r.steps);
      return { steps: r.steps, unpricedSteps: unpriced, ...(priced ? { costUsd: r.costUsd ?? r.report.costUsd } : {}) };
    }
    if (w.status.name === 'RUNNING') {
      if (!workers.has(w.taskQueue)) workers.set(w.taskQueue, session.hasWorker(w.taskQueue).catch(() => false));
      if (await workers.get(w.taskQueue)) return { steps: (await run.snapshot()).step };
    }
  } catch {
    // unreadable (a codec this CLI lacks, a run gone since listed): unknown
  }
  return {};
}

/** Runs matching the flags, newest first, at most `limit`. */
export async function listRuns(session: Session, flags: RunsFlags): Promise<ListedRun[]> {
  const query = runsQuery(flags);
  const limit = flags.limit ?? DEFAULT_RUNS_LIMIT;
  const found: WorkflowExecutionInfo[] = [];
  for await (const w of session.temporal.workflow.list({ query })) {
    found.push(w);
    if (found.length >= SCAN_LIMIT) break;
  }
  found.sort((a, b) => b.startTime.getTime() - a.startTime.getTime());
  const shown = found.slice(0, limit);
  const workers = new Map<string, Promise<boolean>>();
  const listed: ListedRun[] = [];
  for (let i = 0; i < shown.length; i += 10) {
    const batch = shown.slice(i, i + 10);
    const details = await Promise.all(batch.map((w) => detailsOf(session, w, workers)));
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

function costCell(r: ListedRun): string {
  if (r.costUsd === undefined) return UNKNOWN;
  return `${formatUsd(r.costUsd)}${r.unpricedSteps ? ` (+${r.unpricedSteps} unpriced)` : ''}`;
}

/** The runs as a table. */
export function runsTable(runs: readonly ListedRun[]): string[] {
  return formatTable(
    [{ header: 'workflow id' }, { header: 'agent' }, { header: 'status' }, { header: 'started' }, { header: 'steps', align: 'right' }, { header: 'cost', align: 'right' }],
    runs.map((r) => [r.workflowId, r.agent ?? UNKNOWN, r.status, r.startedAt.replace('T', ' ').replace(/\.\d+Z$/, 'Z'), r.steps !== undefined ? String(r.steps) : UNKNOWN, costCell(r)]),
  );
}

/** `durable-agent runs`. */
export async function runsCommand(flags: RunsFlags): Promise<number> {
  runsQuery(flags); // bad flags fail before connecting
  const out = new Output(Boolean(flags.json));
  const session = await Session.open(resolveTarget(flags), { embed: 'if-state', log: (l) => out.note(l) });
  try {
    const runs = await listRuns(session, flags);
    if (flags.json) out.json(runs);
    else if (runs.length === 0) out.line('no agent runs match');
    else out.line(...runsTable(runs));
    return 0;
  } finally {
    await session.close();
  }
}
