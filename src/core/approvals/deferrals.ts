/**
 * Defer ("not now") and delegation of waiting approval requests, and who may decide one once it escalated
 * or was delegated: the pure rules. The desk (workflow side) keeps the state and the timers.
 */
import type { AuditPath, CallApprovalState, PendingApproval } from './approvals';
import { notAllowed } from './deciders';

export { deciders, mayDecide, notAllowed } from './deciders';

/** Put a waiting request out of the inbox until a time (it stays pending: not a decision; its expiry still runs). */
export interface DeferRequest {
  callId: string;
  /** ISO time it returns to the inbox: in the future, and not after the request expires. */
  until: string;
  /** Who defers it: someone who may decide it. */
  by: string;
  reason?: string;
  /** How the request was sent (set by our clients; `temporal` when absent). */
  path?: AuditPath;
}

/** Hand a waiting request to someone else: `to` becomes its assignee and may decide it (its approvers still may). */
export interface DelegateRequest {
  callId: string;
  /** Who it is delegated to, e.g. `ops:bob`. */
  to: string;
  /** Who delegates it: someone who may decide it. */
  by: string;
  reason?: string;
  /** How the request was sent (set by our clients; `temporal` when absent). */
  path?: AuditPath;
}

/** What a `defer` update did. */
export interface DeferReceipt {
  callId: string;
  tool: string;
  /** ISO time the request returns to the inbox. */
  until: string;
  by: string;
}

/** What a `delegate` update did. */
export interface DelegateReceipt {
  callId: string;
  tool: string;
  to: string;
  by: string;
}

/** Options of the `pendingApprovals` query. */
export interface PendingApprovalsOptions {
  /** List deferred requests too (they carry `deferredUntil`); by default they are out of the inbox. */
  includeDeferred?: boolean;
}

/** A request is delegated at most this many times. */
export const MAX_DELEGATIONS = 5;

const CLIENT_PATHS: readonly AuditPath[] = ['sdk', 'cli', 'http', 'console', 'chat', 'temporal'];

type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

/** Check the common fields; `problems` collects what is wrong. */
function common(p: Record<string, unknown>, problems: string[]): void {
  if (typeof p.callId !== 'string' || !p.callId) problems.push('callId must be a non-empty string');
  if (typeof p.by !== 'string' || !p.by.trim()) problems.push('by must name who sends it (e.g. "ops:alice")');
  if (p.reason !== undefined && typeof p.reason !== 'string') problems.push('reason must be a string');
  if (typeof p.reason === 'string' && p.reason.length > 2000) problems.push('reason must be at most 2000 characters');
  if (p.path !== undefined && !CLIENT_PATHS.includes(p.path as AuditPath)) problems.push(`path must be one of ${CLIENT_PATHS.join(', ')}`);
}

function extras(p: Record<string, unknown>, known: readonly string[], problems: string[]): void {
  const extra = Object.keys(p).filter((k) => !known.includes(k));
  if (extra.length) problems.push(`unknown field(s): ${extra.join(', ')}`);
}

function optional(p: Record<string, unknown>): { reason?: string; path?: AuditPath } {
  return {
    ...(typeof p.reason === 'string' && p.reason.trim() ? { reason: p.reason.trim() } : {}),
    ...(p.path !== undefined ? { path: p.path as AuditPath } : {}),
  };
}

/** Check the shape of a defer request from the outside world. */
export function parseDefer(payload: unknown): Parsed<DeferRequest> {
  if (!payload || typeof payload !== 'object' || Array.isArray(payload))
    return { ok: false, error: 'defer must be an object { callId, until, by, reason? }' };
  const p = payload as Record<string, unknown>;
  const problems: string[] = [];
  common(p, problems);
  if (typeof p.until !== 'string' || !Number.isFinite(Date.parse(p.until))) problems.push('until must be an ISO date-time');
  extras(p, ['callId', 'until', 'by', 'reason', 'path'], problems);
  if (problems.length) return { ok: false, error: `malformed defer: ${problems.join('; ')}` };
  return {
    ok: true,
    value: {
      callId: p.callId as string,
      until: new Date(Date.parse(p.until as string)).toISOString(),
      by: (p.by as string).trim(),
      ...optional(p),
    },
  };
}

/** Check the shape of a delegate request from the outside world. */
export function parseDelegate(payload: unknown): Parsed<DelegateRequest> {
  if (!payload || typeof payload !== 'object' || Array.isArray(payload))
    return { ok: false, error: 'delegate must be an object { callId, to, by, reason? }' };
  const p = payload as Record<string, unknown>;
  const problems: string[] = [];
  common(p, problems);
  if (typeof p.to !== 'string' || !p.to.trim()) problems.push('to must name who it is delegated to (e.g. "ops:bob")');
  else if (p.to.length > 200) problems.push('to must be at most 200 characters');
  extras(p, ['callId', 'to', 'by', 'reason', 'path'], problems);
  if (problems.length) return { ok: false, error: `malformed delegate: ${problems.join('; ')}` };
  return { ok: true, value: { callId: p.callId as string, to: (p.to as string).trim(), by: (p.by as string).trim(), ...optional(p) } };
}

/** Why the request a defer or delegate names cannot be acted on, or undefined when it can. */
function notWaiting(callId: string, state: CallApprovalState, nowMs: number): string | undefined {
  switch (state.kind) {
    case 'pending':
      return state.pending.expiresAt && Date.parse(state.pending.expiresAt) <= nowMs
        ? `the approval of call "${callId}" has expired`
        : undefined;
    case 'decided':
      return `call "${callId}" was already decided (${state.decision} by ${state.by})`;
    case 'expired':
      return `the approval of call "${callId}" has expired`;
    default:
      return `no approval is pending for call "${callId}"`;
  }
}

/** Why a well-formed defer cannot be applied, or undefined when it can. */
export function deferRefusal(d: DeferRequest, state: CallApprovalState, nowMs: number): string | undefined {
  const why = notWaiting(d.callId, state, nowMs);
  if (why || state.kind !== 'pending') return why;
  const denied = notAllowed(state.pending, d.by);
  if (denied) return denied;
  const until = Date.parse(d.until);
  if (until <= nowMs) return `until (${d.until}) must be in the future`;
  if (state.pending.expiresAt && until > Date.parse(state.pending.expiresAt))
    return `until (${d.until}) must not be after the request expires (${state.pending.expiresAt})`;
  return undefined;
}

/** Why a well-formed delegate cannot be applied (`delegations`: how many times the request was delegated), or undefined when it can. */
export function delegateRefusal(d: DelegateRequest, state: CallApprovalState, nowMs: number, delegations: number): string | undefined {
  const why = notWaiting(d.callId, state, nowMs);
  if (why || state.kind !== 'pending') return why;
  const denied = notAllowed(state.pending, d.by);
  if (denied) return denied;
  if (state.pending.assignee === d.to) return `call "${d.callId}" is already delegated to ${d.to}`;
  if (delegations >= MAX_DELEGATIONS) return `call "${d.callId}" was delegated ${MAX_DELEGATIONS} times already`;
  return undefined;
}

/** Whether a pending request shows in the inbox now: not while it is deferred. */
export function inInbox(pending: PendingApproval): boolean {
  return pending.deferredUntil === undefined;
}
