/**
 * `durable-agent approvals` lists every tool call waiting for a person; `approve`, `deny` and `skip`
 * decide one. Decisions go through the run's validated `decide` update when a worker is there to
 * answer. When none is, they are checked against the run's recorded history and sent as the
 * fire-and-forget `approval` signal (applied when a worker starts); a call the history does not hold
 * yet is refused unless `--queue` says to send it anyway.
 */
import { userInfo } from 'node:os';
import type { AwaitingRun } from '../../../src/entry/client';
import { ApprovalRefusedError } from '../../../src/entry/client';
import type { Decision, PendingApproval } from '../../../src/entry/client';
import { CliError, errorMessage } from '../errors';
import { Output } from '../terminal-output';
import { checkDecision, readRecordedRun } from '../recorded-run';
import { repeatEvery } from '../repeat';
import { Session } from '../session';
import type { ConnectionFlags } from '../target';
import { resolveTarget } from '../target';
import { findRun } from './existing';

/** Flags of `approve`, `deny` and `skip`. */
export interface DecideFlags extends Omit<ConnectionFlags, 'taskQueue'> {
  by?: string;
  reason?: string;
  /** approve only: also approve every later call of this tool in the run. */
  allCalls?: boolean;
  /** approve or deny: make it a rule of the run (approve and stop asking / always reject). */
  forRun?: boolean;
  /** With `forRun`: `tool` (default) or `args`. */
  match?: string;
  /** With no worker: send a decision for a call the recorded history does not hold yet. */
  queue?: boolean;
  json?: boolean;
}

/** Who decides when `--by` is not given. */
export function defaultApprover(): string {
  try {
    return `cli:${userInfo().username}`;
  } catch {
    return 'cli:unknown';
  }
}

function describePending(p: PendingApproval): string {
  const expires = p.expiresAt ? `, expires ${p.expiresAt}` : '';
  const who = p.approvers?.length ? `, approvers ${p.approvers.join(' ')}` : '';
  const deferred = p.deferredUntil ? `, deferred until ${p.deferredUntil}` : '';
  const escalated = p.escalated ? `, escalated to ${p.escalated.to.join(' ')} at ${p.escalated.at}` : '';
  const assignee = p.assignee ? `, assignee ${p.assignee}` : '';
  const question = p.question ? `\n    ${p.question}` : '';
  return `${p.callId}  ${p.tool}(${JSON.stringify(p.args)})  step ${p.step}, requested ${p.requestedAt}${expires}${who}${deferred}${escalated}${assignee}${question}`;
}

/** Flags of `approvals`. */
export interface ApprovalsFlags extends Omit<ConnectionFlags, 'taskQueue'> {
  json?: boolean;
  /** Keep the list current until Ctrl-C. */
  watch?: boolean;
  /** List deferred requests too ("not now"; they say until when). */
  deferred?: boolean;
}

/** How often `approvals --watch` asks again. */
export const WATCH_INTERVAL_MS = 1000;

/** `, parent <workflowId>` for a sub-agent's run (the run that started it lists the call too); else nothing. */
function parentNote(run: AwaitingRun): string {
  return run.parent ? `, parent ${run.parent.workflowId}` : '';
}

/** A run this process cannot read (e.g. sealed with a key it lacks): listed with why. */
function unreadableLine(r: AwaitingRun): string {
  return `${r.workflowId}  (agent ${r.agent ?? '?'}${parentNote(r)}): cannot be read: ${r.error ?? ''}`;
}

/** The human listing of the runs waiting for a person; a sub-agent's run names its parent. */
export function approvalLines(runs: readonly AwaitingRun[]): string[] {
  if (runs.length === 0) return ['no tool calls are waiting for approval'];
  const lines: string[] = [];
  for (const r of runs) {
    if (r.error !== undefined) {
      lines.push(unreadableLine(r));
      continue;
    }
    lines.push(`${r.workflowId}  (agent ${r.agent ?? '?'}, ${r.pending.length} pending${parentNote(r)})`);
    for (const p of r.pending) lines.push(`  ${describePending(p)}`);
  }
  return lines;
}

/** List pending approvals across runs; with `watch`, keep the list current until `signal` aborts. */
export async function approvalsCommand(flags: ApprovalsFlags, signal?: AbortSignal): Promise<number> {
  const out = new Output(Boolean(flags.json));
  const session = await Session.open(resolveTarget(flags), { embed: 'if-state', log: (l) => out.note(l) });
  try {
    const client = session.agentClient();
    const options = flags.deferred ? { includeDeferred: true } : {};
    const runs = await client.awaitingApproval(options);
    if (!flags.watch) {
      if (flags.json) out.json(runs);
      else out.line(...approvalLines(runs));
      return 0;
    }
    await watchApprovals(out, runs, () => client.awaitingApproval(options), signal ?? new AbortController().signal);
    return 0;
  } finally {
    await session.close();
  }
}

/** Each pending call by `<workflowId>/<callId>`, with its run. */
function byKey(runs: readonly AwaitingRun[]): Map<string, { run: AwaitingRun; pending: PendingApproval }> {
  const map = new Map<string, { run: AwaitingRun; pending: PendingApproval }>();
  for (const run of runs) for (const pending of run.pending) map.set(`${run.workflowId}/${pending.callId}`, { run, pending });
  return map;
}

/**
 * The live inbox: on a terminal the list is redrawn in place; otherwise (a pipe, a file, `--json`) only
 * changes are written: `+` for a call that started waiting, `-` for one decided, withdrawn or expired.
 */
async function watchApprovals(out: Output, first: AwaitingRun[], query: () => Promise<AwaitingRun[]>, signal: AbortSignal): Promise<void> {
  const tty = Boolean(out.stream.isTTY) && !out.jsonMode;
  let shown = new Map<string, { run: AwaitingRun; pending: PendingApproval }>();
  /** Runs listed as unreadable: told once, while they stay so. */
  let unreadable = new Set<string>();
  let drawn: string | undefined;
  const render = (runs: AwaitingRun[]) => {
    if (tty) {
      const text = [
        ...approvalLines(runs),
        '',
        out.styles.dim(`watching: refreshed every ${WATCH_INTERVAL_MS / 1000} s; Ctrl-C stops`),
      ].join('\n');
      // Redraw (from the top of a cleared screen) only when the list changed.
      if (text !== drawn) out.text(`\u001b[H\u001b[2J${text}\n`);
      drawn = text;
      return;
    }
    const now = byKey(runs);
    for (const run of runs) {
      if (run.error === undefined || unreadable.has(run.workflowId)) continue;
      if (out.jsonMode) out.jsonLine({ type: 'unreadable', workflowId: run.workflowId, agent: run.agent, error: run.error });
      else out.line(`! ${unreadableLine(run)}`);
    }
    unreadable = new Set(runs.filter((r) => r.error !== undefined).map((r) => r.workflowId));
    for (const [key, { run, pending }] of now) {
      if (shown.has(key)) continue;
      if (out.jsonMode)
        out.jsonLine({
          type: 'waiting',
          workflowId: run.workflowId,
          agent: run.agent,
          ...(run.parent ? { parent: run.parent } : {}),
          approval: pending,
        });
      else out.line(`+ ${run.workflowId}  (agent ${run.agent ?? '?'}${parentNote(run)})  ${describePending(pending)}`);
    }
    for (const [key, { run, pending }] of shown) {
      if (now.has(key)) continue;
      if (out.jsonMode) out.jsonLine({ type: 'gone', workflowId: run.workflowId, callId: pending.callId, tool: pending.tool });
      else out.line(`- ${run.workflowId}  ${pending.callId}  ${pending.tool}: no longer waiting (decided, withdrawn or expired)`);
    }
    shown = now;
  };
  if (!tty && !out.jsonMode) out.note(`watching the approvals inbox (every ${WATCH_INTERVAL_MS / 1000} s); Ctrl-C stops`);
  if (!tty && !out.jsonMode && first.length === 0) out.line('no tool calls are waiting for approval');
  render(first);
  await repeatEvery(WATCH_INTERVAL_MS, signal, async () => {
    try {
      render(await query());
    } catch (err) {
      if (signal.aborted) return true;
      process.stderr.write(`warning: could not read the approvals (${errorMessage(err)}); trying again\n`);
    }
    return false;
  });
}

/** Decide one pending approval. */
export async function decideCommand(decision: Decision, workflowId: string, callId: string, flags: DecideFlags): Promise<number> {
  if (!callId.trim()) throw new CliError('the call id is empty');
  if (flags.allCalls && decision !== 'approve') throw new CliError('--all-calls is only for approve');
  if (flags.forRun && decision === 'skip') throw new CliError('--for-run is only for approve or deny');
  if (flags.forRun && flags.allCalls) throw new CliError('use either --all-calls or --for-run');
  if (flags.match !== undefined && !flags.forRun) throw new CliError('--match needs --for-run');
  if (flags.match !== undefined && flags.match !== 'tool' && flags.match !== 'args') throw new CliError('--match must be tool or args');
  const by = (flags.by ?? defaultApprover()).trim();
  if (!by) throw new CliError('--by must name who decides (e.g. ops:alice)');
  const payload = {
    callId,
    decision,
    by,
    path: 'cli' as const,
    ...(flags.reason ? { reason: flags.reason } : {}),
    ...(flags.allCalls ? { scope: 'tool' as const } : {}),
    ...(flags.forRun ? { scope: 'run' as const } : {}),
    ...(flags.match ? { match: flags.match as 'tool' | 'args' } : {}),
  };
  const out = new Output(Boolean(flags.json));
  const session = await Session.open(resolveTarget(flags), { embed: 'if-state', log: (l) => out.note(l) });
  try {
    const { run, description, running } = await findRun(session, workflowId);
    if (!running) throw new CliError(`run "${workflowId}" has already ended (${description.status.name.toLowerCase()})`);
    if (!(await session.hasWorker(description.taskQueue))) {
      // No worker to validate it: check what the recorded history makes certain, then send a signal,
      // which the server keeps and the run applies (or refuses) when a worker starts.
      const check = checkDecision(await readRecordedRun(session.temporal, run.handle), payload);
      if (check.kind === 'refused') throw new CliError(`refused: ${check.reason} (nothing was sent)`);
      if (check.kind === 'unrecorded' && !flags.queue) {
        throw new CliError(
          `call "${callId}" is not in the run's recorded history yet (a query may have shown state the history does not hold) and no worker is running to check it: ` +
            `retry when a worker runs, or send it anyway with --queue (the run keeps it and applies it when the call asks for approval)`,
        );
      }
      await run.signalDecision(payload);
      const validated = check.kind === 'ok';
      if (flags.json) out.json({ ...payload, sent: 'signal', validated, ...(validated ? { tool: check.tool } : {}) });
      else if (validated) {
        out.line(
          `no worker is running for ${workflowId}: ${decision} of ${callId} (${check.tool}) by ${by} checked against the run's recorded history and sent as a signal; ` +
            `it applies when a worker starts (follow with: durable-agent watch ${workflowId})`,
        );
      } else {
        out.line(
          `no worker is running for ${workflowId}: ${decision} of ${callId} by ${by} queued UNVALIDATED (the call is not in the run's recorded history); ` +
            `the run checks it when a worker starts and applies it when the call asks for approval. ` +
            `See the outcome with: durable-agent watch ${workflowId} (approval_queued, then approval_decided or approval_refused)`,
        );
      }
      return 0;
    }
    try {
      const receipt = await run.decide(payload);
      if (flags.json) out.json(receipt);
      else {
        const extra = receipt.applied.length > 1 ? ` (also ${receipt.applied.slice(1).join(', ')})` : '';
        out.line(`${decision} ${callId} (${receipt.tool}) by ${by}${extra}`);
      }
      return 0;
    } catch (err) {
      if (err instanceof ApprovalRefusedError) throw new CliError(`refused: ${err.message}`);
      throw err;
    }
  } finally {
    await session.close();
  }
}
