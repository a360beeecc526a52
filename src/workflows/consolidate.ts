/**
 * Consolidate from your own workflow code: `consolidate(['a', 'b', 'c'], { input, aggregate })` runs the
 * agents in parallel as child workflows of the workflow that calls it and makes one answer of theirs, by a
 * summarising agent (one more child) or by a function of your workflow. Workflow-safe (imported through
 * `durable-agent/workflow`).
 */
import { ApplicationFailure, uuid4, workflowInfo } from '@temporalio/workflow';
import type { BudgetOptions } from '../agents/budget-options';
import { budgetOptionsProblems, toBudget } from '../agents/budget-options';
import type { RunPolicy } from '../core/approvals/approvals';
import type { ApprovalWaiver } from '../core/approvals/run-policy';
import { waiverProblem } from '../core/approvals/run-policy';
import type { Usage } from '../core/budget/usage';
import type { ChildRunSummary } from '../core/run/result';
import type { ChildErrorPolicy, ConsolidatedChild, ConsolidateMember, ConsolidateSpec } from '../core/sub-agents/consolidate';
import { consolidatedSpend } from '../core/sub-agents/consolidate';
import type { Consolidation } from './tool-call';
import { consolidateChildren, consolidationRuns } from './tool-call';

/** One agent of {@link consolidate}: its name, or its name with its own prompt template and budget. */
export type ConsolidateAgentOption =
  | string
  | {
      agent: string;
      /** The child's prompt: a template where `{{input}}` stands for `options.input`. Default: the input as it is. */
      input?: string;
      /** This child's budget (default: `options.budget`). */
      budget?: BudgetOptions;
    };

/** How {@link consolidate} makes one answer: a summarising agent (by name), or a function of your workflow (workflow code: deterministic). */
export type ConsolidateAggregateOption = { agent: string } | { fn: WorkflowAggregateFn };

/** Makes one answer of every child (answers and failures) and the input, in your workflow: deterministic workflow code (it may call your activities). */
export type WorkflowAggregateFn = (children: ConsolidatedChild[], input: string) => string | Promise<string>;

/** Options of {@link consolidate}. */
export interface ConsolidateOptions {
  /** The task, given to every agent (through its prompt template, if it has one). */
  input: string;
  aggregate: ConsolidateAggregateOption;
  /** Lower each agent's budget for its child run (each child has its own; the summariser's too). */
  budget?: BudgetOptions;
  /** The run policy of every child (by tool name, `*` for the rest). */
  policy?: RunPolicy;
  /** The identity allowed to loosen approvals in `policy`. */
  approvalWaiver?: ApprovalWaiver;
  /** A child that does not succeed: `include` it (the aggregator is told; default) or `fail` the consolidation. */
  onChildError?: ChildErrorPolicy;
  /** Children's workflow ids are `<workflowId>-<n>`, the summariser's `<workflowId>-aggregate`. Default `<this workflow's id>--consolidate-<uuid>`. */
  workflowId?: string;
}

/** {@link consolidate} made one answer. */
export interface ConsolidateSuccess {
  status: 'success';
  /** The aggregated answer. */
  answer: string;
  /** Every child (answer or error), in the order of `agents`. */
  children: ConsolidatedChild[];
  /** The summarising agent's run (absent when a function aggregated). */
  aggregator?: ChildRunSummary;
  /** Tokens of every child and of the summariser. */
  usage: Usage;
  /** Their cost in USD; null when none had a price. */
  costUsd: number | null;
}

/** {@link consolidate} made no answer: a child failed under `onChildError: 'fail'`, the summariser failed, or it was cancelled. */
export interface ConsolidateFailure {
  status: 'failed';
  /** Why, naming the children or the summariser. */
  error: string;
  /** Every child (answer or error), in the order of `agents`. */
  children: ConsolidatedChild[];
  /** The summarising agent's run, if it ran. */
  aggregator?: ChildRunSummary;
  /** Tokens of every child and of the summariser. */
  usage: Usage;
  /** Their cost in USD; null when none had a price. */
  costUsd: number | null;
}

/** What {@link consolidate} came to, discriminated by `status`. */
export type ConsolidateResult = ConsolidateSuccess | ConsolidateFailure;

/**
 * Run `agents` in parallel as child workflows of this workflow (on its task queue: the worker needs the
 * durable-agent plugin and the agents), each on `options.input` with its own budget, then make one
 * answer of theirs: a summarising agent is prompted with every answer and every failure, or your
 * function gets every child. Cancelling this workflow (or the scope around the call) cancels every
 * child and waits for its `cancelled` result (the result is then a failure). Each child is an ordinary
 * run (events, approvals in the inbox with this workflow as parent). Workflow code only.
 *
 * @throws ApplicationFailure (type `invalid_input`, not retryable) for malformed options.
 * @example
 * ```ts
 * const review = await consolidate(['style-reviewer', 'fact-checker'], { input: draft, aggregate: { agent: 'editor' } });
 * if (review.status === 'success') return review.answer; // review.costUsd: every child's and the editor's
 * ```
 */
export async function consolidate(agents: readonly ConsolidateAgentOption[], options: ConsolidateOptions): Promise<ConsolidateResult> {
  const where = 'consolidate(agents, options)';
  if (!Array.isArray(agents) || agents.length === 0) throw invalid(`${where}: agents must list at least one agent name`);
  if (!options || typeof options.input !== 'string') throw invalid(`${where}: options.input must be the task as a string`);
  const problems = budgetOptionsProblems(options.budget, `${where}: options.budget`);
  const members: ConsolidateMember[] = agents.map((a, i) => {
    const entry = typeof a === 'string' ? { agent: a } : a;
    if (!entry || typeof entry.agent !== 'string' || !entry.agent) problems.push(`${where}: agents[${i}] must be an agent name`);
    if (entry?.input !== undefined && typeof entry.input !== 'string')
      problems.push(`${where}: agents[${i}].input must be a string template`);
    problems.push(...budgetOptionsProblems(entry?.budget, `${where}: agents[${i}].budget`));
    const given = entry?.budget ?? options.budget;
    const budget = given && !problems.length ? toBudget(given) : undefined;
    return {
      agent: entry?.agent,
      ...(entry?.input !== undefined ? { input: entry.input } : {}),
      ...(budget && Object.keys(budget).length ? { budget } : {}),
    };
  });
  const agg = options.aggregate as Partial<{ agent: unknown; fn: unknown }> | undefined;
  const fn = typeof agg?.fn === 'function' ? (agg.fn as WorkflowAggregateFn) : undefined;
  const aggregator = typeof agg?.agent === 'string' && agg.agent ? agg.agent : undefined;
  if (!fn && !aggregator) problems.push(`${where}: options.aggregate must be { agent: name } or { fn }`);
  const waiver = waiverProblem(options.approvalWaiver);
  if (waiver) problems.push(`${where}: options.${waiver}`);
  if (options.onChildError !== undefined && options.onChildError !== 'include' && options.onChildError !== 'fail')
    problems.push(`${where}: options.onChildError must be 'include' or 'fail'`);
  if (problems.length) throw invalid(problems.join('; '));

  const spec: ConsolidateSpec = {
    agents: members,
    aggregate: fn ? { kind: 'fn', name: fn.name || 'aggregate' } : { kind: 'agent', agent: aggregator as string },
    onChildError: options.onChildError ?? 'include',
  };
  const result: Consolidation = await consolidateChildren({
    input: options.input,
    spec,
    base: options.workflowId ?? `${workflowInfo().workflowId}--consolidate-${uuid4().slice(0, 8)}`,
    ...(options.policy ? { policy: options.policy } : {}),
    ...(options.approvalWaiver ? { approvalWaiver: options.approvalWaiver } : {}),
    ...(fn ? { aggregate: async (children, input) => fn(children, input) } : {}),
    ...(options.budget && Object.keys(toBudget(options.budget)).length ? { aggregatorBudget: toBudget(options.budget) } : {}),
  });
  return { ...result, ...consolidatedSpend(consolidationRuns(result)) };
}

function invalid(message: string): ApplicationFailure {
  return ApplicationFailure.create({ message, type: 'invalid_input', nonRetryable: true });
}
