/**
 * Spoke of the tool call: sub-agents, an agent run as a child workflow of the run (or of any workflow)
 * that needs it, started with `startSubAgent` (`../child-agent.ts`); `runSubAgentCall` is the tool-call form (an `agentTool` call of the loop: events, outcome, spend).
 * The approvals children wait for are `child-approvals.ts`'s, reached here only through the context.
 */
import { isCancellation, workflowInfo } from '@temporalio/workflow';
import type { ToolOutcome } from '../../core/tool-calls/outcomes';
import type { PlannedCall } from '../../core/tool-calls/plan';
import type { AgentRunResult } from '../../core/run/result';
import { childFailedOutcome, childOutcome, childWorkflowId, subAgentPrompt } from '../../core/sub-agents/sub-agent';
import { errorOutcome } from '../../core/tool-calls/outcomes';
import { childSummary, startSubAgent } from '../child-agent';
import type { ToolCallContext } from './context';

/** What an agent-tool call needs from the run. */
export type SubAgentCallContext = Pick<ToolCallContext, 'policy' | 'approvalWaiver' | 'log'> & {
  children?: Pick<NonNullable<ToolCallContext['children']>, 'drop'>;
  /** The run's rules, which a child follows too (absent: none). */
  desk?: Pick<ToolCallContext['desk'], 'runRules'>;
};

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
      parent: { workflowId: parentId, callId: call.callId, ...(ctx.desk?.runRules.length ? { runRules: [...ctx.desk.runRules] } : {}) },
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
