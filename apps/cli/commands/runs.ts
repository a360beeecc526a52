/**
 * `durable-agent runs`: agent runs found through Temporal visibility (workflow type `agentWorkflow` and
 * the search attributes workers register), newest first, with what each is known to have cost.
 */
import type { ListedRun, RunFilter } from '../../../src/entry/client';
import { DEFAULT_RUNS_LIMIT, LISTED_STATUSES, RunFilterError, runsQuery as filterQuery } from '../../../src/entry/client';
import { CliError } from '../errors';
import { formatUsd } from '../format';
import { Output } from '../terminal-output';
import { UNKNOWN } from '../report-format';
import { Session } from '../session';
import { formatTable } from '../table';
import type { ConnectionFlags } from '../target';
import { resolveTarget } from '../target';

export type { ListedRun } from '../../../src/entry/client';
export { DEFAULT_RUNS_LIMIT, LISTED_STATUSES };

/** Options of `runs`. */
export interface RunsFlags extends Omit<ConnectionFlags, 'taskQueue'> {
  agent?: string;
  status?: string;
  /** Only runs started within this long, e.g. `24h`. */
  since?: string;
  limit?: number;
  json?: boolean;
}

/** A bad filter as the CLI says it: naming its flag. */
function asCliError(err: unknown): unknown {
  return err instanceof RunFilterError ? new CliError(`--${err.message}`) : err;
}

/** The visibility query for the flags; throws a {@link CliError} naming a bad flag. */
export function runsQuery(flags: Pick<RunsFlags, 'agent' | 'status' | 'since'>, now = Date.now()): string {
  try {
    return filterQuery(flags, now);
  } catch (err) {
    throw asCliError(err);
  }
}

/** The client filter of the flags. */
function filterOf(flags: RunsFlags): RunFilter {
  return {
    ...(flags.agent !== undefined ? { agent: flags.agent } : {}),
    ...(flags.status !== undefined ? { status: flags.status } : {}),
    ...(flags.since !== undefined ? { since: flags.since } : {}),
    ...(flags.limit !== undefined ? { limit: flags.limit } : {}),
  };
}

/** Runs matching the flags, newest first, at most `limit` (the client's `listRuns`). */
export async function listRuns(session: Session, flags: RunsFlags): Promise<ListedRun[]> {
  try {
    return await session.agentClient().listRuns(filterOf(flags), { hasWorker: (taskQueue) => session.hasWorker(taskQueue) });
  } catch (err) {
    throw asCliError(err);
  }
}

function costCell(r: ListedRun): string {
  if (r.costUsd === undefined) return UNKNOWN;
  return `${formatUsd(r.costUsd)}${r.unpricedSteps ? ` (+${r.unpricedSteps} unpriced)` : ''}`;
}

/** The runs as a table. */
export function runsTable(runs: readonly ListedRun[]): string[] {
  return formatTable(
    [
      { header: 'workflow id' },
      { header: 'agent' },
      { header: 'status' },
      { header: 'started' },
      { header: 'steps', align: 'right' },
      { header: 'cost', align: 'right' },
    ],
    runs.map((r) => [
      r.workflowId,
      r.agent ?? UNKNOWN,
      r.status,
      r.startedAt.replace('T', ' ').replace(/\.\d+Z$/, 'Z'),
      r.steps !== undefined ? String(r.steps) : UNKNOWN,
      costCell(r),
    ]),
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
