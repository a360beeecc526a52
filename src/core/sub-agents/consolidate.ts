/**
 * Consolidate's pure rules: N agents run in parallel on one input (each as its own child run), then one
 * answer is made of theirs — by a summarising agent (one more child run, prompted by
 * {@link aggregationPrompt}) or by a function. The spec as data, each child's prompt, what a finished
 * child was, the aggregator's prompt (failures and denials stated plainly), the roll-up of their spend
 * and the child workflow ids. No I/O; the workflow side is `workflows/tool-call/consolidate.ts`.
 */
import type { Usage } from '../budget/usage';
import { addUsage, ZERO_USAGE } from '../budget/usage';
import type { RunStatus } from '../run/result';
import type { ChildRunSummary } from './child-run';
import type { ChildErrorPolicy, ConsolidateMember, ConsolidateSpec } from './consolidate-spec';
import type { RunPolicy } from '../approvals/approval-requests';
import type { ApprovalWaiver } from '../approvals/run-policy';

export type {
  AggregateByAgent,
  AggregateByFunction,
  AggregateSpec,
  ChildErrorPolicy,
  ConsolidateMember,
  ConsolidateSpec,
} from './consolidate-spec';

/** What each child is told by default: the consolidation's input as it is. */
export const INPUT_PLACEHOLDER = '{{input}}';

/** A child that ran to an ending (any status) as the aggregator sees it. */
export interface ConsolidatedRun extends ChildRunSummary {
  /** The prompt the child was given. */
  input: string;
  /** Its answer (its output as JSON when it has an output schema) — on success only. */
  answer?: string;
  /** Why it did not succeed (its error message), when it did not. */
  error?: string;
  /** Tools whose calls were denied in the child (by a person, the run policy, or an expired approval). */
  denied?: string[];
}

/** A child that could not run at all (it failed to start, failed or was terminated). */
export interface ConsolidatedFailure {
  workflowId: string;
  agent: string;
  status: 'not_run';
  input: string;
  error: string;
  usage: Usage;
  costUsd: null;
}

/** What one child of a consolidation came to. */
export type ConsolidatedChild = ConsolidatedRun | ConsolidatedFailure;

/** The prompt of child `member`, for the consolidation's `input`. */
export function memberPrompt(member: ConsolidateMember, input: string): string {
  return member.input === undefined ? input : member.input.split(INPUT_PLACEHOLDER).join(input);
}

/** The workflow id of child `index` (0-based) of the consolidation `base` (the same on every replay). */
export function memberWorkflowId(base: string, index: number): string {
  return `${base}-${index + 1}`;
}

/** The workflow id of the summarising agent's run of the consolidation `base`. */
export function aggregatorWorkflowId(base: string): string {
  return `${base}-aggregate`;
}

/** Whether a child succeeded. */
export function succeeded(child: ConsolidatedChild): child is ConsolidatedRun & { status: 'success'; answer: string } {
  return child.status === 'success';
}

/** How a child that did not succeed ended, in one sentence. */
export function childFailureText(child: ConsolidatedChild): string {
  return child.status === 'not_run'
    ? `"${child.agent}" (run ${child.workflowId}) could not run: ${child.error}`
    : `"${child.agent}" (run ${child.workflowId}) ended ${child.status}: ${child.error ?? 'no reason given'}`;
}

/** Tool calls of a child's report that were denied (their result says so), by tool name, each once. */
export function deniedTools(toolCalls: ReadonlyArray<{ tool: string; isError: boolean; error?: string }>): string[] {
  return [...new Set(toolCalls.filter((c) => c.isError && /^Denied\b/.test(c.error ?? '')).map((c) => c.tool))];
}

/**
 * The summarising agent's prompt: the task, then each child's answer labelled by its agent, and the
 * children that did not succeed stated plainly (status and why), as are tool calls denied in a child.
 */
export function aggregationPrompt(input: string, children: readonly ConsolidatedChild[]): string {
  const ok = children.filter(succeeded).length;
  const lines = [
    `${children.length} agents worked on this task in parallel; ${ok} of them answered${ok < children.length ? `, ${children.length - ok} did not` : ''}.`,
    'Combine their answers into one answer to the task. Say plainly what is missing because an agent failed.',
    '',
    '<task>',
    input,
    '</task>',
  ];
  children.forEach((c, i) => {
    const label = `agent ${i + 1}: "${c.agent}"`;
    lines.push('');
    if (succeeded(c)) {
      lines.push(`<answer ${label}>`, c.answer, '</answer>');
    } else {
      lines.push(`<failed ${label}>`, `It did not answer. ${childFailureText(c)}.`, '</failed>');
    }
    if (c.status !== 'not_run' && c.denied?.length)
      lines.push(`Note: in agent ${i + 1} ("${c.agent}"), calls to ${c.denied.map((t) => `"${t}"`).join(', ')} were denied and not run.`);
  });
  return lines.join('\n');
}

/** The spend of a consolidation: every child's and the summariser's usage, and cost (null when none had a price). */
export function consolidatedSpend(runs: ReadonlyArray<Pick<ChildRunSummary, 'usage' | 'costUsd'>>): {
  usage: Usage;
  costUsd: number | null;
} {
  let usage = ZERO_USAGE;
  let cost = 0;
  let priced = false;
  for (const r of runs) {
    usage = addUsage(usage, r.usage);
    if (r.costUsd !== null) {
      priced = true;
      cost = Math.round((cost + r.costUsd) * 1e8) / 1e8;
    }
  }
  return { usage, costUsd: priced ? cost : null };
}

/** The summaries of the children that ran (those that could not run spent nothing and have no status). */
export function childSummaries(children: readonly ConsolidatedChild[]): ChildRunSummary[] {
  return children.flatMap((c) =>
    c.status === 'not_run'
      ? []
      : [{ workflowId: c.workflowId, agent: c.agent, status: c.status as RunStatus, usage: c.usage, costUsd: c.costUsd }],
  );
}

/** Problems of a consolidate spec (empty when sound), each naming the field. */
export function consolidateSpecProblems(spec: ConsolidateSpec, where: string): string[] {
  const problems: string[] = [];
  if (!Array.isArray(spec.agents) || spec.agents.length === 0) problems.push(`${where}.agents must list at least one agent`);
  else
    spec.agents.forEach((m, i) => {
      if (!m || typeof m.agent !== 'string' || !m.agent) problems.push(`${where}.agents[${i}].agent must be an agent name`);
      if (m?.input !== undefined && typeof m.input !== 'string') problems.push(`${where}.agents[${i}].input must be a string template`);
    });
  const agg = spec.aggregate;
  if (!agg || (agg.kind === 'agent' ? typeof agg.agent !== 'string' || !agg.agent : agg.kind !== 'fn'))
    problems.push(`${where}.aggregate must be { agent } or { fn }`);
  if (spec.onChildError !== 'include' && spec.onChildError !== 'fail') problems.push(`${where}.onChildError must be 'include' or 'fail'`);
  return problems;
}

/** Input of the `aggregateResults` activity: the consolidate tool whose function to run, on what. */
export interface AggregateResultsInput {
  /** The agent whose tool it is. */
  agent: string;
  /** The consolidate tool's name. */
  tool: string;
  /** The call's input. */
  input: string;
  children: ConsolidatedChild[];
}

/** Output of the `aggregateResults` activity: the function's answer (recorded in history). */
export interface AggregateResultsOutput {
  text: string;
}

/** Name of the workflow type a client starts a consolidation with (`client.startConsolidate`). */
export const CONSOLIDATE_WORKFLOW = 'consolidateWorkflow';

/** Input of a consolidation run (`consolidateWorkflow`). */
export interface ConsolidateWorkflowInput {
  /** The agents run in parallel (registered on the workers of the task queue). */
  agents: ConsolidateMember[];
  /** The summarising agent. */
  aggregator: string;
  /** The task every agent gets (through its prompt template, if it has one). */
  prompt: string;
  /** A child that does not succeed: `include` it (default) or `fail` the run with its result. */
  onChildError?: ChildErrorPolicy;
  /** The run policy of every child. */
  policy?: RunPolicy;
  /** The identity allowed to loosen approvals in `policy`. */
  approvalWaiver?: ApprovalWaiver;
}
