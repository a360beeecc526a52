/**
 * A run's approval audit trail as it stands now: its events read page by page (a closed run from its
 * recorded history, a running one by query), turned into records; sub-agents' records through the
 * parent's `sub_agent_started` events, when asked.
 */
import { auditRecords } from '../core/approvals/audit';
import type { AuditRecord } from '../core/approvals/audit';
import type { AgentEvent, EventPage } from '../core/events/events';

/** Options of `run.audit()`. */
export interface AuditOptions {
  /** Add the records of the run's sub-agents (and theirs), tagged `child`. */
  children?: boolean;
}

/**
 * The audit records of run `workflowId`, reading its events with `read(cursor)` until the newest;
 * with `child`, each sub-agent's records (read with `child(workflowId)`) follow the event that started it.
 */
export async function readAudit(
  workflowId: string,
  read: (cursor: number) => Promise<EventPage>,
  child?: (workflowId: string) => Promise<AuditRecord[]>,
): Promise<AuditRecord[]> {
  const events: AgentEvent[] = [];
  for (let cursor = 0; ;) {
    const page = await read(cursor);
    events.push(...page.events);
    if (page.done || page.events.length === 0 || page.next === cursor) break;
    cursor = page.next;
  }
  const out: AuditRecord[] = [];
  let from = 0;
  for (let i = 0; i < events.length; i++) {
    const e = events[i]!;
    if (!child || e.type !== 'sub_agent_started') continue;
    out.push(...auditRecords(workflowId, events.slice(from, i + 1)));
    from = i + 1;
    for (const r of await child(e.workflowId)) out.push({ ...r, child: r.child ?? e.workflowId });
  }
  out.push(...auditRecords(workflowId, events.slice(from)));
  return out;
}
