/**
 * How a run ends: the typed result of the agent workflow, discriminated by `status`, and its run report.
 * Every ending is a result, failures included; the type parameter carries the agent's tool names and
 * argument types (see `ToolCallsOf` in the agent definitions).
 */
import type { LayerReport } from '../prompt/layers';
import type { ToolCallApproval } from '../approvals/approval-requests';
import type { JsonValue } from '../messages/json';
import type { Message } from '../messages/messages';
import type { StopReason } from '../output/native-output';
import type { Usage } from '../budget/usage';
import type { AnyToolCall, ToolCallShape } from '../tool-calls/tool-call';
import type { ToolMetrics } from '../tool-calls/metrics';
import type { ToolProgress } from '../tool-calls/progress';

export type { AnyToolCall, ToolCallShape } from '../tool-calls/tool-call';

/** Statuses of runs that ended as asked: the model answered. */
export type SuccessStatus = 'success';
/**
 * Statuses of runs stopped by a limit: the step cap, the model's output limit, a token, cost or turn
 * budget (`budget_exceeded`), or the run's wall-clock budget (`timeout`).
 */
export type LimitStatus = 'max_steps' | 'max_tokens' | 'budget_exceeded' | 'timeout';
/** Statuses of runs that failed. */
export type FailureStatus =
  /** A model call failed and could not be retried (or retries ran out). */
  | 'provider_error'
  /** A tool whose error policy is `fail` failed. */
  | 'tool_error'
  /** Nobody decided on a tool call before its approval expired, and the tool says that fails the run. */
  | 'approval_expired'
  /** The worker could not read or write the run's content in its blob store (e.g. a worker with another store). */
  | 'storage_error'
  /** The run's input was malformed, or names an agent the worker does not have. */
  | 'invalid_input'
  /** An activity failed in a way the loop does not classify (a bug or an outage); the message says which. */
  | 'internal_error'
  /** A guardrail with tripwire failed: `finalText` is its reason. */
  | 'guardrail'
  /** The final answer did not match the agent's output schema, after the model was asked to fix it as often as allowed. */
  | 'output_invalid';

/** How a run ended. */
export type RunStatus = SuccessStatus | LimitStatus | 'cancelled' | FailureStatus;

/** Every run status, in a stable order (for validation and display). */
export const RUN_STATUSES: readonly RunStatus[] = [
  'success',
  'max_steps',
  'max_tokens',
  'budget_exceeded',
  'timeout',
  'cancelled',
  'provider_error',
  'tool_error',
  'approval_expired',
  'storage_error',
  'invalid_input',
  'internal_error',
  'guardrail',
  'output_invalid',
];

/** What a finished child run was, on its parent's tool call (report entry, outcome, event). */
export interface ChildRunSummary {
  workflowId: string;
  agent: string;
  status: RunStatus;
  /** The child's usage (its own children's included). */
  usage: Usage;
  /** The child's cost in USD (its own children's included); null when none of it had a price (unknown, not $0). */
  costUsd: number | null;
}

/** One model call in the run report. */
export interface StepReport {
  step: number;
  /** The user turn the step answered (1 for the first prompt; sessions have more). */
  turn: number;
  provider: string;
  model: string;
  latencyMs: number;
  stopReason: StopReason;
  usage: Usage;
  /** Attempts it took, 1 when the first succeeded. */
  attempts: number;
  /** Attempts lost with their worker (a worker killed mid-call), retried without counting in `attempts`. */
  workerLosses?: number;
  /** Cost in USD (failed attempts are not billed by the providers and not counted); absent when the model has no price. */
  costUsd?: number;
}

/** One tool call in the run report. */
export type ToolCallReport<C extends ToolCallShape = AnyToolCall> = C & {
  step: number;
  callId: string;
  /** How the call's approval was settled (who, how, which rule), when a person, a rule or the run policy had a say. */
  approval?: ToolCallApproval;
  /** Time the tool's last attempt took, as measured by the worker (0 when it never ran). */
  latencyMs: number;
  /** Size of the result in UTF-8 bytes. */
  resultBytes: number;
  /** True when the result was stored in the blob store rather than inlined in history. */
  stored: boolean;
  isError: boolean;
  error?: string;
  attempts: number;
  /** Attempts lost with their worker, retried without counting in `attempts`. */
  workerLosses?: number;
  /** An at-most-once call whose effect is unknown (an attempt was interrupted): not executed again. */
  outcomeUnknown?: true;
  /** The call ran a sub-agent as a child workflow: its run, status, usage and cost (in the run's totals too). */
  child?: ChildRunSummary;
  /** The call ran several child runs (a consolidate tool's agents, then its summariser): each run (in the run's totals too). */
  children?: ChildRunSummary[];
  /** The arguments the model asked for, when a `beforeToolCall` hook rewrote them (`args` is what ran). */
  requestedArgs?: JsonValue;
  /** The metrics the tool set (`ctx.metrics.set`) in its last attempt: the last attempt wins. */
  metrics?: ToolMetrics;
  /** The last progress the tool reported (`ctx.progress`) in its last attempt. */
  lastProgress?: ToolProgress;
};

/** What happened during a run, for people and dashboards. */
export interface RunReport<C extends ToolCallShape = AnyToolCall> {
  agent: string;
  workflowId: string;
  runId: string;
  startedAt: string;
  endedAt: string;
  /** The most recent steps (all of them unless the run was long: see `stepsOmitted`). */
  steps: StepReport[];
  /** Earlier steps left out of `steps` to keep the result small (usage and cost still count them). */
  stepsOmitted: number;
  /** The most recent tool calls (see `toolCallsOmitted`). */
  toolCalls: Array<ToolCallReport<C>>;
  /** Earlier tool calls left out of `toolCalls` to keep the result small. */
  toolCallsOmitted: number;
  /** Tokens of every model call, compaction summaries included. */
  usage: Usage;
  /**
   * Sum of the priced steps' costs in USD (and of the summaries compaction wrote, and of sub-agents); `null`
   * when the run made model calls and none had a price in the worker's price table: unknown, not $0.
   */
  costUsd: number | null;
  /** Steps whose model the worker's price table did not know (not in `costUsd`). */
  unpricedSteps: number;
  /** Times the model's context was compacted (absent: never). */
  compactions?: number;
  /** The system prompt's layers set when the run ended: who set each, when, its size and hash (never its text). Absent: none. */
  layers?: LayerReport[];
}

/** A failure or limit that ended a run. */
export interface RunError {
  message: string;
  /** Error class, e.g. the provider's error type, `ToolError`, `StorageError`, `UnknownAgent`. */
  type?: string;
}

/** What every result has, whatever the status. */
export interface RunResultBase<C extends ToolCallShape = AnyToolCall> {
  /** Text of the last assistant message. */
  finalText: string;
  /**
   * The conversation, or its most recent part when the whole would be too large for a workflow result
   * (see `messagesOmitted`); the full transcript is always in the blob store under `transcriptHead`.
   */
  messages: Message[];
  /** Messages left out of `messages` from the start of the conversation (0 when it is complete). */
  messagesOmitted: number;
  /** Number of model calls made. */
  steps: number;
  usage: Usage;
  /**
   * Cost in USD of the priced steps (see `report.unpricedSteps`); `null` when the run made model calls and
   * none had a price (unknown, not $0), as `report.costUsd`.
   */
  costUsd: number | null;
  report: RunReport<C>;
  /** Head of the complete content-addressed transcript in the blob store (null when nothing was stored). */
  transcriptHead: string | null;
}

/**
 * What a successful run's `output` is when its agent's output type is not known statically: the validated
 * JSON of an agent with an `output` schema, absent for an agent without one.
 */
export type UnknownOutput = JsonValue | undefined;

/**
 * The model answered without asking for more tools; for an agent with an `output` schema, `output` is its
 * final answer, validated against that schema (typed `O` from it). For an agent without one, `output` is
 * absent (`O` is then `JsonValue | undefined`).
 */
export interface SuccessResult<C extends ToolCallShape = AnyToolCall, O = UnknownOutput> extends RunResultBase<C> {
  status: SuccessStatus;
  error?: undefined;
  output: O;
}

/** A limit stopped the run: the step cap, or the model's output token limit. */
export interface LimitResult<C extends ToolCallShape = AnyToolCall> extends RunResultBase<C> {
  status: LimitStatus;
  error: RunError;
  /** Only a successful run has an output. */
  output?: undefined;
}

/** The run was cancelled; the transcript holds what completed, every open call closed with a result. */
export interface CancelledResult<C extends ToolCallShape = AnyToolCall> extends RunResultBase<C> {
  status: 'cancelled';
  error: RunError;
  /** Only a successful run has an output. */
  output?: undefined;
}

/** The run failed; `error` says why and `status` what kind of failure it was. */
export interface FailedResult<C extends ToolCallShape = AnyToolCall> extends RunResultBase<C> {
  status: FailureStatus;
  error: RunError;
  /** Only a successful run has an output. */
  output?: undefined;
}

/**
 * The typed result of an agent run: every ending, failures included, discriminated by `status`. `O` is
 * the type of a successful run's `output` (from the agent's output schema); other endings have none.
 */
export type AgentRunResult<C extends ToolCallShape = AnyToolCall, O = UnknownOutput> =
  SuccessResult<C, O> | LimitResult<C> | CancelledResult<C> | FailedResult<C>;
