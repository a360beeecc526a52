/**
 * A run's approval audit trail as it stands now: its events read page by page (a closed run from its
 * recorded history, a running one by query), turned into records; sub-agents' records through the
 * parent's `sub_agent_started` events, when asked.
 */
import { auditRecords } from '../core/approvals/audit';
import type { AuditFilter, AuditRecord } from '../core/approvals/audit';
import { auditIdentityKey, matchesAudit } from '../core/approvals/audit';
import { APPROVAL_BY, APPROVAL_RULES } from '../workflows/search-attributes';
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

/** Filters of `client.audit()`: which runs (agent, started within `since`, at most `runs` of them) and which records. */
export interface AuditQuery extends Omit<AuditFilter, 'since'> {
  /** Only runs of this agent. */
  agent?: string;
  /** Runs started within this long (a duration such as `24h`, or milliseconds) and records made within it. */
  since?: string | number;
  /** At most this many runs are read, newest first (default 20, at most 1000). */
  runs?: number;
  /** At most this many records (the newest runs' first). */
  limit?: number;
}

/**
 * Visibility clauses that narrow the runs `client.audit(query)` reads to those whose search attributes name
 * the query's `by` (a decision by them) or `rule` (a standing rule that decided): none when neither is asked,
 * or when `by` is asked for records other than decisions (defers, delegations are not in the attributes).
 */
export function auditNarrowing(query: Pick<AuditQuery, 'by' | 'rule' | 'kind'>): string[] {
  const where: string[] = [];
  if (query.by !== undefined && (query.kind === undefined || query.kind === 'decided'))
    where.push(`${APPROVAL_BY.name} = '${auditIdentityKey(query.by)}'`);
  // A rule id that cannot be quoted is matched on the records only.
  // eslint-disable-next-line no-control-regex -- control characters are what it rejects
  if (query.rule !== undefined && /^[^'"\\\u0000-\u001f]+$/.test(query.rule)) where.push(`${APPROVAL_RULES.name} = '${query.rule}'`);
  return where;
}

/** One run's records in {@link AuditQuery} results, or why they could not be read (e.g. no worker answers a running run). */
export interface RunAudit {
  workflowId: string;
  agent?: string;
  records: AuditRecord[];
  error?: string;
}

/**
 * The audit records of the runs `list` finds (newest first), each read with `audit(workflowId)`, keeping
 * the records `filter` matches; runs with none left are dropped.
 */
export async function auditAcross(
  runs: Array<{ workflowId: string; agent?: string; startedAt: string }>,
  audit: (workflowId: string) => Promise<AuditRecord[]>,
  filter: AuditFilter,
  limit = Infinity,
): Promise<RunAudit[]> {
  const out: RunAudit[] = [];
  let left = limit;
  for (const run of runs) {
    if (left <= 0) break;
    let records: AuditRecord[];
    try {
      records = (await audit(run.workflowId)).filter((r) => matchesAudit(r, filter)).slice(0, left);
    } catch (err) {
      out.push({
        workflowId: run.workflowId,
        ...(run.agent ? { agent: run.agent } : {}),
        records: [],
        error: err instanceof Error ? err.message : String(err),
      });
      continue;
    }
    if (!records.length) continue;
    left -= records.length;
    out.push({ workflowId: run.workflowId, ...(run.agent ? { agent: run.agent } : {}), records });
  }
  return out;
}
