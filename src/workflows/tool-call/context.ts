/** What running a tool call needs from the run (its own module, so the call and sub-agent modules share it without a cycle). */
import type { RunPolicy } from '../../core/approvals/approvals';
import type { AgentActivities } from '../../core/run/contract';
import type { EventLog } from '../../core/events/event-log';
import type { AgentSpec } from '../../core/run/spec';
import type { ApprovalWaiver } from '../../core/approvals/run-policy';
import type { ApprovalDesk } from './approval-desk';
import type { ChildApprovals } from './child-approvals';

/** What running a call needs from the run. */
export interface ToolCallContext {
  spec: AgentSpec;
  policy: RunPolicy | undefined;
  /** The run's approval waiver, passed on to sub-agents with its policy. */
  approvalWaiver?: ApprovalWaiver;
  desk: ApprovalDesk;
  log: EventLog;
  /** Calls executing right now (for the snapshot query). */
  running: Map<string, string>;
  /** One activity proxy per tool, carrying its timeouts and retry policy. */
  proxies: Map<string, AgentActivities['runTool']>;
  /** True while a message people sent waits for the model (it ends a `wait` early). */
  messageWaiting: () => boolean;
  /** The approvals the run's sub-agents wait for (their calls drop them when the child ends). */
  children?: ChildApprovals;
}
