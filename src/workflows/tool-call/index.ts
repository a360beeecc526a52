/**
 * The tool call, as the rest of the workflow sandbox uses it: the step driver (`run-step.ts`, see its
 * comment for the spokes), the approval desk and sub-agent helpers the agent and chain workflows set up.
 * Modules of this folder never import this file.
 */
export { ToolStep } from './run-step';
export type { ToolCallContext } from './context';
export { APPROVAL_REFUSED, ApprovalDesk } from './approval-desk';
export type { Decided, Verdict } from './approval-desk';
export { ChildApprovals, childApprovalsSignal, parentNotifier } from './child-approvals';
export { childSummary, startSubAgent } from './sub-agent';
export type { SubAgentOptions } from './sub-agent';
