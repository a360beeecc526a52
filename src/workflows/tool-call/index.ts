/**
 * The tool call, as the rest of the workflow sandbox uses it: the step driver (`run-step.ts`, see its
 * comment for the spokes), the approval desk and sub-agent helpers the agent and chain workflows set up.
 * Modules of this folder never import this file.
 */
export { ToolStep } from './run-step';
export type { ToolCallContext } from './context';
export { ApprovalDesk } from './approval-desk';
export { gateOf } from './gate';
export { ChildApprovals, parentNotifier } from './child-approvals';
export { childSummary, startSubAgent } from '../child-agent';
export { consolidateChildren, consolidationRuns } from './consolidate';
export type { Consolidation, ConsolidationFailure, ConsolidationSuccess } from './consolidate';
