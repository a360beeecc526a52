/** The data of sub-agents that other core types carry: a tool's child agent, a finished child run, children's spend. Types only. */
import type { RunStatus } from './result';
import type { Usage } from './usage';

/** A tool that runs an agent as a child workflow, as recorded in its `ToolSpec`. */
export interface SubAgentToolSpec {
  /** Name of the agent the child runs (registered on the workers of the parent's task queue). */
  agent: string;
}

/** What a finished child run was, on its parent's tool call (report entry, outcome, event). */
export interface ChildRunSummary {
  workflowId: string;
  agent: string;
  status: RunStatus;
  /** The child's usage (its own children's included). */
  usage: Usage;
  /** The child's cost in USD (its own children's included). */
  costUsd: number;
}

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
}
