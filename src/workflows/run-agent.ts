/**
 * Agents from your own workflow code: `runAgent('support', { input })` runs an agent as a child workflow
 * of the workflow that calls it and returns its result; `startAgent` returns a handle first. The child is
 * an ordinary agent run: events, approvals (the inbox lists it with its parent), cancellation and the run
 * report work as for a run a client started. Workflow-safe (imported through `durable-agent/workflow`).
 */
import { ApplicationFailure } from '@temporalio/workflow';
import type { ChildWorkflowHandle } from '@temporalio/workflow';
import type { AnyAgent, OutputOf, ToolCallsOf, ToolNamesOf } from '../agents/define';
import type { BudgetOptions } from '../agents/budget-options';
import { budgetOptionsProblems, toBudget } from '../agents/budget-options';
import type { RunPolicy } from '../core/approvals/approvals';
import type { AgentWorkflowInput } from '../core/run/contract';
import type { ApprovalWaiver } from '../core/approvals/run-policy';
import { waiverProblem } from '../core/approvals/run-policy';
import type { AgentRunResult } from '../core/run/result';
import type { AnyToolCall } from '../core/tool-calls/tool-call';
import { startSubAgent } from './tool-call';

/** The result of a run of agent `A` (give the agent's type: `runAgent<typeof support>('support', …)`). */
export type AgentResultOf<A> = AgentRunResult<string extends ToolNamesOf<A> ? AnyToolCall : ToolCallsOf<A>, OutputOf<A>>;

/** Options of {@link runAgent} and {@link startAgent}. */
export interface RunAgentOptions<A = AnyAgent> {
  /** The user's request. */
  input: string;
  /**
   * Approval policy by tool name (`*` for the rest): `allow`, `ask` or `deny`. It may only tighten the
   * approvals of tools that need one, and every key must name a tool: otherwise the run ends `invalid_input`.
   */
  policy?: RunPolicy<ToolNamesOf<A>>;
  /** The identity allowed to loosen approvals (`allow` on a tool that needs approval): recorded in the run's input. */
  approvalWaiver?: ApprovalWaiver;
  /** The child's workflow id. Default `<this workflow's id>--<agent>-<uuid>` (the same on replay). */
  workflowId?: string;
  /** Lower the agent's budget for this run (tokens, USD, wall-clock `timeout` such as `'10m'`, turns). */
  budget?: BudgetOptions;
  /** Lower the agent's step cap for this run. */
  maxSteps?: number;
}

/** A running agent started by {@link startAgent}. */
export interface AgentChild<A = AnyAgent> {
  /** The child's workflow id: clients `get(workflowId)` it to follow its events, decide its approvals, cancel it. */
  readonly workflowId: string;
  /** Run id of the child's first execution. */
  readonly firstExecutionRunId: string;
  /** The run's result, whatever its ending (`cancelled` when this workflow was cancelled while it ran). */
  result(): Promise<AgentResultOf<A>>;
  /** Temporal's child workflow handle (to signal it from this workflow). */
  readonly handle: ChildWorkflowHandle<(input: AgentWorkflowInput) => Promise<AgentRunResult>>;
}

/**
 * Start agent `agent` as a child workflow of this workflow (on this workflow's task queue, so the worker
 * needs the durable-agent plugin) and return its handle once it has started. Cancelling this workflow
 * (or the cancellation scope around the call) cancels the agent and waits for its `cancelled` result; if
 * this workflow closes first, the agent is asked to cancel. Workflow code only.
 *
 * @throws ApplicationFailure (type `invalid_input`, not retryable) for a missing agent name, input or a
 * malformed budget: it fails this workflow with that message.
 * @throws ChildWorkflowFailure (from `@temporalio/workflow`) when the child cannot start (e.g. its
 * workflow id is taken).
 * @example
 * ```ts
 * const child = await startAgent<typeof support>('support', { input: 'Draft a refund for order 42' });
 * publishedChildId = child.workflowId; // e.g. returned by a query, for a person to follow or approve
 * const result = await child.result();
 * ```
 */
export async function startAgent<A extends AnyAgent = AnyAgent>(agent: string, options: RunAgentOptions<A>): Promise<AgentChild<A>> {
  const where = `runAgent("${String(agent)}", options)`;
  if (typeof agent !== 'string' || !agent)
    throw invalid(`runAgent(agent, options): agent must be the agent's name, got ${JSON.stringify(agent)}`);
  if (!options || typeof options.input !== 'string') throw invalid(`${where}: options.input must be the user's request as a string`);
  const problems = budgetOptionsProblems(options.budget, `${where}: options.budget`);
  if (problems.length) throw invalid(problems.join('; '));
  const waiver = waiverProblem(options.approvalWaiver);
  if (waiver) throw invalid(`${where}: options.${waiver}`);
  const budget = options.budget ? toBudget(options.budget) : undefined;
  const handle = await startSubAgent(agent, {
    input: options.input,
    ...(options.policy ? { policy: options.policy as RunPolicy } : {}),
    ...(options.approvalWaiver ? { approvalWaiver: options.approvalWaiver } : {}),
    ...(options.maxSteps !== undefined ? { maxSteps: options.maxSteps } : {}),
    ...(options.workflowId !== undefined ? { workflowId: options.workflowId } : {}),
    ...(budget && Object.keys(budget).length ? { budget } : {}),
  });
  return {
    workflowId: handle.workflowId,
    firstExecutionRunId: handle.firstExecutionRunId,
    result: () => handle.result() as Promise<AgentResultOf<A>>,
    handle: handle as AgentChild<A>['handle'],
  };
}

/**
 * Run agent `agent` as a child workflow of this workflow and return its result (every ending is a
 * result: check `status`). See {@link startAgent}. Workflow code only.
 *
 * @throws ApplicationFailure (type `invalid_input`) for malformed options; ChildWorkflowFailure when the
 * child could not run (failed to start, terminated).
 * @example
 * ```ts
 * import { runAgent } from 'durable-agent/workflow';
 * import type { support } from './agents'; // type only
 *
 * export async function refundWorkflow(orderId: string) {
 *   const draft = await runAgent<typeof support>('support', { input: `Draft a refund for order ${orderId}` });
 *   if (draft.status !== 'success') return { refunded: false, reason: draft.error.message };
 *   // … wait for a person, then pay with your own activity
 * }
 * ```
 */
export async function runAgent<A extends AnyAgent = AnyAgent>(agent: string, options: RunAgentOptions<A>): Promise<AgentResultOf<A>> {
  const child = await startAgent<A>(agent, options);
  return child.result();
}

function invalid(message: string): ApplicationFailure {
  return ApplicationFailure.create({ message, type: 'invalid_input', nonRetryable: true });
}
