/**
 * Sub-agents' pure rules: a tool call that runs another agent as a child workflow — its workflow id, the
 * prompt it is given, the result the parent's model reads, how its spend rolls up into the parent, and
 * how the approvals it waits for are shown on the parent. No I/O; the workflow side is `workflows/tool-call/sub-agent.ts`.
 */
import type { PendingApproval, RunPolicy } from '../approvals/approval-requests';
import type { JsonObject } from '../messages/json';
import type { ApprovalWaiver } from '../approvals/run-policy';
import { utf8Bytes } from '../messages/json';
import type { ToolOutcome } from '../tool-calls/outcomes';
import { errorOutcome } from '../tool-calls/outcomes';
import type { ChildRunSummary } from './child-run';
import type { LoopState } from '../loop/state';
import { addUsage, ZERO_USAGE } from '../budget/usage';

export type { ChildRunSummary, ParentLink, SubAgentSpend, SubAgentToolSpec } from './child-run';

/** Which child an approval waiting in a descendant belongs to (the direct child, or deeper). */
export interface ChildTag {
  workflowId: string;
  agent: string;
}

/** An approval a child waits for, as its parent lists it. */
export type ChildPendingApproval = PendingApproval & { child: ChildTag };

/** The signal a child sends its parent whenever the approvals it waits for change (its own and its children's). */
export interface ChildApprovalsReport {
  workflowId: string;
  agent: string;
  /** Increases with every report of the child: an older report arriving late is ignored. */
  seq: number;
  pending: Array<PendingApproval & { child?: ChildTag }>;
}

/** The workflow id of the child a parent's call starts: the same on every replay, unique per call of the run. */
export function childWorkflowId(parentWorkflowId: string, callId: string): string {
  return `${parentWorkflowId}--${callId}`;
}

/** The prompt a sub-agent call gives its child (`{ input: string }`), or why the arguments cannot be one. */
export function subAgentPrompt(args: JsonObject): { prompt: string } | { error: string } {
  const input = args.input;
  if (typeof input !== 'string' || !input.trim()) {
    return {
      error: `"input" must be a non-empty string: the task for the sub-agent (got ${input === undefined ? 'nothing' : JSON.stringify(input).slice(0, 80)})`,
    };
  }
  return { prompt: input };
}

/**
 * The id a parent lists a call its child waits on by, and takes decisions on it by: the parent's call that
 * started the child, a slash, the child's id of the call (call ids are per run, so the child's `call_1_0` is
 * not the parent's). Deeper children chain: `call_2_0/call_1_0/call_1_0`. The child is named by what its
 * workflow id has after `<parent>--` (the call id for an agent tool's child, `<n>-<agent>` for a chain's
 * step), or by its whole workflow id when it has no such prefix.
 */
export function qualifiedCallId(parentWorkflowId: string, childWorkflowId: string, callId: string): string {
  const prefix = `${parentWorkflowId}--`;
  const via = childWorkflowId.startsWith(prefix) ? childWorkflowId.slice(prefix.length) : childWorkflowId;
  return `${via}/${callId}`;
}

/**
 * The approvals of a child's report as the parent lists them: each tagged with the child it waits in, and,
 * given the parent's workflow id, with its call id qualified by the child (see {@link qualifiedCallId}).
 */
export function tagChildApprovals(report: ChildApprovalsReport, parentWorkflowId?: string): ChildPendingApproval[] {
  return report.pending.map((p) => ({
    ...p,
    ...(parentWorkflowId !== undefined ? { callId: qualifiedCallId(parentWorkflowId, report.workflowId, p.callId) } : {}),
    child: p.child ?? { workflowId: report.workflowId, agent: report.agent },
  }));
}

/** What a finished child answered: its text, and its validated output when its agent has an output schema. */
export interface ChildAnswer {
  finalText: string;
  output?: unknown;
}

/** A child's answer as text: its structured output as JSON when it has one, else its final text. */
export function answerOf(result: ChildAnswer): string {
  return result.output !== undefined ? JSON.stringify(result.output) : result.finalText;
}

/** The text the parent's model reads from a child's answer, cut to `maxBytes` (the child's run keeps it whole). */
export function childAnswerText(finalText: string, workflowId: string, maxBytes: number): string {
  if (utf8Bytes(finalText) <= maxBytes) return finalText;
  const note = `\n…(cut: the sub-agent's whole answer is in the result of its run ${workflowId})`;
  let text = finalText.slice(0, Math.max(0, maxBytes - utf8Bytes(note)));
  while (text && utf8Bytes(text) + utf8Bytes(note) > maxBytes) text = text.slice(0, -Math.max(1, Math.ceil(text.length / 20)));
  return `${text}${note}`;
}

/** A child's ending as the outcome of its parent's call: the answer on success, an error result (status and message) otherwise. */
export function childOutcome(
  callId: string,
  tool: string,
  child: ChildRunSummary,
  result: ChildAnswer & { error?: { message: string } },
  latencyMs: number,
  maxBytes: number,
): ToolOutcome {
  if (child.status === 'success') {
    return {
      callId,
      tool,
      output: { type: 'text', text: childAnswerText(answerOf(result), child.workflowId, maxBytes) },
      isError: false,
      latencyMs,
      attempts: 1,
      child,
    };
  }
  const partial = result.finalText ? ` Its last answer: ${result.finalText}` : '';
  const message = `Sub-agent "${child.agent}" ended ${child.status}: ${result.error?.message ?? 'no reason given'}.${partial}`;
  return errorOutcome(callId, tool, childAnswerText(message, child.workflowId, maxBytes), { latencyMs, attempts: 1, child });
}

/** The outcome of a call whose child could not run at all (it failed to start, failed or was terminated). */
export function childFailedOutcome(
  callId: string,
  tool: string,
  agent: string,
  workflowId: string,
  message: string,
  latencyMs: number,
): ToolOutcome {
  return errorOutcome(callId, tool, `Sub-agent "${agent}" (run ${workflowId}) failed: ${message}`, { latencyMs, attempts: 1 });
}

/** The loop state with the spend of the children among `outcomes` added (usage in the run's usage; cost apart). */
export function withChildSpend(state: LoopState, outcomes: readonly ToolOutcome[]): LoopState {
  const children = outcomes.flatMap((o) => [...(o.child ? [o.child] : []), ...(o.children ?? [])]);
  if (children.length === 0) return state;
  let spend = state.subAgents ?? { runs: 0, usage: ZERO_USAGE, costUsd: 0 };
  let usage = state.usage;
  for (const c of children) {
    spend = {
      runs: spend.runs + 1,
      usage: addUsage(spend.usage, c.usage),
      costUsd: Math.round((spend.costUsd + (c.costUsd ?? 0)) * 1e8) / 1e8,
    };
    usage = addUsage(usage, c.usage);
  }
  return { ...state, usage, subAgents: spend };
}

/** The prompt of the next agent of a chain: the previous agent's answer. */
export function chainPrompt(previous: ChildAnswer): string {
  return answerOf(previous);
}

/** Name of the workflow type that runs chains of agents (`chain(a, b, …)`). */
export const CHAIN_WORKFLOW = 'chainWorkflow';

/** Input of a chain run. */
export interface ChainWorkflowInput {
  /** Names of the agents, in order (registered on the workers of the task queue). */
  agents: string[];
  /** The first agent's prompt. */
  prompt: string;
  /** The run policy every agent of the chain runs with. */
  policy?: RunPolicy;
  /** The identity allowed to loosen approvals in `policy` (each agent's run gets it). */
  approvalWaiver?: ApprovalWaiver;
}
