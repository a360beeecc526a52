/**
 * The typed events of a run, read by cursor through the `events` query. Every variant is exported by
 * name (`<What>Event`), and `AgentEvent` is their union discriminated by `type`. The type parameter
 * carries the agent's tool names and argument types into the events that name a tool.
 */
import type { ApprovalTimeoutOutcome, AuditPath, Decision, RuleRef } from '../approvals/approval-requests';
import type { StopReason } from '../output/native-output';
import type { RunError, RunStatus } from '../run/result';
import type { AnyToolCall, BudgetRequest, ToolCallShape } from '../tool-calls/tool-call';
import type { JsonObject, JsonValue } from '../messages/json';
import type { Usage } from '../budget/usage';
import type { ToolMetrics } from '../tool-calls/metrics';
import type { ToolProgress } from '../tool-calls/progress';

/** The run started: the agent, its first model and its step cap. */
export interface RunStartedEvent {
  type: 'run_started';
  agent: string;
  /** `provider/model` of the first attempt. */
  model: string;
  maxSteps: number;
}

/** A model call attempt started. */
export interface StepStartedEvent {
  type: 'step_started';
  step: number;
  provider: string;
  model: string;
  attempt: number;
}

/** Text the model wrote in a step. */
export interface TextEvent {
  type: 'text';
  step: number;
  text: string;
}

/** The model asked for a tool call. `args` is what it sent (possibly not a valid object: see `inputError`). */
export type ToolCallEvent<C extends ToolCallShape = AnyToolCall> = C & {
  type: 'tool_call';
  step: number;
  callId: string;
  /** Set when the model's arguments were not valid JSON; `args` is then its raw text. The call does not run. */
  inputError?: string;
};

/** A tool call starts running (after its approval, if it needed one): its result follows as `tool_result`. */
export interface ToolStartedEvent {
  type: 'tool_started';
  step: number;
  callId: string;
  tool: string;
  /**
   * The call started while the model was still streaming its answer (streaming tool execution), from
   * model attempt `attempt`: it comes before the answer's `tool_call` event, and an attempt that fails
   * discards it (`early_tool_discarded`).
   */
  early?: true;
  /** With `early`: the model attempt whose answer holds the call. */
  attempt?: number;
}

/**
 * Calls started early (`tool_started` with `early`) whose results will never reach the model: their model
 * attempt failed, or the run ended or changed course before the tool step. They are cancelled; a
 * retried attempt that makes the same call starts it again.
 */
export interface EarlyToolDiscardedEvent {
  type: 'early_tool_discarded';
  step: number;
  attempt: number;
  callIds: string[];
}

/** A tool call has its result (ran, failed, denied, skipped, or not run). */
export interface ToolResultEvent<C extends ToolCallShape = AnyToolCall> {
  type: 'tool_result';
  step: number;
  callId: string;
  tool: C['tool'];
  isError: boolean;
  /** Start of the result text. */
  preview: string;
  bytes: number;
  stored: boolean;
  latencyMs: number;
  attempts: number;
  /** The metrics the tool set (`ctx.metrics.set`) in the attempt that produced the result: the last attempt wins. */
  metrics?: ToolMetrics;
  /** The last progress the tool reported (`ctx.progress`) in that attempt. */
  lastProgress?: ToolProgress;
}

/** A model call attempt failed and will be tried again after `delayMs`. */
export interface RetryingEvent {
  type: 'retrying';
  step: number;
  /** The attempt that failed. */
  attempt: number;
  error: string;
  errorType?: string;
  /** Wait before the next attempt. */
  delayMs: number;
  /** The wait the provider asked for (Retry-After), when it was longer than the agent's maximum interval and `delayMs` is capped. */
  requestedDelayMs?: number;
  /** The model the next attempt will use. */
  nextModel: string;
}

/** A model call completed. */
export interface StepFinishedEvent {
  type: 'step_finished';
  step: number;
  stopReason: StopReason;
  usage: Usage;
  latencyMs: number;
  costUsd?: number;
}

/** A tool call waits for a person. */
export type ApprovalRequestedEvent<C extends ToolCallShape = AnyToolCall> = C & {
  type: 'approval_requested';
  step: number;
  callId: string;
  /** ISO time the request expires, if it does. */
  expiresAt?: string;
  approvers?: string[];
  /** Why a person is asked, when it is not an ordinary approval (see `PendingApproval.question`). */
  question?: string;
  /** The standing rule (or run policy entry) that asked, when one did. */
  rule?: RuleRef;
  /** The version of the standing rule set the call was gated under (absent: none read, version 0). */
  rulesVersion?: number;
};

/** A person decided on a call (or an earlier "approve all calls of this tool" did). */
export interface ApprovalDecidedEvent<C extends ToolCallShape = AnyToolCall> {
  type: 'approval_decided';
  step: number;
  callId: string;
  tool: C['tool'];
  decision: Decision;
  by: string;
  reason?: string;
  /** `signal` or `update`. */
  via: 'signal' | 'update';
  /** True when the decision came from an earlier "approve all calls of this tool". */
  sticky: boolean;
  /** How the decision was sent (`rule` when a rule made while the call waited decided it). */
  path?: AuditPath;
  /** The rule that decided (a run-scope decision, a standing rule), when one did. */
  rule?: RuleRef;
  /** The id of the update that carried the decision, when one did. */
  updateId?: string;
}

/** A call was allowed or denied with nobody asked, by the run policy or a rule (named). */
export interface ApprovalAutoEvent<C extends ToolCallShape = AnyToolCall> {
  type: 'approval_auto';
  step: number;
  callId: string;
  tool: C['tool'];
  decision: 'allow' | 'deny';
  /** `policy`: the run policy; `rule`: a rule (run scope, agent code, standing). */
  path: 'policy' | 'rule';
  /** The rule or policy entry (`policy:<tool>` for a plain run policy entry). */
  rule?: RuleRef;
  /** Who made the rule, when known. */
  by?: string;
  /** The version of the standing rule set the call was gated under (absent: none read, version 0). */
  rulesVersion?: number;
}

/** A waiting request was taken back with no decision (the run ended or was cancelled while it waited). */
export interface ApprovalWithdrawnEvent<C extends ToolCallShape = AnyToolCall> {
  type: 'approval_withdrawn';
  step: number;
  callId: string;
  tool: C['tool'];
  reason: string;
}

/** The run forwarded a decision (or defer / delegation) on a sub-agent's call to that sub-agent. */
export interface ApprovalForwardedEvent {
  type: 'approval_forwarded';
  /** The call id as the parent lists it (qualified with the child). */
  callId: string;
  /** The sub-agent's run. */
  workflowId: string;
  kind: 'decision' | 'defer' | 'delegate';
  decision?: Decision;
  by: string;
  path?: AuditPath;
}

/** A person deferred a waiting request until a time: it leaves the inbox until then (it stays pending; its expiry still runs). */
export interface ApprovalDeferredEvent<C extends ToolCallShape = AnyToolCall> {
  type: 'approval_deferred';
  step: number;
  callId: string;
  tool: C['tool'];
  /** ISO time it returns. */
  until: string;
  by: string;
  reason?: string;
  path?: AuditPath;
}

/** A deferred request came back to the inbox (its time came, or the defer was cancelled). */
export interface ApprovalReturnedEvent<C extends ToolCallShape = AnyToolCall> {
  type: 'approval_returned';
  step: number;
  callId: string;
  tool: C['tool'];
}

/** A request waited past its escalation time: `to` may decide it too. */
export interface ApprovalEscalatedEvent<C extends ToolCallShape = AnyToolCall> {
  type: 'approval_escalated';
  step: number;
  callId: string;
  tool: C['tool'];
  to: string[];
}

/** A request was delegated: `to` may decide it (beside its approvers). */
export interface ApprovalDelegatedEvent<C extends ToolCallShape = AnyToolCall> {
  type: 'approval_delegated';
  step: number;
  callId: string;
  tool: C['tool'];
  to: string;
  by: string;
  reason?: string;
  path?: AuditPath;
}

/** A notification (webhook) about an approval could not be delivered after its retries; nothing else changes. */
export interface NotificationFailedEvent {
  type: 'notification_failed';
  /** The notification's kind, e.g. `approval.requested`. */
  kind: string;
  callId?: string;
  /** The target's name (never its URL). */
  target: string;
  error: string;
}

/** Nobody decided before the approval expired. */
export interface ApprovalExpiredEvent<C extends ToolCallShape = AnyToolCall> {
  type: 'approval_expired';
  step: number;
  callId: string;
  tool: C['tool'];
  outcome: ApprovalTimeoutOutcome;
}

/**
 * A decision signal arrived for a call the run has not reached yet (e.g. sent while the worker that
 * showed the call was replaced): it is kept and applied when that call asks for approval.
 */
export interface ApprovalQueuedEvent {
  type: 'approval_queued';
  callId: string;
  by: string;
  decision: Decision;
}

/** A decision signal that could not be applied (malformed, unknown call, already decided, not allowed). */
export interface ApprovalRefusedEvent {
  type: 'approval_refused';
  callId?: string;
  by?: string;
  reason: string;
}

/** A person's message reached the run (the first prompt is not one): it goes to the model at its next call. */
export interface UserMessageEvent {
  type: 'user_message';
  /** The user turn it belongs to. */
  turn: number;
  text: string;
  by?: string;
  /** The id its sender gave it (`UserMessageInput.id`), when it gave one. */
  id?: string;
  /** How it arrived: the `message` signal (send-or-start uses it too) or the `send` update. */
  via: 'signal' | 'update';
}

/** A message signal that could not be taken (malformed, inbox full, the run is ending). */
export interface MessageRefusedEvent {
  type: 'message_refused';
  by?: string;
  reason: string;
}

/** A session answered and waits, without a worker, for the next message (or `end`, or its idle timeout). */
export interface AwaitingMessageEvent {
  type: 'awaiting_message';
  /** The turn just answered (0 before the first message). */
  turn: number;
  /** ISO time the session ends if nobody writes, when it has an idle timeout. */
  idleUntil?: string;
}

/** The run continued as a new execution (a long history): nothing changes for clients; events go on. */
export interface ContinuedEvent {
  type: 'continued_as_new';
  /** Executions so far, this one included (1 is the first). */
  execution: number;
  step: number;
}

/**
 * The model's context was compacted before a call: the older messages are summarised and the model is
 * shown the summary and the recent messages (the transcript keeps everything).
 */
export interface CompactedEvent {
  type: 'compacted';
  /** The step whose model call follows. */
  step: number;
  /** `threshold`: the estimate passed the agent's share of the window; `overflow`: the provider said the prompt is too long. */
  reason: 'threshold' | 'overflow';
  /** Estimated tokens of what the model was shown before and after. */
  tokensBefore: number;
  tokensAfter: number;
  /** Messages newly summarised. */
  messagesSummarized: number;
  /** The model that wrote the summary (`provider/model`). */
  summaryModel: string;
}

/** A compaction could not be made (the summariser failed, or nothing could be summarised): the run goes on unchanged. */
export interface CompactionFailedEvent {
  type: 'compaction_failed';
  step: number;
  reason: 'threshold' | 'overflow';
  error: string;
}

/** A tool call started a sub-agent as a child workflow (its events: read the run `workflowId`). */
export interface SubAgentStartedEvent {
  type: 'sub_agent_started';
  step: number;
  callId: string;
  tool: string;
  agent: string;
  workflowId: string;
}

/** A sub-agent's child run ended (or could not run: `status` absent, `error` says why); its result follows as `tool_result`. */
export interface SubAgentFinishedEvent {
  type: 'sub_agent_finished';
  step: number;
  callId: string;
  tool: string;
  agent: string;
  workflowId: string;
  status?: RunStatus;
  usage?: Usage;
  costUsd?: number;
  error?: string;
}

/**
 * A guardrail failed (passing ones are recorded only in history, as the `checkGuardrails` result).
 * `action`: the failure `ended` the run (tripwire, or feedback with no step left), was sent back to the
 * model as `feedback`, or was only `logged`.
 */
export interface GuardrailEvent {
  type: 'guardrail';
  kind: 'input' | 'output';
  /** The step whose call follows (input) or that answered (output). */
  step: number;
  name: string;
  pass: boolean;
  reason: string;
  tripwire: boolean;
  action: 'ended' | 'feedback' | 'logged';
}

/**
 * A tool hook acted on a call: `beforeToolCall` blocked it or rewrote its arguments (`args`: what ran),
 * `afterToolCall` transformed its output, or a hook threw (the model read an error result).
 */
export interface ToolHookEvent {
  type: 'tool_hook';
  step: number;
  callId: string;
  tool: string;
  hook: 'beforeToolCall' | 'afterToolCall';
  action: 'blocked' | 'rewritten' | 'transformed' | 'failed';
  reason?: string;
  /** The arguments the call ran with (`rewritten`). */
  args?: JsonObject;
}

/**
 * A final answer did not match the agent's output schema: `retrying` when the errors were fed back to the
 * model, else the run ends `output_invalid`.
 */
export interface OutputRejectedEvent {
  type: 'output_rejected';
  step: number;
  /** What is wrong with the answer, one issue a line. */
  errors: string;
  retrying: boolean;
}

/** The run ended; the same status, final text, structured output and error as its result. */
export interface DoneEvent {
  type: 'done';
  status: RunStatus;
  steps: number;
  usage: Usage;
  /** As the result's `costUsd`: null when no model call had a price (unknown, not $0). */
  costUsd: number | null;
  finalText: string;
  /** A successful run's structured output (`result.output`, for an agent with an `output` schema); absent otherwise. */
  output?: JsonValue;
  error?: RunError;
}

/** The body of a run event, without its sequence number and time. */
export type AgentEventBody<C extends ToolCallShape = AnyToolCall> =
  | RunStartedEvent
  | StepStartedEvent
  | TextEvent
  | ToolCallEvent<C>
  | ToolStartedEvent
  | EarlyToolDiscardedEvent
  | ToolResultEvent<C>
  | RetryingEvent
  | StepFinishedEvent
  | ApprovalRequestedEvent<C | BudgetRequest>
  | ApprovalDecidedEvent<C | BudgetRequest>
  | ApprovalExpiredEvent<C | BudgetRequest>
  | ApprovalQueuedEvent
  | ApprovalRefusedEvent
  | ApprovalAutoEvent<C>
  | ApprovalWithdrawnEvent<C | BudgetRequest>
  | ApprovalForwardedEvent
  | ApprovalDeferredEvent<C | BudgetRequest>
  | ApprovalReturnedEvent<C | BudgetRequest>
  | ApprovalEscalatedEvent<C | BudgetRequest>
  | ApprovalDelegatedEvent<C | BudgetRequest>
  | NotificationFailedEvent
  | UserMessageEvent
  | MessageRefusedEvent
  | AwaitingMessageEvent
  | ContinuedEvent
  | CompactedEvent
  | CompactionFailedEvent
  | SubAgentStartedEvent
  | SubAgentFinishedEvent
  | GuardrailEvent
  | ToolHookEvent
  | OutputRejectedEvent
  | DoneEvent;

/** Every kind of run event. */
export type AgentEventType = AgentEventBody['type'];

/** What the log adds to every event: a sequence number from 0 and the workflow time. */
export interface EventStamp {
  seq: number;
  /** Workflow time, ISO 8601. */
  at: string;
}

/** A run event as stored in workflow state: numbered from 0 and stamped with workflow time. */
export type AgentEvent<C extends ToolCallShape = AnyToolCall> = AgentEventBody<C> & EventStamp;

/** A page of events read by cursor. */
export interface EventPage<C extends ToolCallShape = AnyToolCall> {
  events: Array<AgentEvent<C>>;
  /** Cursor to pass next time. */
  next: number;
  /** True once the run has ended (the `done` event is in the log). */
  done: boolean;
  /**
   * Set when `cursor` is before the first event this execution holds (the run continued as new): the
   * earlier events are in the execution `runId`, read there from the same cursor.
   */
  earlier?: { runId: string; before: number };
}
