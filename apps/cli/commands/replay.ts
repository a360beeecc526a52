/**
 * `durable-agent replay`: fetch the histories of recent agent runs from the server and replay them
 * against the workflow code of this installation (or of `--workflows`), printing every run that would
 * break. The check to run in CI before deploying a worker: exit code 0 when every run replays, 1 when
 * any would break, 2 when the check could not run (bad flags, server unreachable, bad query).
 */
import { resolve } from 'node:path';
import { existsSync } from 'node:fs';
import type { Client } from '@temporalio/client';
import type { ReplayResult } from '@temporalio/worker';
import { DefaultLogger, Runtime, Worker, bundleWorkflowCode } from '@temporalio/worker';
import { EncryptionCodec } from '../../../src/entry/client';
import { resolveKeyring } from '../../../src/entry/client';
import { AGENT_NAME } from '../../../src/entry/client';
import { WORKFLOWS_PATH } from '../../../src/entry/worker';
import { CliError, errorMessage } from '../errors';
import { Output } from '../terminal-output';
import { Session } from '../session';
import type { ConnectionFlags } from '../target';
import { resolveTarget } from '../target';

/** Exit code when the check itself could not run. */
export const REPLAY_ERROR_EXIT = 2;

/** Options of `replay`. */
export interface ReplayFlags extends Omit<ConnectionFlags, 'taskQueue'> {
  /** Runs started within this long, e.g. `24h` (default), `30m`, `7d`. */
  since?: string;
  /** Only runs of this agent (the `DurableAgentName` search attribute). */
  agent?: string;
  /** A visibility query ANDed with the rest. */
  query?: string;
  /** At most this many runs, newest first (default 100). */
  limit?: number;
  /** The workflows to replay against: a module exporting `agentWorkflow` (default: durable-agent's). */
  workflows?: string;
}

const UNITS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/**
 * Milliseconds of a duration such as `90s`, `30m`, `24h`, `7d` or `2w`.
 *
 * @throws CliError naming the value and the expected form.
 */
export function parseSince(value: string): number {
  const m = /^\s*(\d+)\s*([smhdw])\s*$/.exec(value);
  const ms = m ? Number(m[1]) * (UNITS[m[2] as string] as number) : NaN;
  if (!Number.isSafeInteger(ms) || ms <= 0) {
    throw new CliError(
      `invalid --since "${value}": give a duration such as 30m, 24h or 7d (a whole number and s, m, h, d or w)`,
      REPLAY_ERROR_EXIT,
    );
  }
  return ms;
}

/** The visibility query that selects the runs to replay. */
export function replayQuery(flags: Pick<ReplayFlags, 'since' | 'agent' | 'query'>, now = new Date()): string {
  const parts = [`WorkflowType = 'agentWorkflow'`];
  const since = parseSince(flags.since ?? '24h');
  parts.push(`StartTime > '${new Date(now.getTime() - since).toISOString()}'`);
  if (flags.agent !== undefined) {
    if (!flags.agent.trim()) throw new CliError('invalid --agent: give the name of an agent', REPLAY_ERROR_EXIT);
    parts.push(`${AGENT_NAME.name} = ${JSON.stringify(flags.agent)}`);
  }
  if (flags.query !== undefined) {
    if (!flags.query.trim())
      throw new CliError('invalid --query: give a visibility query, e.g. "ExecutionStatus = \'Running\'"', REPLAY_ERROR_EXIT);
    parts.push(`(${flags.query})`);
  }
  return parts.join(' AND ');
}

/** A run that would break on this code. */
export interface BrokenRun {
  workflowId: string;
  runId: string;
  /** First line of the replay error. */
  error: string;
}

/** The first executions matching `query`, newest first. */
async function listRuns(client: Client, query: string, limit: number): Promise<Array<{ workflowId: string; runId: string }>> {
  const runs: Array<{ workflowId: string; runId: string }> = [];
  try {
    for await (const w of client.workflow.list({ query, pageSize: Math.min(limit, 1000) })) {
      runs.push({ workflowId: w.workflowId, runId: w.runId });
      if (runs.length >= limit) break;
    }
  } catch (err) {
    throw new CliError(`the server refused the query (${errorMessage(err)}); query: ${query}`, REPLAY_ERROR_EXIT);
  }
  return runs;
}

function quietRuntime(): void {
  try {
    // Each run that does not replay is reported below; the worker's own log of it is noise here.
    Runtime.install({
      logger: new DefaultLogger('ERROR', () => undefined),
      telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' } } },
    });
  } catch {
    // Already installed in this process.
  }
}

async function bundle(workflowsPath: string): Promise<string> {
  const noop = () => undefined;
  try {
    const { code } = await bundleWorkflowCode({
      workflowsPath,
      logger: { log: noop, trace: noop, debug: noop, info: noop, warn: noop, error: noop },
    });
    return code;
  } catch (err) {
    throw new CliError(`could not bundle the workflows at ${workflowsPath}: ${errorMessage(err)}`, REPLAY_ERROR_EXIT);
  }
}

/** Replay the matching runs; print the ones that would break and a summary; return the exit code. */
export async function replayCommand(flags: ReplayFlags): Promise<number> {
  const out = new Output(false);
  const query = replayQuery(flags);
  const limit = flags.limit ?? 100;
  const workflowsPath = flags.workflows !== undefined ? resolve(flags.workflows) : WORKFLOWS_PATH;
  if (!existsSync(workflowsPath))
    throw new CliError(`--workflows "${flags.workflows}" does not exist: give the module that exports agentWorkflow`, REPLAY_ERROR_EXIT);
  let dataConverter: { payloadCodecs: EncryptionCodec[] };
  try {
    dataConverter = { payloadCodecs: [new EncryptionCodec(resolveKeyring(undefined))] };
  } catch (err) {
    throw new CliError(errorMessage(err), REPLAY_ERROR_EXIT);
  }
  let session: Session;
  try {
    session = await Session.open(resolveTarget(flags), { embed: 'never', log: (l) => out.note(l) });
  } catch (err) {
    throw new CliError(errorMessage(err), REPLAY_ERROR_EXIT);
  }
  try {
    const client = session.temporal;
    const runs = await listRuns(client, query, limit);
    if (runs.length === 0) {
      out.line(`no runs to replay (query: ${query})`);
      return 0;
    }
    quietRuntime();
    const code = await bundle(workflowsPath);
    const histories = (async function* () {
      for (const r of runs) {
        try {
          yield { workflowId: r.workflowId, history: await client.workflow.getHandle(r.workflowId, r.runId).fetchHistory() };
        } catch (err) {
          throw new CliError(`could not fetch the history of ${r.workflowId} (run ${r.runId}): ${errorMessage(err)}`, REPLAY_ERROR_EXIT);
        }
      }
    })();
    const broken: BrokenRun[] = [];
    let replayed = 0;
    for await (const result of Worker.runReplayHistories(
      { workflowBundle: { code }, dataConverter },
      histories,
    ) as AsyncIterable<ReplayResult>) {
      replayed++;
      if (!result.error) continue;
      const b = { workflowId: result.workflowId, runId: result.runId, error: firstLine(result.error) };
      broken.push(b);
      out.line(`would break: ${b.workflowId} (run ${b.runId}): ${b.error}`);
    }
    const against = flags.workflows !== undefined ? flags.workflows : 'this code';
    out.line(
      broken.length === 0
        ? `replayed ${replayed} run${replayed === 1 ? '' : 's'} against ${against}: all replay`
        : `replayed ${replayed} run${replayed === 1 ? '' : 's'} against ${against}: ${broken.length} would break`,
    );
    return broken.length === 0 ? 0 : 1;
  } finally {
    await session.close();
  }
}

function firstLine(err: Error): string {
  const text = `${err.name && err.name !== 'Error' ? `${err.name}: ` : ''}${err.message}`;
  return text.split('\n')[0]?.trim() ?? text;
}
