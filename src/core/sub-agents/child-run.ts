/** The data of sub-agents that other core types carry: a tool's child agent, a finished child run, children's spend. Types only. */
import type { ApprovalRule } from '../approvals/rules';
import type { Usage } from '../budget/usage';

export type { SubAgentToolSpec } from '../run/spec';

export type { ChildRunSummary } from '../run/result';

/** What the children of a run have spent so far (absent in runs without sub-agents). */
export interface SubAgentSpend {
  runs: number;
  usage: Usage;
  costUsd: number;
}

/** What the parent tells a child it starts (in the child's input): who to tell about its approvals. */
export interface ParentLink {
  /** The parent's workflow id (signals reach its current execution, across continue-as-new). */
  workflowId: string;
  /** The parent's call that started this child. */
  callId: string;
  /** The parent's run-scope rules when it started the child ("approve and stop asking", "always reject"): the child follows them too. */
  runRules?: ApprovalRule[];
}
