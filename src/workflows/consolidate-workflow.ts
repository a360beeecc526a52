/**
 * A consolidation a client starts (`client.startConsolidate(agents, { input, aggregate })`): the agents
 * run in parallel as child workflows, then the summarising agent on all their answers. Like a chain, its
 * events are the children's `sub_agent_started` / `sub_agent_finished` and `done`; its pending approvals
 * are its children's (decided through it, forwarded); its result is the summariser's result with the
 * usage and cost of every child. A child that does not succeed under `onChildError: 'fail'` ends it with
 * that child's result (and the same totals).
 */
import { CancellationScope, workflowInfo } from '@temporalio/workflow';
import { agentTaskQueue, isAgentTaskQueue } from '../core/run/contract';
import type { AgentEvent } from '../core/events/events';
import { doneEvent, finishRun } from '../core/run/report';
import type { AgentRunResult } from '../core/run/result';
import { startLoop } from '../core/loop/state';
import type { ConsolidateWorkflowInput } from '../core/sub-agents/consolidate';
import { consolidatedSpend, consolidateSpecProblems, succeeded } from '../core/sub-agents/consolidate';
import { startOrchestration } from './orchestration';
import { inputProblems } from './run-input';
import { consolidateChildren, consolidationRuns } from './tool-call';

/** Run `input.agents` in parallel, then `input.aggregator` on their answers; returns the summariser's result with everyone's usage and cost. */
export async function consolidateWorkflow(input: ConsolidateWorkflowInput): Promise<AgentRunResult> {
  const info = workflowInfo();
  const startedAt = new Date().toISOString();
  const { log, children } = startOrchestration();

  const fail = (
    status: 'invalid_input' | 'internal_error' | 'cancelled',
    message: string,
    spent?: Pick<AgentRunResult, 'usage' | 'costUsd'>,
  ): AgentRunResult => {
    const finished = finishRun(
      startLoop({ name: 'consolidate', limits: { maxSteps: 1, toolResultInlineBytes: 0 } }, input?.prompt ?? ''),
      status,
      { workflowId: info.workflowId, runId: info.runId, startedAt, endedAt: new Date().toISOString() },
      { message, type: status === 'invalid_input' ? 'InvalidInput' : status === 'cancelled' ? 'CancelledFailure' : 'ChildWorkflowFailure' },
    );
    const result = spent ? { ...finished, ...spent } : finished;
    log.push(doneEvent(result));
    return result;
  };
  const spec = {
    agents: input?.agents,
    aggregate: { kind: 'agent' as const, agent: input?.aggregator },
    onChildError: input?.onChildError ?? 'include',
  };
  const problems = [
    ...consolidateSpecProblems(spec, 'input'),
    ...(typeof input?.prompt === 'string' && input.prompt ? [] : ['input.prompt must be a non-empty string']),
  ];
  const checked = problems.length
    ? undefined
    : inputProblems({
        agent: spec.agents[0]!.agent,
        prompt: input.prompt,
        ...(input.policy ? { policy: input.policy } : {}),
        ...(input.approvalWaiver !== undefined ? { approvalWaiver: input.approvalWaiver } : {}),
      });
  if (problems.length || checked) return fail('invalid_input', `Invalid consolidate input: ${problems.join('; ') || checked}`);

  // On its first agent's own queue (a client with default queues), each agent starts on its own queue, where its workers are.
  const ownQueues = isAgentTaskQueue(info.taskQueue, spec.agents[0]!.agent);
  const steps = new Map<string, number>();
  const results = new Map<string, AgentRunResult>();
  const result = await consolidateChildren({
    input: input.prompt,
    spec,
    base: `${info.workflowId}--consolidate`,
    parent: { workflowId: info.workflowId, callId: 'consolidate' },
    ...(input.policy ? { policy: input.policy } : {}),
    ...(input.approvalWaiver ? { approvalWaiver: input.approvalWaiver } : {}),
    ...(ownQueues ? { taskQueueOf: agentTaskQueue } : {}),
    // Each child is a step of the run's events (numbered as they start; the summariser last).
    onEvent: (e) => {
      if (!steps.has(e.workflowId)) steps.set(e.workflowId, steps.size + 1);
      log.push({ ...e, step: steps.get(e.workflowId) as number, callId: 'consolidate', tool: e.agent } as AgentEvent);
    },
    ended: (workflowId) => children.drop(workflowId),
    onResult: (workflowId, r) => results.set(workflowId, r),
  });
  const spend = consolidatedSpend(consolidationRuns(result));
  // The run's answer: the summariser's result, else the result that ended it (the first child that failed).
  const cancelled = CancellationScope.current().consideredCancelled;
  const failedChild = result.children.find((c) => !succeeded(c) && c.status !== 'not_run');
  const final = result.aggregator
    ? results.get(result.aggregator.workflowId)
    : !cancelled && failedChild
      ? results.get(failedChild.workflowId)
      : undefined;
  if (!final) return fail(cancelled ? 'cancelled' : 'internal_error', result.status === 'failed' ? result.error : 'no answer', spend);
  const out = { ...final, usage: spend.usage, costUsd: spend.costUsd };
  log.push(doneEvent(out));
  return out;
}
