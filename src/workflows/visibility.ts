/** Keeping a run's search attributes current. */
import { patched, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import { auditIdentityKey } from '../core/approvals/audit';
import type { ApprovalDesk } from './tool-call/approval-desk';
import {
  AGENT_NAME,
  APPROVAL_BY,
  APPROVAL_RULES,
  AWAITING_APPROVAL,
  MAX_AUDIT_KEYWORDS,
  PENDING_APPROVALS,
  RUN_STATUS,
} from './search-attributes';

/** Upserts search attributes when they change; does nothing for runs whose worker did not register them. */
export class Visibility {
  private last = '';
  /** `DurableAgentApprovalBy` and `DurableAgentApprovalRules` so far (a continued run starts from its previous execution's). */
  private readonly by: Set<string>;
  private readonly rules: Set<string>;

  constructor(private readonly enabled: boolean) {
    const carried = enabled ? workflowInfo().typedSearchAttributes : undefined;
    this.by = new Set(carried?.get(APPROVAL_BY) ?? []);
    this.rules = new Set(carried?.get(APPROVAL_RULES) ?? []);
  }

  /** Record the run's agent, status and pending approvals. */
  update(agent: string, status: string, pendingApprovals: number): void {
    if (!this.enabled) return;
    const key = `${agent}|${status}|${pendingApprovals}`;
    if (key === this.last) return;
    this.last = key;
    upsertSearchAttributes([
      { key: AGENT_NAME, value: agent },
      { key: RUN_STATUS, value: status },
      { key: AWAITING_APPROVAL, value: pendingApprovals > 0 },
      { key: PENDING_APPROVALS, value: pendingApprovals },
    ]);
  }

  /** Keep who decided the desk's calls, and the standing rules that did, findable (`client.audit({ by, rule })`). */
  watchDecisions(desk: ApprovalDesk): void {
    desk.onApprovalEvent((e) => {
      if (e.kind === 'decided') this.decided(e.decided.by, e.decided.rule?.scope === 'run' ? undefined : e.decided.rule?.id);
    });
  }

  /** Add `by` (hashed) and `rule` to the run's audit search attributes, when new (one upsert command). */
  private decided(by: string, rule: string | undefined): void {
    if (!this.enabled) return;
    const key = auditIdentityKey(by);
    const newBy = !this.by.has(key) && this.by.size < MAX_AUDIT_KEYWORDS;
    const newRule = rule !== undefined && !this.rules.has(rule) && this.rules.size < MAX_AUDIT_KEYWORDS;
    // Runs recorded before these attributes issued no upsert here (it is a command).
    if ((!newBy && !newRule) || !patched('audit-search-attributes')) return;
    if (newBy) this.by.add(key);
    if (newRule) this.rules.add(rule);
    upsertSearchAttributes([
      ...(newBy ? [{ key: APPROVAL_BY, value: [...this.by] }] : []),
      ...(newRule ? [{ key: APPROVAL_RULES, value: [...this.rules] }] : []),
    ]);
  }
}
