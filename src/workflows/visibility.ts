/** Keeping a run's search attributes current. */
import { upsertSearchAttributes } from '@temporalio/workflow';
import { AGENT_NAME, AWAITING_APPROVAL, PENDING_APPROVALS, RUN_STATUS } from './search-attributes';

/** Upserts search attributes when they change; does nothing for runs whose worker did not register them. */
export class Visibility {
  private last = '';

  constructor(private readonly enabled: boolean) {}

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
}
