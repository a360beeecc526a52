/**
 * Where tool calls wait for people. Requests, decisions (signal or validated update), expiries and
 * "approve all calls of this tool" live in workflow state, rebuilt from history on replay, so a decision
 * is never lost or applied twice, whatever happens to workers.
 */
import { condition, isCancellation, setHandler } from '@temporalio/workflow';
import type { ApprovalDecision, ApprovalSpec, CallApprovalState, Decision, PendingApproval } from '../core/approvals';
import { decisionOutcome, expiredOutcome, parseDecision, refusal } from '../core/approvals';
import type { DecisionReceipt } from '../core/contract';
import type { EventLog } from '../core/event-log';
import type { PlannedCall, ToolOutcome } from '../core/loop';
import { errorOutcome } from '../core/loop';
import { approvalSignal, decideUpdate, pendingApprovalsQuery } from './definitions';

interface Decided {
  decision: Decision;
  by: string;
  reason?: string;
}

interface Entry {
  pending: PendingApproval;
  spec: ApprovalSpec | undefined;
  decided?: Decided;
  closed?: 'expired' | 'withdrawn';
}

/** What waiting for a person came to. */
export type Verdict = { kind: 'run' } | { kind: 'outcome'; outcome: ToolOutcome };

/** The approval state of one run. */
export class ApprovalDesk {
  private readonly entries = new Map<string, Entry>();
  /** Tools approved for the rest of the run. */
  readonly approvedTools = new Set<string>();

  /**
   * @param log the run's event log
   * @param changed called whenever the set of pending approvals changes (search attributes)
   */
  constructor(
    private readonly log: EventLog,
    private readonly changed: () => void,
  ) {}

  /** Register the signal, update and query handlers. */
  install(): void {
    setHandler(pendingApprovalsQuery, () => this.pending());
    setHandler(approvalSignal, (payload: unknown) => {
      const parsed = parseDecision(payload);
      if (!parsed.ok) {
        this.refused(payload, parsed.error);
        return;
      }
      const why = refusal(parsed.value, this.stateOf(parsed.value.callId), Date.now());
      if (why) this.refused(payload, why);
      else this.apply(parsed.value, 'signal');
    });
    setHandler(decideUpdate, (payload: unknown) => this.apply((parseDecision(payload) as { value: ApprovalDecision }).value, 'update'), {
      validator: (payload: unknown) => {
        const parsed = parseDecision(payload);
        if (!parsed.ok) throw new Error(parsed.error);
        const why = refusal(parsed.value, this.stateOf(parsed.value.callId), Date.now());
        if (why) throw new Error(why);
      },
    });
  }

  /** Calls waiting for a person, oldest first. */
  pending(): PendingApproval[] {
    return [...this.entries.values()].filter((e) => !e.decided && !e.closed).map((e) => e.pending);
  }

  /** Ask for a person's decision on `call`. */
  request(call: PlannedCall, spec: ApprovalSpec | undefined): void {
    const now = Date.now();
    const pending: PendingApproval = {
      callId: call.callId,
      step: call.step,
      tool: call.name,
      args: call.args,
      requestedAt: new Date(now).toISOString(),
      ...(spec?.timeoutMs !== undefined ? { expiresAt: new Date(now + spec.timeoutMs).toISOString() } : {}),
      ...(spec?.approvers?.length ? { approvers: spec.approvers } : {}),
    };
    const entry: Entry = { pending, spec };
    this.entries.set(call.callId, entry);
    this.log.push({
      type: 'approval_requested',
      step: call.step,
      callId: call.callId,
      tool: call.name,
      args: call.args,
      ...(pending.expiresAt ? { expiresAt: pending.expiresAt } : {}),
      ...(pending.approvers ? { approvers: pending.approvers } : {}),
    });
    this.changed();
    if (spec?.timeoutMs !== undefined) void this.expireAt(entry, spec.timeoutMs);
  }

  /**
   * Expire `entry` when its time is up, whenever its call gets to wait (a serial call may start
   * waiting long after it was requested): the deadline is the one people were shown.
   */
  private async expireAt(entry: Entry, timeoutMs: number): Promise<void> {
    const settled = () => entry.decided !== undefined || entry.closed !== undefined;
    try {
      if (!(await condition(settled, timeoutMs)) && !settled()) {
        entry.closed = 'expired';
        const { callId, tool, step } = entry.pending;
        this.log.push({ type: 'approval_expired', step, callId, tool, outcome: entry.spec?.onTimeout ?? 'deny' });
        this.changed();
      }
    } catch (err) {
      // The run was cancelled: the timer goes with it.
      if (!isCancellation(err)) throw err;
    }
  }

  /** Wait until `call` is decided, its approval expires, or the request is withdrawn. */
  async wait(call: PlannedCall): Promise<Verdict> {
    const entry = this.entries.get(call.callId);
    if (!entry) return { kind: 'run' };
    await condition(() => entry.decided !== undefined || entry.closed !== undefined);
    if (entry.closed === 'withdrawn') return { kind: 'outcome', outcome: errorOutcome(call.callId, call.name, 'Not executed: the run ended first.') };
    if (entry.closed === 'expired') {
      const denied = expiredOutcome(call.callId, call.name);
      const fail = entry.spec?.onTimeout === 'fail';
      return { kind: 'outcome', outcome: fail ? { ...denied, fatal: true, failStatus: 'approval_expired' } : denied };
    }
    const d = entry.decided as Decided;
    return d.decision === 'approve' ? { kind: 'run' } : { kind: 'outcome', outcome: decisionOutcome(call.callId, call.name, { ...d, decision: d.decision }) };
  }

  /** Stop waiting for every open request (the run is ending). */
  withdrawAll(): void {
    let any = false;
    for (const e of this.entries.values()) {
      if (!e.decided && !e.closed) {
        e.closed = 'withdrawn';
        any = true;
      }
    }
    if (any) this.changed();
  }

  private stateOf(callId: string): CallApprovalState {
    const e = this.entries.get(callId);
    if (!e || e.closed === 'withdrawn') return { kind: 'unknown' };
    if (e.decided) return { kind: 'decided', decision: e.decided.decision, by: e.decided.by };
    if (e.closed === 'expired') return { kind: 'expired' };
    return { kind: 'pending', pending: e.pending };
  }

  private apply(d: ApprovalDecision, via: 'signal' | 'update'): DecisionReceipt {
    const entry = this.entries.get(d.callId) as Entry;
    const tool = entry.pending.tool;
    const decided: Decided = { decision: d.decision, by: d.by, ...(d.reason ? { reason: d.reason } : {}) };
    const applied = [d.callId];
    this.settle(entry, decided, via, false);
    if (d.decision === 'approve' && d.scope === 'tool') {
      this.approvedTools.add(tool);
      for (const other of this.entries.values()) {
        if (other.pending.tool !== tool || other.decided || other.closed) continue;
        // Approving all calls of a tool must respect who may approve each of them.
        if (other.pending.approvers?.length && !other.pending.approvers.includes(d.by)) continue;
        this.settle(other, decided, via, true);
        applied.push(other.pending.callId);
      }
    }
    this.changed();
    return { callId: d.callId, tool, decision: d.decision, by: d.by, applied };
  }

  private settle(entry: Entry, decided: Decided, via: 'signal' | 'update', sticky: boolean): void {
    entry.decided = decided;
    const { callId, tool, step } = entry.pending;
    this.log.push({
      type: 'approval_decided',
      step,
      callId,
      tool,
      decision: decided.decision,
      by: decided.by,
      ...(decided.reason ? { reason: decided.reason } : {}),
      via,
      sticky,
    });
  }

  private refused(payload: unknown, reason: string): void {
    const p = payload && typeof payload === 'object' ? (payload as Record<string, unknown>) : {};
    this.log.push({
      type: 'approval_refused',
      ...(typeof p.callId === 'string' ? { callId: p.callId } : {}),
      ...(typeof p.by === 'string' ? { by: p.by } : {}),
      reason,
    });
  }
}
