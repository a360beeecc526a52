/**
 * `durable-agent defer <id> <callId> --until 2h` puts a waiting request out of the inbox until a time
 * ("not now": not a decision); `durable-agent delegate <id> <callId> --to <identity>` hands it to someone
 * else. Through the run's validated update when a worker answers; otherwise as a signal the run checks
 * when a worker starts (a refusal is then an `approval_refused` event).
 */
import { msToNumber } from '@temporalio/common';
import { ApprovalRefusedError } from '../../../src/entry/client';
import type { AgentRun } from '../../../src/entry/client';
import { CliError } from '../errors';
import { Output } from '../terminal-output';
import { Session } from '../session';
import type { ConnectionFlags } from '../target';
import { resolveTarget } from '../target';
import { defaultApprover } from './approvals';
import { findRun } from './existing';

/** Flags common to `defer` and `delegate`. */
export interface DeferFlags extends Omit<ConnectionFlags, 'taskQueue'> {
  by?: string;
  reason?: string;
  json?: boolean;
  /** defer: a duration from now (`2h`, `30m`) or an ISO date-time. */
  until?: string;
  /** delegate: who it goes to. */
  to?: string;
}

/** `--until`: a duration from `now` (e.g. `2h`) or an ISO date-time. */
export function parseUntil(text: string, now = Date.now()): Date {
  const trimmed = text.trim();
  if (/^\d{4}-\d{2}-\d{2}/.test(trimmed)) {
    const at = Date.parse(trimmed);
    if (Number.isFinite(at)) return new Date(at);
  } else {
    let ms = Number.NaN;
    try {
      ms = msToNumber(trimmed as Parameters<typeof msToNumber>[0]);
    } catch {
      // reported below
    }
    if (Number.isFinite(ms) && ms > 0) return new Date(now + ms);
  }
  throw new CliError(`--until must be a duration from now (e.g. 2h, 30m) or an ISO date-time, got "${text}"`);
}

async function act(
  workflowId: string,
  callId: string,
  flags: DeferFlags,
  send: (run: AgentRun, by: string, worker: boolean) => Promise<{ text: string; json: unknown }>,
): Promise<number> {
  if (!callId.trim()) throw new CliError('the call id is empty');
  const by = (flags.by ?? defaultApprover()).trim();
  if (!by) throw new CliError('--by must name who sends it (e.g. ops:alice)');
  const out = new Output(Boolean(flags.json));
  const session = await Session.open(resolveTarget(flags), { embed: 'if-state', log: (l) => out.note(l) });
  try {
    const { run, description, running } = await findRun(session, workflowId);
    if (!running) throw new CliError(`run "${workflowId}" has already ended (${description.status.name.toLowerCase()})`);
    const worker = await session.hasWorker(description.taskQueue);
    try {
      const { text, json } = await send(run, by, worker);
      if (flags.json) out.json(json);
      else out.line(text);
      return 0;
    } catch (err) {
      if (err instanceof ApprovalRefusedError) throw new CliError(`refused: ${err.message}`);
      throw err;
    }
  } finally {
    await session.close();
  }
}

const noWorker = (workflowId: string) =>
  `no worker is running for ${workflowId}: sent as a signal, checked and applied when a worker starts ` +
  `(follow with: durable-agent watch ${workflowId}; a refusal shows as approval_refused)`;

/** Defer one waiting request until a time. */
export async function deferCommand(workflowId: string, callId: string, flags: DeferFlags): Promise<number> {
  if (!flags.until) throw new CliError('--until is required (e.g. --until 2h)');
  const until = parseUntil(flags.until);
  return act(workflowId, callId, flags, async (run, by, worker) => {
    const request = { callId, until, by, path: 'cli' as const, ...(flags.reason ? { reason: flags.reason } : {}) };
    if (!worker) {
      await run.signalDefer(request);
      return { text: noWorker(workflowId), json: { ...request, until: until.toISOString(), sent: 'signal' } };
    }
    const receipt = await run.defer(request);
    return { text: `deferred ${callId} (${receipt.tool}) until ${receipt.until} by ${by}`, json: receipt };
  });
}

/** Delegate one waiting request to someone else. */
export async function delegateCommand(workflowId: string, callId: string, flags: DeferFlags): Promise<number> {
  const to = flags.to?.trim();
  if (!to) throw new CliError('--to is required (e.g. --to ops:bob)');
  return act(workflowId, callId, flags, async (run, by, worker) => {
    const request = { callId, to, by, path: 'cli' as const, ...(flags.reason ? { reason: flags.reason } : {}) };
    if (!worker) {
      await run.signalDelegate(request);
      return { text: noWorker(workflowId), json: { ...request, sent: 'signal' } };
    }
    const receipt = await run.delegate(request);
    return { text: `delegated ${callId} (${receipt.tool}) to ${receipt.to} by ${by}`, json: receipt };
  });
}
