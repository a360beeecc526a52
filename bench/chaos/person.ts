/**
 * The person of the chaos campaign, and the driver of one run: it starts the run, watches its pending
 * approvals and decides each after a short pause (by signal for some calls, by the `decide` update for
 * others, as {@link chaosDecision} says), waits for the result across worker kills and server restarts,
 * and reads the run's events once it has ended.
 */
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import type { AgentClient, AgentRun } from '../../src/client';
import { ApprovalRefusedError } from '../../src/client/errors';
import type { AgentEvent } from '../../src/core/events/events';
import type { AgentRunResult } from '../../src/core/run/result';
import { CHAOS_AGENT, CHAOS_APPROVER, chaosDecision, chaosPrompt } from './agent';

/** A decision the person sent. */
export interface SentDecision {
  callId: string;
  decision: 'approve' | 'deny';
  via: 'signal' | 'update';
  /** When the call was first seen pending, and when the decision was accepted by Temporal (epoch ms). */
  seenAt: number;
  sentAt: number;
  /** Sends that failed (server down, no worker) before one went through. */
  failedSends: number;
  /** The update was refused (e.g. an earlier send whose answer was lost had applied it already). */
  refused?: string;
}

/** What happened to one run. */
export interface RunRecord {
  n: number;
  workflowId: string;
  startedAt: number;
  endedAt?: number;
  result?: AgentRunResult;
  /** Its events once it ended (absent when they could not be read). */
  events?: AgentEvent[];
  /** Why it has no result: it did not end within the deadline, or reading it failed. */
  stuck?: string;
  decisions: SentDecision[];
}

/** What the kill controller may read about a run while it is in flight. */
export interface LiveRun {
  readonly n: number;
  readonly workflowId: string;
  /** Calls pending and not yet decided by the person, by call id → when seen. */
  readonly awaiting: Map<string, number>;
  done: boolean;
  /**
   * True while the run has been hit by fewer kills than the campaign wants: the person then holds its
   * decisions (at most {@link HOLD_MS}), so that every run meets its kills before it can end.
   */
  readonly wantsKills?: () => boolean;
}

/** Longest time the person holds a decision for a run still short of kills. */
export const HOLD_MS = 30_000;

/** Wait while `live` still wants kills, at most {@link HOLD_MS}. */
async function holdForKills(live: LiveRun): Promise<void> {
  const until = Date.now() + HOLD_MS;
  while (live.wantsKills?.() && Date.now() < until) await pause(200);
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Calls given up on by {@link within} that may still be running (the client retries them): the
 * connection must not close under them, or the client's retry timer throws where nothing can catch it.
 */
const abandoned = new Set<Promise<unknown>>();

/** Resolves once every call given up on has settled, or after `ms`. */
export async function abandonedCallsSettled(ms = 60_000): Promise<void> {
  await within(ms, Promise.allSettled([...abandoned]));
}

/** `op`, or 'timeout' after `ms` (the call then goes on, tracked until it settles). */
async function within<T>(ms: number, op: Promise<T>): Promise<T | 'timeout'> {
  const tracked = op.finally(() => abandoned.delete(tracked));
  abandoned.add(tracked);
  tracked.catch(() => undefined);
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([op, new Promise<'timeout'>((r) => (timer = setTimeout(() => r('timeout'), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

/** Retry `op` until it succeeds or `deadline` passes (the server may be restarting, the worker dead). */
async function persist<T>(what: string, deadline: number, op: () => Promise<T>, onFailure?: () => void): Promise<T> {
  for (;;) {
    try {
      return await op();
    } catch (err) {
      if (Date.now() > deadline) throw new Error(`${what}: still failing at the deadline: ${String(err)}`, { cause: err });
      onFailure?.();
      await pause(300);
    }
  }
}

/** Start a run (or find it, if an earlier start went through but its answer was lost). */
async function startRun(client: AgentClient, n: number, workflowId: string, deadline: number): Promise<AgentRun> {
  return persist(`start ${workflowId}`, deadline, async () => {
    try {
      return await client.start(CHAOS_AGENT, { input: chaosPrompt(n), workflowId });
    } catch (err) {
      if (err instanceof WorkflowExecutionAlreadyStartedError) return client.get(workflowId);
      throw err;
    }
  });
}

/**
 * Read the events of the ended runs whose events could not be read while workers were being killed (a
 * query lost with its worker, retried past its deadline), now that the fleet is left alone.
 */
export async function readMissingEvents(client: AgentClient, records: readonly RunRecord[]): Promise<void> {
  for (const record of records) {
    if (record.events || record.stuck) continue;
    record.events = await readAllEvents(client.get(record.workflowId), Date.now() + 60_000).catch(() => undefined);
  }
}

/** Every event of an ended run. */
async function readAllEvents(run: AgentRun, deadline: number): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  for (let cursor = 0; ;) {
    const page = await persist(`events of ${run.workflowId}`, deadline, () => run.readEvents(cursor));
    events.push(...page.events);
    if (page.events.length === 0) return events;
    cursor = page.next;
  }
}

/** Decide one pending call as the script says, retrying until Temporal takes it. */
async function decide(run: AgentRun, n: number, callId: string, seenAt: number, deadline: number): Promise<SentDecision> {
  const { decision, by } = chaosDecision(n, callId);
  const sent: SentDecision = { callId, decision, via: by, seenAt, sentAt: 0, failedSends: 0 };
  const body = { callId, decision, by: CHAOS_APPROVER, reason: `chaos person, by ${by}` } as const;
  await persist(
    `decide ${callId} of ${run.workflowId}`,
    deadline,
    async () => {
      if (by === 'signal') return run.signalDecision(body);
      try {
        await run.decide(body);
      } catch (err) {
        if (!(err instanceof ApprovalRefusedError)) throw err;
        sent.refused = err.message;
      }
    },
    () => sent.failedSends++,
  );
  sent.sentAt = Date.now();
  return sent;
}

/**
 * Drive run `n` to its end as the person: start it, decide its approvals after a pause of
 * `thinkMs()` each, and wait for its result until `timeoutMs` has passed.
 */
export async function driveRun(
  client: AgentClient,
  n: number,
  workflowId: string,
  live: LiveRun,
  options: { timeoutMs: number; thinkMs: () => number },
): Promise<RunRecord> {
  const deadline = Date.now() + options.timeoutMs;
  const record: RunRecord = { n, workflowId, startedAt: Date.now(), decisions: [] };
  const run = await startRun(client, n, workflowId, deadline);
  const deciding: Array<Promise<void>> = [];
  const watching = (async () => {
    const handled = new Set<string>();
    while (!live.done && Date.now() < deadline) {
      const pending = await within(
        5000,
        run.pendingApprovals().catch(() => 'failed' as const),
      );
      if (Array.isArray(pending)) {
        for (const p of pending) {
          if (handled.has(p.callId)) continue;
          handled.add(p.callId);
          const seenAt = Date.now();
          live.awaiting.set(p.callId, seenAt);
          deciding.push(
            pause(options.thinkMs())
              .then(() => holdForKills(live))
              .then(() => decide(run, n, p.callId, seenAt, deadline))
              .then((sent) => void record.decisions.push(sent))
              .finally(() => live.awaiting.delete(p.callId)),
          );
        }
      }
      await pause(250);
    }
  })();
  try {
    const result = await within(
      Math.max(0, deadline - Date.now()),
      persist(`result of ${workflowId}`, deadline, () => run.result()),
    );
    if (result === 'timeout') {
      record.stuck = `no result within ${options.timeoutMs / 1000} s`;
    } else {
      record.result = result;
      record.endedAt = Date.now();
    }
  } catch (err) {
    record.stuck = String(err);
  } finally {
    live.done = true;
  }
  await watching;
  await Promise.allSettled(deciding);
  if (record.stuck) {
    record.stuck += await whereItStands(run);
    // Its result is still awaited (given up on, not cancelled): end the run so that call settles before the
    // connection closes.
    await run.handle.terminate('chaos campaign: stuck').catch(() => undefined);
  } else {
    record.events = await readAllEvents(run, Date.now() + 60_000).catch(() => undefined);
  }
  return record;
}

/** A stuck run's status, pending activities and pending approvals, for the report. */
async function whereItStands(run: AgentRun): Promise<string> {
  try {
    const d = await run.handle.describe();
    const activities = (d.raw.pendingActivities ?? []).map(
      (a) => `${a.activityType?.name} attempt ${a.attempt}${a.lastFailure?.message ? ` (${a.lastFailure.message})` : ''}`,
    );
    const pending = await within(
      5000,
      run.pendingApprovals().catch((err: unknown) => `query failed: ${String(err)}`),
    );
    return `; status ${d.status.name}, pending activities: ${activities.join('; ') || 'none'}; pending approvals: ${JSON.stringify(pending)}`;
  } catch (err) {
    return `; describe failed: ${String(err)}`;
  }
}
