/**
 * An agent run as a child workflow of the workflow that needs it: `startSubAgent` starts `agentWorkflow` as a
 * child (agent tools, consolidate, chains and `runAgent` use it) and `childSummary` sums up how it ended.
 */
import { ChildWorkflowCancellationType, ParentClosePolicy, startChild, uuid4, workflowInfo } from '@temporalio/workflow';
import type { ChildWorkflowHandle } from '@temporalio/workflow';
import type { RunPolicy } from '../core/approvals/approvals';
import type { ApprovalWaiver } from '../core/approvals/run-policy';
import type { Budget } from '../core/budget/budget';
import type { AgentWorkflowInput } from '../core/run/contract';
import { AGENT_WORKFLOW, WORKFLOW_TASK_TIMEOUT } from '../core/run/contract';
import type { AgentRunResult } from '../core/run/result';
import type { ChildRunSummary } from '../core/sub-agents/child-run';
import type { ParentLink } from '../core/sub-agents/sub-agent';

/** The agent workflow's signature (named by type, so this module does not import the workflow itself). */
type AgentWorkflowFn = (input: AgentWorkflowInput) => Promise<AgentRunResult>;

/** Options of {@link startSubAgent}. */
export interface SubAgentOptions {
  /** The agent's prompt. */
  input: string;
  /** The child's run policy (an agent tool passes the parent's). */
  policy?: RunPolicy;
  /** The identity allowed to loosen approvals in `policy` (an agent tool passes the parent's). */
  approvalWaiver?: ApprovalWaiver;
  /** Lower the agent's step cap. */
  maxSteps?: number;
  /** The child's workflow id. Default `<this workflow's id>--<agent>-<uuid>` (a workflow uuid: the same on replay). */
  workflowId?: string;
  /** Set when the caller is an agent run that lists the child's approvals (see `ChildApprovals` in `tool-call/child-approvals.ts`). */
  parent?: ParentLink;
  /** Lower the agent's budget for the child (the workflow's form: milliseconds). */
  budget?: Budget;
  /** The child's task queue. Default: this workflow's. */
  taskQueue?: string;
}

/**
 * Start agent `agent` as a child workflow: cancelling this workflow's scope cancels the child and waits for
 * its `cancelled` result (`WAIT_CANCELLATION_COMPLETED`); if this workflow closes first, the child is asked
 * to cancel (`REQUEST_CANCEL`), never killed, so it always ends with a result. Returns the child's handle.
 */
export async function startSubAgent(agent: string, options: SubAgentOptions): Promise<ChildWorkflowHandle<AgentWorkflowFn>> {
  const input: AgentWorkflowInput = {
    agent,
    prompt: options.input,
    ...(options.policy ? { policy: options.policy } : {}),
    ...(options.approvalWaiver ? { approvalWaiver: options.approvalWaiver } : {}),
    ...(options.maxSteps !== undefined ? { maxSteps: options.maxSteps } : {}),
    ...(options.parent ? { parent: options.parent } : {}),
    ...(options.budget ? { budget: options.budget } : {}),
  };
  return startChild<AgentWorkflowFn>(AGENT_WORKFLOW, {
    workflowId: options.workflowId ?? `${workflowInfo().workflowId}--${agent}-${uuid4()}`,
    args: [input],
    workflowTaskTimeout: WORKFLOW_TASK_TIMEOUT,
    ...(options.taskQueue !== undefined ? { taskQueue: options.taskQueue } : {}),
    cancellationType: ChildWorkflowCancellationType.WAIT_CANCELLATION_COMPLETED,
    parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
  });
}

/** The summary of a finished child, for its parent's report, outcome and event. */
export function childSummary(workflowId: string, agent: string, result: AgentRunResult): ChildRunSummary {
  return { workflowId, agent, status: result.status, usage: result.usage, costUsd: result.costUsd };
}
