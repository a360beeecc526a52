/**
 * The approval audit trail of a run, derived from its events (pure): who decided what on which call,
 * when, through which path, with which reason and rule. Nothing is stored besides the run's own events,
 * so the trail is exactly what the run recorded (the same before and after a worker restart).
 */
import type { AgentEvent } from '../events/events';
import type { Decision } from './approval-requests';
import type { AuditPath, RuleRef } from './rules';

/** What happened to an approval in one {@link AuditRecord}. */
export type AuditKind =
  | 'requested'
  | 'auto'
  | 'decided'
  | 'expired'
  | 'deferred'
  | 'returned'
  | 'escalated'
  | 'delegated'
  | 'withdrawn'
  | 'refused'
  | 'forwarded';

/** One entry of a run's approval audit trail. */
export interface AuditRecord {
  /** ISO time the run recorded it (workflow time). */
  at: string;
  /** The event's sequence number in its run. */
  seq: number;
  /** The run (the sub-agent's, for a child's record). */
  workflowId: string;
  /** Set on a sub-agent's record read through its parent: the child run's workflow id. */
  child?: string;
  kind: AuditKind;
  /** The model step of the call, when the event names one. */
  step?: number;
  callId?: string;
  tool?: string;
  /** The decision (`decided`, `forwarded`, `refused` when known), or the automatic / timeout outcome. */
  decision?: Decision | 'allow' | 'deny' | 'fail';
  /** Who decided (or deferred, delegated, forwarded; the rule's maker for `auto` when known). */
  by?: string;
  /**
   * How it reached the run: a client (`sdk`, `cli`, `http`, `console`, `chat`), `temporal` (a raw signal
   * or update that named none), or the run itself (`rule`, `timeout`, `policy`, `parent`).
   */
  path?: AuditPath;
  /** `signal` or `update`, for a decision. */
  via?: 'signal' | 'update';
  /** The update that carried the decision, when one did. */
  updateId?: string;
  reason?: string;
  /** The rule that decided or asked, when one did. */
  rule?: RuleRef;
  /** `delegated`/`escalated`: who may decide now; `deferred`: ISO time it returns. */
  to?: string[];
  until?: string;
  /** `forwarded`: what the run sent on to the sub-agent that waits for the call, and that sub-agent's run. */
  forwarded?: { kind: 'decision' | 'defer' | 'delegate'; workflowId: string };
}

/** Filters on audit records (every given field must match). */
export interface AuditFilter {
  /** Records at or after this ISO time. */
  since?: string;
  /** Records before this ISO time. */
  until?: string;
  by?: string;
  tool?: string;
  decision?: AuditRecord['decision'];
  path?: AuditPath;
  kind?: AuditKind;
  /** Records of this rule (its id). */
  rule?: string;
}

/**
 * The search-attribute value that stands for identity `by` in `DurableAgentApprovalBy`: a hash (FNV-1a,
 * 64 bits, hex), as search attributes are stored in plain text on the server. It only narrows which runs are
 * read (a collision reads one run more); records are always matched on `by` itself. Pure: workflow and client.
 */
export function auditIdentityKey(by: string): string {
  let h = 0xcbf29ce484222325n;
  for (let i = 0; i < by.length; i++) {
    h ^= BigInt(by.charCodeAt(i));
    h = (h * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return `fnv1a64:${h.toString(16).padStart(16, '0')}`;
}

/** An event as read from a run: its `seq`/`at` and, when read through a parent, the child's tag. */
type SeenEvent = AgentEvent & { child?: string };

/**
 * The audit records of `events` (a run's events in order; a sub-agent's carry `child`, as
 * `run.events({ children: true })` yields them). `workflowId` is the run the events belong to.
 */
export function auditRecords(workflowId: string, events: Iterable<SeenEvent>): AuditRecord[] {
  const out: AuditRecord[] = [];
  for (const e of events) {
    const r = recordOf(e);
    if (!r) continue;
    out.push({ at: e.at, seq: e.seq, workflowId: e.child ?? workflowId, ...(e.child ? { child: e.child } : {}), ...r });
  }
  return out;
}

type Body = Omit<AuditRecord, 'at' | 'seq' | 'workflowId' | 'child'>;

function recordOf(e: SeenEvent): Body | undefined {
  switch (e.type) {
    case 'approval_requested':
      return { kind: 'requested', step: e.step, callId: e.callId, tool: e.tool, ...(e.rule ? { rule: e.rule } : {}) };
    case 'approval_auto':
      return {
        kind: 'auto',
        step: e.step,
        callId: e.callId,
        tool: e.tool,
        decision: e.decision,
        path: e.path,
        ...(e.by ? { by: e.by } : {}),
        ...(e.rule ? { rule: e.rule } : {}),
      };
    case 'approval_decided':
      return {
        kind: 'decided',
        step: e.step,
        callId: e.callId,
        tool: e.tool,
        decision: e.decision,
        by: e.by,
        // A decision that named no path came through Temporal directly (or from a client before paths existed).
        path: e.path ?? 'temporal',
        via: e.via,
        ...(e.updateId ? { updateId: e.updateId } : {}),
        ...(e.reason ? { reason: e.reason } : {}),
        ...(e.rule ? { rule: e.rule } : {}),
      };
    case 'approval_expired':
      return { kind: 'expired', step: e.step, callId: e.callId, tool: e.tool, decision: e.outcome, path: 'timeout' };
    case 'approval_deferred':
      return {
        kind: 'deferred',
        step: e.step,
        callId: e.callId,
        tool: e.tool,
        by: e.by,
        until: e.until,
        path: e.path ?? 'temporal',
        ...(e.reason ? { reason: e.reason } : {}),
      };
    case 'approval_returned':
      return { kind: 'returned', step: e.step, callId: e.callId, tool: e.tool };
    case 'approval_escalated':
      return { kind: 'escalated', step: e.step, callId: e.callId, tool: e.tool, to: e.to, path: 'timeout' };
    case 'approval_delegated':
      return {
        kind: 'delegated',
        step: e.step,
        callId: e.callId,
        tool: e.tool,
        by: e.by,
        to: [e.to],
        path: e.path ?? 'temporal',
        ...(e.reason ? { reason: e.reason } : {}),
      };
    case 'approval_withdrawn':
      return { kind: 'withdrawn', step: e.step, callId: e.callId, tool: e.tool, reason: e.reason };
    case 'approval_refused':
      return { kind: 'refused', ...(e.callId ? { callId: e.callId } : {}), ...(e.by ? { by: e.by } : {}), reason: e.reason };
    case 'approval_forwarded':
      return {
        kind: 'forwarded',
        callId: e.callId,
        by: e.by,
        forwarded: { kind: e.kind, workflowId: e.workflowId },
        ...(e.decision ? { decision: e.decision } : {}),
        path: e.path ?? 'temporal',
      };
    default:
      return undefined;
  }
}

/** Whether `r` matches every field `filter` gives. */
export function matchesAudit(r: AuditRecord, filter: AuditFilter): boolean {
  if (filter.since !== undefined && Date.parse(r.at) < Date.parse(filter.since)) return false;
  if (filter.until !== undefined && Date.parse(r.at) >= Date.parse(filter.until)) return false;
  if (filter.by !== undefined && r.by !== filter.by) return false;
  if (filter.tool !== undefined && r.tool !== filter.tool) return false;
  if (filter.decision !== undefined && r.decision !== filter.decision) return false;
  if (filter.path !== undefined && r.path !== filter.path) return false;
  if (filter.kind !== undefined && r.kind !== filter.kind) return false;
  if (filter.rule !== undefined && r.rule?.id !== filter.rule) return false;
  return true;
}
