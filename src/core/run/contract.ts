/**
 * The contract between the agent workflow, its activities and clients: inputs and outputs recorded in
 * history. Types only; no secrets ever appear in any of them.
 */
import type { EarlyStartsInput } from '../tool-calls/early';
import type { AggregateResultsInput, AggregateResultsOutput } from '../sub-agents/consolidate';
import type { JsonObject } from '../messages/json';
import type { ApprovalDecision, ApprovalRule, PendingApproval, RuleSet, RunPolicy } from '../approvals/approvals';
import type { NotifyInput } from '../approvals/notifications';
import type { UserMessageInput } from '../messages/user-messages';
import type { Message, ToolOutput } from '../messages/messages';
import type { LoopState, ModelStep } from '../loop/state';
import type { AgentSpec, ModelRef, OutputSpec } from './spec';
import type { Budget } from '../budget/budget';
import type { ContextView } from '../context/context';
import type { ExecutionStart, RecordedEvents } from '../events/event-log';
import type { AgentEvent } from '../events/events';
import type { RunStatus } from './result';
import type { Usage } from '../budget/usage';
import type { ParentLink } from '../sub-agents/child-run';
import type { GuardrailDecision, GuardrailKind } from '../guardrails/guardrail-types';
import type { ToolHookNote } from '../tool-calls/tool-hooks';
import type { ToolMetrics } from '../tool-calls/metrics';
import type { ToolProgress } from '../tool-calls/progress';
import type { ApprovalWaiver } from '../approvals/run-policy';
import type { LayerInput, LayerUpdate } from '../prompt/layers';

/** Name of the workflow type that runs agents. */
export const AGENT_WORKFLOW = 'agentWorkflow';
/**
 * The prefix of the default task queues (`durable-agent.<agent>`), and the task queue workers and clients
 * used by default before each agent had its own.
 */
export const DEFAULT_TASK_QUEUE = 'durable-agent';

/**
 * The default task queue of `agent`'s runs: `durable-agent.<agent>`. A worker created without a task queue
 * polls the queue of each agent it has, and a client without one starts each run on its agent's queue, so
 * a worker never takes a run of an agent it does not have.
 */
export function agentTaskQueue(agent: string): string {
  return `${DEFAULT_TASK_QUEUE}.${agent}`;
}

/** Whether `taskQueue` is the default queue of `agent` ({@link agentTaskQueue}). */
export function isAgentTaskQueue(taskQueue: string, agent: string | undefined): boolean {
  return agent !== undefined && taskQueue === agentTaskQueue(agent);
}

/** Input of one agent run. */
export interface AgentWorkflowInput {
  /** Name of an agent registered on the worker. */
  agent: string;
  /** The user's request; a session may start without one and wait for its first message. */
  prompt?: string;
  /** Lower the agent's step cap for this run. */
  maxSteps?: number;
  /**
   * Run-level approval policy by tool name (`*` for the rest): overrides each tool's own setting. Checked
   * against the agent's tools before any tool runs (`core/run-policy.ts`): every key must name a tool, and
   * `allow` on a tool that needs approval needs `approvalWaiver`; otherwise the run ends `invalid_input`.
   */
  policy?: RunPolicy;
  /** The identity allowed to loosen approvals in `policy` (recorded here, so in history). */
  approvalWaiver?: ApprovalWaiver;
  /**
   * Make the run a session: after each answer it waits (durably, no worker needed) for the next message
   * instead of ending, until `end`, its idle timeout, or a limit.
   */
  session?: SessionOptions;
  /**
   * Lower the agent's budget for this run (tokens, US dollars, wall-clock milliseconds, user turns):
   * the smaller of each limit applies (`effectiveBudget` in `core/budget.ts`).
   */
  budget?: Budget;
  /**
   * Set by the run itself when it continues as new: the state the new execution starts from.
   * @internal
   */
  continued?: ContinuedRun;
  /**
   * Set when a parent agent run started this one as a sub-agent: the run reports its pending approvals there.
   * @internal
   */
  parent?: ParentLink;
}

/**
 * What one execution of a long run hands the next when it continues as new (at a step boundary, never in
 * the middle of a step): everything a run is, but the conversation itself, which is in the store.
 */
export interface ContinuedRun {
  spec: AgentSpec;
  loop: LoopState;
  /** Tools approved for the rest of the run ("approve all calls"). */
  approvedTools: string[];
  /** Decision signals for calls the run has not reached yet. */
  queuedDecisions: ApprovalDecision[];
  /** Run-scope rules people made ("approve and stop asking", "always reject"); absent before issue 26. */
  runRules?: ApprovalRule[];
  /** The standing rule set the run knew (absent: none, or before issue 26). */
  standingRules?: RuleSet;
  /** Messages waiting for the model, and whether the session was asked to end. */
  inbox: { messages: Array<{ message: UserMessageInput; via: 'signal' | 'update' }>; ended: boolean };
  /**
   * Events so far (their numbers go on), the execution that holds the last of them, where each earlier
   * execution starts (the most recent ones), and the newest events themselves (served by the next
   * execution to readers slightly behind). Chain and tail are absent in runs recorded before they were kept.
   */
  events: { count: number; runId: string; chain?: ExecutionStart[]; tail?: AgentEvent[] };
  /** When the run started (its first execution). */
  startedAt: string;
  /** The run's budget as it stands (people may have extended it). */
  budget?: Budget;
  /** When the run's wall-clock budget runs out, if it has one. */
  deadline?: string;
  /** Approval notifications not yet delivered when the execution continued: the next one sends them. */
  undelivered?: NotifyInput[];
  /** Executions so far, the one handing over included. */
  executions: number;
}

/** Options of a session run. */
export interface SessionOptions {
  /** End the session when nobody has written for this long after an answer; never when absent. */
  idleTimeoutMs?: number;
}

/** Input of the `describeAgent` activity. */
export interface DescribeAgentInput {
  agent: string;
  /** Also list the tools of agents reachable through agent tools (`AgentSpec.subAgentTools`), to check a run policy. */
  subAgentTools?: boolean;
}

/** Input of the `callModel` activity: references plus what is new, never the whole conversation. */
export interface CallModelInput {
  agent: string;
  model: ModelRef;
  promptRef: string;
  step: number;
  attempt: number;
  transcript: { head: string | null; append: Message[] };
  /** What of the transcript the model is shown (summary, start, stubs); absent: all of it. */
  context?: ContextView;
  /** The agent's output contract: the final answer is asked for accordingly and validated (absent: free text). */
  output?: OutputSpec;
  /** The system prompt's layers in order with their current values (absent: the agent declares none). */
  layers?: LayerInput[];
  /**
   * Which tool calls to report to the workflow as soon as they are complete (streaming tool execution):
   * absent when no tool of the run may start early, and then nothing is reported.
   */
  early?: EarlyStartsInput;
}

/** Input of the `compactContext` activity: summarise the older part of what the model is shown. */
export interface CompactContextInput {
  agent: string;
  /** The model that writes the summary. */
  model: ModelRef;
  promptRef: string;
  /** The step whose model call follows. */
  step: number;
  /** The transcript's head and the messages not stored yet (stored first, as for `callModel`). */
  transcript: { head: string | null; append: Message[] };
  /** What the model is shown now. */
  view: ContextView;
  /** Tokens of the most recent messages to keep verbatim. */
  keepRecentTokens: number;
  /** The summariser's context window, to bound what it is sent; absent: unknown. */
  windowTokens?: number;
  /** Instructions for the summary; absent: the built-in ones. */
  summaryPrompt?: string;
}

/** Output of the `compactContext` activity. */
export type CompactContextOutput =
  | {
      compacted: true;
      /** The transcript's head with every message stored. */
      head: string | null;
      summaryRef: string;
      /** Index of the first message shown verbatim from now on. */
      from: number;
      messagesSummarized: number;
      tokensBefore: number;
      tokensAfter: number;
      usage: Usage;
      costUsd?: number;
      provider: string;
      model: string;
      latencyMs: number;
    }
  | { compacted: false; head: string | null; reason: string };

/** Output of the `callModel` activity. */
export type CallModelOutput = Omit<ModelStep, 'attempts'>;

/** Input of the `runTool` activity. */
export interface RunToolInput {
  agent: string;
  tool: string;
  callId: string;
  step: number;
  args: JsonObject;
  inlineLimitBytes: number;
  /**
   * Key the tool passes to the systems it changes: the run's first execution id and the call id, so it
   * is stable across retries, worker restarts and continue-as-new, and unique across runs that reuse a
   * workflow id. Absent only in activities scheduled by workflow code older than this field.
   */
  idempotencyKey?: string;
  /**
   * The call's attempt number as the workflow counts it (attempts lost with a worker do not count);
   * absent when Temporal's retry policy runs the attempts (workflow code older than this field).
   */
  attempt?: number;
  /** An at-most-once call a person allowed to run again after an unknown outcome: the how-manieth time (claims differ). */
  rerun?: number;
}

/** Output of the `runTool` activity. `isError` is set for results the model should see as errors (invalid arguments). */
export interface RunToolOutput {
  output: ToolOutput;
  isError: boolean;
  error?: string;
  latencyMs: number;
  attempt: number;
  /** An at-most-once call found claimed by an attempt that never recorded a result: it was not executed. */
  outcomeUnknown?: true;
  /** The arguments the call ran with, when the agent's `beforeToolCall` hook rewrote them. */
  ranArgs?: JsonObject;
  /** What the agent's tool hooks did (absent: nothing). */
  hooks?: ToolHookNote[];
  /** The metrics the tool set in this attempt (`ctx.metrics.set`); absent: none. */
  metrics?: ToolMetrics;
  /** The last progress the tool reported in this attempt (`ctx.progress`); absent: none. */
  lastProgress?: ToolProgress;
  /** Prompt layers the tool set (`ctx.context.set`), in order; absent: none. */
  context?: LayerUpdate[];
}

/** Details attached to a failed `runTool` attempt (ApplicationFailure details[0]). */
export interface ToolFailureDetails {
  attempt: number;
  latencyMs: number;
  /** The metrics the tool set before the attempt failed; absent: none. */
  metrics?: ToolMetrics;
  /** The last progress the tool reported before the attempt failed; absent: none. */
  lastProgress?: ToolProgress;
}

/**
 * Workflow task timeout of agent runs (Temporal's default is 10 s): a worker killed while it holds a
 * run's workflow task delays the run this long. Agent workflow tasks are short (histories stay under
 * a few thousand events through continue-as-new), so 5 s leaves room for a loaded worker's replay.
 */
export const WORKFLOW_TASK_TIMEOUT = '5s';

/**
 * Failure type of an activity that could not read or write the run's content in the blob store. The
 * workflow ends such a run `storage_error` (never retrying the model or the tool for it).
 */
export const STORAGE_ERROR = 'StorageError';

/** Details attached to a {@link STORAGE_ERROR} failure (ApplicationFailure details[0]). */
export interface StorageFailureDetails {
  storage: true;
  /** The blob that was missing, when one was. */
  ref?: string;
}

/** Details attached to a failed `callModel` attempt (ApplicationFailure details[0]). */
export interface ModelFailureDetails {
  retryable: boolean;
  status?: number;
  retryAfterMs?: number;
  /** The provider said the prompt is larger than the model's context window. */
  contextOverflow?: boolean;
}

/** Input of the `commitTranscript` activity: store messages the model has not seen yet (the run is ending). */
export interface CommitTranscriptInput {
  head: string | null;
  append: Message[];
}

/** Input of the `checkApprovals` activity: calls whose tools ask for approval depending on their arguments. */
export interface CheckApprovalsInput {
  agent: string;
  calls: Array<{ callId: string; tool: string; args: JsonObject }>;
}

/** Input of the `checkGuardrails` activity: which guardrails to run on which conversation. */
export interface CheckGuardrailsInput {
  agent: string;
  kind: GuardrailKind;
  /** The step whose model call follows (input) or just answered (output). */
  step: number;
  /** Names of the guardrails to run, from the spec, in order. */
  names: string[];
  /** The transcript's head and the messages not stored yet (stored first, as for `callModel`). */
  transcript: { head: string | null; append: Message[] };
  /** What of the transcript the model is shown; absent: all of it. */
  context?: ContextView;
}

/** Whether each call needs a person, as the tool's predicate said. Recorded, so replay never re-evaluates it. */
export type CheckApprovalsOutput = Array<{
  callId: string;
  needsApproval: boolean;
  note?: string;
  /** The answers of the agent's function rules for the call's tool (rule id → matches; null: it threw); absent: none asked. */
  rules?: Record<string, boolean | null>;
}>;

/** What the `decide` update reports. */
/** Details of a `decide` update's `ApprovalRefused` failure: the call's state when it was refused. */
export interface RefusalDetails {
  /** `not_reached`: the run has not recorded this call (yet). */
  state: 'not_reached' | 'not_asked' | 'pending' | 'decided' | 'expired' | 'gating';
}

/** What a `decide` update answers: the decision as recorded, and the calls it applied to. */
export interface DecisionReceipt {
  callId: string;
  tool: string;
  decision: 'approve' | 'deny' | 'skip';
  by: string;
  /** Every call the decision applied to: more than one when approving all calls of a tool. */
  applied: string[];
}

/** Activities of the agent workflow, as the worker implements them. */
export interface AgentActivities {
  describeAgent(input: DescribeAgentInput): Promise<AgentSpec>;
  callModel(input: CallModelInput): Promise<CallModelOutput>;
  compactContext(input: CompactContextInput): Promise<CompactContextOutput>;
  runTool(input: RunToolInput): Promise<RunToolOutput>;
  commitTranscript(input: CommitTranscriptInput): Promise<string | null>;
  /**
   * Does nothing: its input, a closing execution's events, is what matters — recorded in history, where
   * clients read a closed run's events with no worker.
   */
  recordEvents(input: RecordedEvents): Promise<void>;
  checkApprovals(input: CheckApprovalsInput): Promise<CheckApprovalsOutput>;
  checkGuardrails(input: CheckGuardrailsInput): Promise<GuardrailDecision[]>;
  /** Run a consolidate tool's aggregate function on its children's answers (`consolidateTool`'s `aggregate: { fn }`). */
  aggregateResults(input: AggregateResultsInput): Promise<AggregateResultsOutput>;
  /** Deliver one approval notification to the worker's webhook `target` (signed; its URL and secret stay in the worker). */
  notify(input: NotifyInput): Promise<void>;
}

/** A run's state as the `snapshot` query reports it. */
export interface RunSnapshot {
  agent: string;
  status: 'starting' | 'running' | 'awaiting_approval' | 'awaiting_message' | RunStatus;
  /** User turns so far. */
  turn: number;
  /** Messages waiting in the inbox for the model's next call. */
  queuedMessages: number;
  step: number;
  maxSteps: number;
  usage: Usage;
  /** Tool calls being executed right now. */
  runningTools: Array<{ callId: string; tool: string }>;
  /** Tool calls waiting for a person. */
  pendingApprovals: PendingApproval[];
  events: number;
}
