/**
 * Spoke of the tool call: consolidate, N agents run in parallel as child workflows (each with its own
 * budget and approvals, listed and decided through the parent) and one answer made of theirs by a
 * summarising agent (one more child) or a function. `consolidateChildren` is the workflow side shared by
 * the tool form (`runConsolidateCall`, a `consolidateTool` call of the loop: events, outcome, spend) and
 * `consolidate()` of `durable-agent/workflow`.
 */
import { ActivityCancellationType, CancellationScope, isCancellation, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { RunPolicy } from '../../core/approvals/approvals';
import type { ApprovalWaiver } from '../../core/approvals/run-policy';
import type { Budget } from '../../core/budget/budget';
import { ZERO_USAGE } from '../../core/budget/usage';
import type { AgentEvent } from '../../core/events/events';
import type { AgentActivities } from '../../core/run/contract';
import type { AgentRunResult, ChildRunSummary } from '../../core/run/result';
import type { ConsolidatedChild, ConsolidateSpec } from '../../core/sub-agents/consolidate';
import {
  aggregationPrompt,
  aggregatorWorkflowId,
  childFailureText,
  childSummaries,
  deniedTools,
  memberPrompt,
  memberWorkflowId,
  succeeded,
} from '../../core/sub-agents/consolidate';
import type { ParentLink } from '../../core/sub-agents/sub-agent';
import { answerOf, childAnswerText, childWorkflowId, subAgentPrompt } from '../../core/sub-agents/sub-agent';
import type { ToolOutcome } from '../../core/tool-calls/outcomes';
import { errorOutcome } from '../../core/tool-calls/outcomes';
import type { PlannedCall } from '../../core/tool-calls/plan';
import type { ToolCallContext } from './context';
import { childSummary, startSubAgent } from '../child-agent';

/** A consolidation came to one answer. */
export interface ConsolidationSuccess {
  status: 'success';
  /** The aggregated answer. */
  answer: string;
  children: ConsolidatedChild[];
  /** The summarising agent's run (absent when a function aggregated). */
  aggregator?: ChildRunSummary;
}

/** A consolidation made no answer: a child failed under `onChildError: 'fail'`, the aggregator failed, or it was cancelled. */
export interface ConsolidationFailure {
  status: 'failed';
  /** Why, naming the children or the aggregator. */
  error: string;
  children: ConsolidatedChild[];
  aggregator?: ChildRunSummary;
}

/** What a consolidation came to. */
export type Consolidation = ConsolidationSuccess | ConsolidationFailure;

/** Where a consolidation runs, and what it tells its run. */
export interface ConsolidationOptions {
  /** The task, given to each child through its prompt template. */
  input: string;
  spec: ConsolidateSpec;
  /** Children's workflow ids are `<base>-<n>`, the summariser's `<base>-aggregate`. */
  base: string;
  /** The run that lists the children's approvals (and decides them through itself). */
  parent?: ParentLink;
  policy?: RunPolicy;
  approvalWaiver?: ApprovalWaiver;
  /** The summarising agent's budget (`spec.aggregate.kind === 'agent'`). */
  aggregatorBudget?: Budget;
  /** The aggregate function (`spec.aggregate.kind === 'fn'`). */
  aggregate?: (children: ConsolidatedChild[], input: string) => Promise<string>;
  /** Events of each child's start and end (`sub_agent_started` / `sub_agent_finished`), given the child's agent and workflow id. */
  onEvent?: (event: SubAgentEventBody) => void;
  /** The task queue to start agent `agent` on (default: this workflow's). */
  taskQueueOf?: (agent: string) => string | undefined;
  /** A child's whole result, as it ended (a consolidation started by a client answers with one). */
  onResult?: (workflowId: string, result: AgentRunResult) => void;
  /** A child ended (its approvals are no longer pending). */
  ended?: (workflowId: string) => void;
}

/** The part of a `sub_agent_*` event a consolidation knows (the caller adds step, call id and tool). */
export type SubAgentEventBody =
  | { type: 'sub_agent_started'; agent: string; workflowId: string }
  | {
      type: 'sub_agent_finished';
      agent: string;
      workflowId: string;
      status?: AgentRunResult['status'];
      usage?: AgentRunResult['usage'];
      costUsd?: number;
      error?: string;
    };

function messageOf(err: unknown): string {
  return err instanceof Error ? (err.cause instanceof Error ? `${err.message}: ${err.cause.message}` : err.message) : String(err);
}

/** Run agent `agent` on `input` as child `workflowId` to its ending (or to why it could not run). */
async function runChild(
  o: ConsolidationOptions,
  agent: string,
  input: string,
  workflowId: string,
  budget: Budget | undefined,
): Promise<{ result: AgentRunResult } | { error: string }> {
  const body = { agent, workflowId };
  try {
    const child = await startSubAgent(agent, {
      input,
      ...(o.policy ? { policy: o.policy } : {}),
      ...(o.approvalWaiver ? { approvalWaiver: o.approvalWaiver } : {}),
      ...(budget ? { budget } : {}),
      workflowId,
      ...(o.parent ? { parent: o.parent } : {}),
      ...(o.taskQueueOf?.(agent) !== undefined ? { taskQueue: o.taskQueueOf(agent) as string } : {}),
    });
    o.onEvent?.({ type: 'sub_agent_started', ...body });
    const result = await child.result();
    o.ended?.(workflowId);
    o.onResult?.(workflowId, result);
    const s = childSummary(workflowId, agent, result);
    o.onEvent?.({
      type: 'sub_agent_finished',
      ...body,
      status: s.status,
      usage: s.usage,
      ...(s.costUsd !== null ? { costUsd: s.costUsd } : {}),
    });
    return { result };
  } catch (err) {
    o.ended?.(workflowId);
    if (isCancellation(err)) throw err;
    const error = messageOf(err);
    o.onEvent?.({ type: 'sub_agent_finished', ...body, error });
    return { error };
  }
}

/**
 * Run every agent of `o.spec` in parallel as child workflows (each on its prompt, with its own budget and
 * the run's policy), then aggregate: by the summarising agent (one more child, prompted with every answer
 * and failure) or by `o.aggregate`. Cancelling the calling scope cancels every child and waits for each
 * one's `cancelled` result; the consolidation then fails (no aggregation) with every child's spend.
 */
export async function consolidateChildren(o: ConsolidationOptions): Promise<Consolidation> {
  const children: ConsolidatedChild[] = await Promise.all(
    o.spec.agents.map(async (member, i): Promise<ConsolidatedChild> => {
      const workflowId = memberWorkflowId(o.base, i);
      const input = memberPrompt(member, o.input);
      const ran = await runChild(o, member.agent, input, workflowId, member.budget);
      if ('error' in ran)
        return { workflowId, agent: member.agent, status: 'not_run', input, error: ran.error, usage: ZERO_USAGE, costUsd: null };
      const r = ran.result;
      const denied = deniedTools(r.report?.toolCalls ?? []);
      return {
        ...childSummary(workflowId, member.agent, r),
        input,
        ...(r.status === 'success' ? { answer: answerOf(r) } : { error: r.error?.message ?? 'no reason given' }),
        ...(denied.length ? { denied } : {}),
      };
    }),
  );
  if (CancellationScope.current().consideredCancelled)
    return { status: 'failed', error: 'cancelled before the answers were aggregated', children };
  const failed = children.filter((c) => !succeeded(c));
  if (failed.length && o.spec.onChildError === 'fail')
    return {
      status: 'failed',
      error: `${failed.length} of ${children.length} agents did not answer: ${failed.map(childFailureText).join('; ')}`,
      children,
    };

  const agg = o.spec.aggregate;
  if (agg.kind === 'fn') {
    if (!o.aggregate) return { status: 'failed', error: 'no aggregate function was given', children };
    try {
      return { status: 'success', answer: await o.aggregate(children, o.input), children };
    } catch (err) {
      if (isCancellation(err)) throw err;
      return { status: 'failed', error: `the aggregate function failed: ${messageOf(err)}`, children };
    }
  }
  const workflowId = aggregatorWorkflowId(o.base);
  const ran = await runChild(o, agg.agent, aggregationPrompt(o.input, children), workflowId, o.aggregatorBudget);
  if ('error' in ran)
    return { status: 'failed', error: `the summarising agent "${agg.agent}" (run ${workflowId}) could not run: ${ran.error}`, children };
  const aggregator = childSummary(workflowId, agg.agent, ran.result);
  if (ran.result.status !== 'success')
    return {
      status: 'failed',
      error: `the summarising agent "${agg.agent}" (run ${workflowId}) ended ${ran.result.status}: ${ran.result.error?.message ?? 'no reason given'}`,
      children,
      aggregator,
    };
  return { status: 'success', answer: answerOf(ran.result), children, aggregator };
}

/** Every child run of a consolidation (its agents, then its summariser), for the spend roll-up and the report. */
export function consolidationRuns(c: Consolidation): ChildRunSummary[] {
  return [...childSummaries(c.children), ...(c.aggregator ? [c.aggregator] : [])];
}

/** What a consolidate-tool call needs from the run. */
export type ConsolidateCallContext = Pick<ToolCallContext, 'spec' | 'policy' | 'approvalWaiver' | 'log'> & {
  children?: Pick<NonNullable<ToolCallContext['children']>, 'drop'>;
};

/**
 * A consolidate-tool call: its agents run on the call's `input` in parallel (with the run's policy), the
 * parent logs `sub_agent_started` / `sub_agent_finished` per child, and the aggregated answer is the
 * outcome (or an error result saying which child or the aggregator failed). Every child's spend rolls up
 * through the outcome's `children`. An aggregate function runs in the `aggregateResults` activity.
 */
export async function runConsolidateCall(ctx: ConsolidateCallContext, call: PlannedCall, inlineLimitBytes: number): Promise<ToolOutcome> {
  const spec = call.tool.consolidate as ConsolidateSpec;
  const tool = call.tool.name;
  const asked = subAgentPrompt(call.args);
  if ('error' in asked)
    return errorOutcome(call.callId, tool, `Invalid arguments for tool "${tool}": ${asked.error}. No agent was started.`);
  const parentId = workflowInfo().workflowId;
  const base = childWorkflowId(parentId, call.callId);
  const begun = Date.now();
  const { aggregateResults } = proxyActivities<AgentActivities>({
    startToCloseTimeout: call.tool.timeoutMs,
    retry: {
      maximumAttempts: call.tool.retry.maximumAttempts,
      initialInterval: call.tool.retry.initialIntervalMs,
      backoffCoefficient: call.tool.retry.backoffCoefficient,
      maximumInterval: call.tool.retry.maximumIntervalMs,
    },
    cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  });
  const result = await consolidateChildren({
    input: asked.prompt,
    spec,
    base,
    parent: { workflowId: parentId, callId: call.callId },
    ...(ctx.policy ? { policy: ctx.policy } : {}),
    ...(ctx.approvalWaiver ? { approvalWaiver: ctx.approvalWaiver } : {}),
    aggregate: async (children, input) => (await aggregateResults({ agent: ctx.spec.name, tool, input, children })).text,
    onEvent: (e) => ctx.log.push({ ...e, step: call.step, callId: call.callId, tool } as AgentEvent),
    ended: (workflowId) => ctx.children?.drop(workflowId),
  });
  const runs = consolidationRuns(result);
  const extra = { latencyMs: Date.now() - begun, attempts: 1, ...(runs.length ? { children: runs } : {}) };
  const whole = result.aggregator?.workflowId ?? base;
  if (result.status === 'failed')
    return errorOutcome(
      call.callId,
      tool,
      childAnswerText(`Consolidate "${tool}" failed: ${result.error}`, whole, inlineLimitBytes),
      extra,
    );
  return {
    callId: call.callId,
    tool,
    output: { type: 'text', text: childAnswerText(result.answer, whole, inlineLimitBytes) },
    isError: false,
    ...extra,
  };
}
