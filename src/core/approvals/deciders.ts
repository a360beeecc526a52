/** Who may decide a waiting request: its approvers, the group it escalated to, its assignee. Pure. */
import type { PendingApproval } from './approval-requests';

/**
 * Who may decide (and defer or delegate) a waiting request: anyone when it names no approvers; otherwise its
 * approvers, the group it escalated to, and its assignee.
 */
export function mayDecide(pending: PendingApproval, by: string): boolean {
  if (!pending.approvers?.length) return true;
  return pending.approvers.includes(by) || (pending.escalated?.to.includes(by) ?? false) || pending.assignee === by;
}

/** Everyone who may decide `pending` (for messages); empty when anyone may. */
export function deciders(pending: PendingApproval): string[] {
  if (!pending.approvers?.length) return [];
  return [...new Set([...pending.approvers, ...(pending.escalated?.to ?? []), ...(pending.assignee ? [pending.assignee] : [])])];
}

/** Why `by` may not act on `pending`, or undefined when it may. */
export function notAllowed(pending: PendingApproval, by: string): string | undefined {
  return mayDecide(pending, by) ? undefined : `${by} may not decide calls of "${pending.tool}" (allowed: ${deciders(pending).join(', ')})`;
}
