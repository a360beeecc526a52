/**
 * A chain of agents (`chain(a, b, …)`): each runs as a child workflow on the previous one's answer, in
 * turn. The chain's events are the children's `sub_agent_started` / `sub_agent_finished` and `done`; its
 * pending approvals are its children's (decided through the chain, forwarded); its result is the last
 * agent's result with the usage and cost of the whole chain. A child that does not succeed ends the chain
 * with its result.
 */
import { isCancellation, patched, workflowInfo } from '@temporalio/workflow';
import { agentTaskQueue, isAgentTaskQueue } from '../core/run/contract';
import { doneEvent, finishRun } from '../core/run/report';
import type { AgentRunResult } from '../core/run/result';
import { startLoop } from '../core/loop/state';
import type { ChainWorkflowInput } from '../core/sub-agents/sub-agent';
import { chainPrompt } from '../core/sub-agents/sub-agent';
import { addUsage, ZERO_USAGE } from '../core/budget/usage';
import { startOrchestration } from './orchestration';
import { inputProblems } from './run-input';
import { childSummary, startSubAgent } from './tool-call';

/** Patch: a chain on its first agent's own task queue starts every agent on that agent's own queue. */
export const CHAIN_AGENT_QUEUES_PATCH = 'chain-agent-queues';

/** Run `agents` in turn, each on the previous one's answer; returns the last result with the chain's usage and cost. */
export async function chainWorkflow(input: ChainWorkflowInput): Promise<AgentRunResult> {
  const info = workflowInfo();
  const startedAt = new Date().toISOString();
  const { log, children } = startOrchestration();

  const fail = (status: 'invalid_input' | 'internal_error' | 'cancelled', message: string, prompt = ''): AgentRunResult => {
    const result = finishRun(
      startLoop({ name: 'chain', limits: { maxSteps: 1, toolResultInlineBytes: 0 } }, prompt),
      status,
      { workflowId: info.workflowId, runId: info.runId, startedAt, endedAt: new Date().toISOString() },
      { message, type: status === 'invalid_input' ? 'InvalidInput' : status === 'cancelled' ? 'CancelledFailure' : 'ChildWorkflowFailure' },
    );
    log.push(doneEvent(result));
    return result;
  };
  const agents = input?.agents;
  if (!Array.isArray(agents) || agents.length === 0 || agents.some((a) => typeof a !== 'string' || !a))
    return fail('invalid_input', 'Invalid chain input: agents must be a non-empty list of agent names');
  const problems = inputProblems({
    agent: agents[0] as string,
    prompt: input.prompt,
    ...(input.policy ? { policy: input.policy } : {}),
    ...(input.approvalWaiver !== undefined ? { approvalWaiver: input.approvalWaiver } : {}),
  });
  if (problems) return fail('invalid_input', `Invalid chain input: ${problems}`);

  let prompt = input.prompt;
  let usage = ZERO_USAGE;
  let costUsd = 0;
  let priced = false; // some agent's cost was known: else the chain's is unknown too (null)
  let last: AgentRunResult | undefined;
  for (const [i, agent] of agents.entries()) {
    const callId = `chain_${i + 1}`;
    const workflowId = `${info.workflowId}--${i + 1}-${agent}`;
    const base = { step: i + 1, callId, tool: agent, agent, workflowId };
    try {
      // A chain on its first agent's own queue (a client with default queues) starts each agent on that agent's queue, where its workers are.
      const ownQueues = isAgentTaskQueue(info.taskQueue, agents[0] as string) && patched(CHAIN_AGENT_QUEUES_PATCH);
      const child = await startSubAgent(agent, {
        input: prompt,
        ...(input.policy ? { policy: input.policy } : {}),
        ...(input.approvalWaiver ? { approvalWaiver: input.approvalWaiver } : {}),
        workflowId,
        parent: { workflowId: info.workflowId, callId },
        ...(ownQueues ? { taskQueue: agentTaskQueue(agent) } : {}),
      });
      log.push({ type: 'sub_agent_started', ...base });
      last = await child.result();
    } catch (err) {
      children.drop(workflowId);
      const message =
        err instanceof Error ? (err.cause instanceof Error ? `${err.message}: ${err.cause.message}` : err.message) : String(err);
      log.push({ type: 'sub_agent_finished', ...base, error: message });
      return fail(
        isCancellation(err) ? 'cancelled' : 'internal_error',
        `Agent "${agent}" (step ${i + 1} of the chain) could not run: ${message}`,
        prompt,
      );
    }
    children.drop(workflowId);
    const summary = childSummary(workflowId, agent, last);
    log.push({
      type: 'sub_agent_finished',
      ...base,
      status: summary.status,
      usage: summary.usage,
      ...(summary.costUsd !== null ? { costUsd: summary.costUsd } : {}),
    });
    usage = addUsage(usage, last.usage);
    if (last.costUsd !== null) priced = true;
    costUsd = Math.round((costUsd + (last.costUsd ?? 0)) * 1e8) / 1e8;
    if (last.status !== 'success') break;
    prompt = chainPrompt(last);
  }
  const result = { ...(last as AgentRunResult), usage, costUsd: priced ? costUsd : null };
  log.push(doneEvent(result));
  return result;
}
