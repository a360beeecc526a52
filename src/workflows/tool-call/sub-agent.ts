/**
 * Spoke of the tool call: sub-agents, an agent run as a child workflow of the run (or of any workflow)
 * that needs it. `startSubAgent` starts `agentWorkflow` as a child (`runAgent`, chains and agent tools use
 * it); `runSubAgentCall` is the tool-call form (an `agentTool` call of the loop: events, outcome, spend).
 * The approvals children wait for are `child-approvals.ts`'s, reached here only through the context.
 */
import { ChildWorkflowCancellationType, isCancellation, ParentClosePolicy, startChild, uuid4, workflowInfo } from '@temporalio/workflow';
import type { ChildWorkflowHandle } from '@temporalio/workflow';
import type { RunPolicy } from '../../core/approvals/approvals';
import type { Budget } from '../../core/budget/budget';
import type { ChildRunSummary } from '../../core/sub-agents/child-run';
import type { AgentWorkflowInput } from '../../core/run/contract';
import { AGENT_WORKFLOW, WORKFLOW_TASK_TIMEOUT } from '../../core/run/contract';
import type { ToolOutcome } from '../../core/tool-calls/outcomes';
import type { PlannedCall } from '../../core/tool-calls/plan';
import type { ApprovalWaiver } from '../../core/approvals/run-policy';
import type { AgentRunResult } from '../../core/run/result';
import type { ParentLink } from '../../core/sub-agents/sub-agent';
import { childFailedOutcome, childOutcome, childWorkflowId, subAgentPrompt } from '../../core/sub-agents/sub-agent';
import { errorOutcome } from '../../core/tool-calls/outcomes';
import type { ToolCallContext } from './context';

/** What an agent-tool call needs from the run. */
export type SubAgentCallContext = Pick<ToolCallContext, 'policy' | 'approvalWaiver' | 'log'> & {
  children?: Pick<NonNullable<ToolCallContext['children']>, 'drop'>;
};

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
  /** Set when the caller is an agent run that lists the child's approvals (see {@link ChildApprovals}). */
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

/**
 * An agent-tool call: its child runs the agent on the call's `input` (with the run's policy), the parent
 * logs `sub_agent_started` / `sub_agent_finished`, and the child's answer (or ending) is the outcome.
 * Cancellation of the run propagates to the child; the call then ends with the child's `cancelled` result.
 */
export async function runSubAgentCall(ctx: SubAgentCallContext, call: PlannedCall, inlineLimitBytes: number): Promise<ToolOutcome> {
  const agent = call.tool.subAgent?.agent as string;
  const tool = call.tool.name;
  const asked = subAgentPrompt(call.args);
  if ('error' in asked)
    return errorOutcome(call.callId, tool, `Invalid arguments for tool "${tool}": ${asked.error}. The sub-agent was not started.`);
  const parentId = workflowInfo().workflowId;
  const workflowId = childWorkflowId(parentId, call.callId);
  const begun = Date.now();
  const base = { step: call.step, callId: call.callId, tool, agent, workflowId };
  let result: AgentRunResult;
  try {
    const child = await startSubAgent(agent, {
      input: asked.prompt,
      ...(ctx.policy ? { policy: ctx.policy } : {}),
      ...(ctx.approvalWaiver ? { approvalWaiver: ctx.approvalWaiver } : {}),
      workflowId,
      parent: { workflowId: parentId, callId: call.callId },
    });
    ctx.log.push({ type: 'sub_agent_started', ...base });
    result = await child.result();
  } catch (err) {
    ctx.children?.drop(workflowId);
    if (isCancellation(err)) throw err;
    const message =
      err instanceof Error ? (err.cause instanceof Error ? `${err.message}: ${err.cause.message}` : err.message) : String(err);
    ctx.log.push({ type: 'sub_agent_finished', ...base, error: message });
    return childFailedOutcome(call.callId, tool, agent, workflowId, message, Date.now() - begun);
  }
  ctx.children?.drop(workflowId);
  const summary = childSummary(workflowId, agent, result);
  ctx.log.push({
    type: 'sub_agent_finished',
    ...base,
    status: summary.status,
    usage: summary.usage,
    ...(summary.costUsd !== null ? { costUsd: summary.costUsd } : {}),
  });
  return childOutcome(call.callId, tool, summary, result, Date.now() - begun, inlineLimitBytes);
}
