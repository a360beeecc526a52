import type { Message } from './messages';
import type { StopReason } from './model';
import type { Usage } from './usage';
import type { JsonValue } from './json';

/** How a run ended. */
export type RunStatus =
  /** The model answered without asking for more tools. */
  | 'success'
  /** The step cap was reached. */
  | 'max_steps'
  /** A model call failed and could not be retried (or retries ran out). */
  | 'provider_error'
  /** A tool whose error policy is `fail` failed. */
  | 'tool_error'
  /** The workflow was cancelled. */
  | 'cancelled'
  /** The model's response was cut off at its output token limit. */
  | 'max_tokens'
  /** Nobody decided on a tool call before its approval expired, and the tool says that fails the run. */
  | 'approval_expired';

/** One model call in the run report. */
export interface StepReport {
  step: number;
  provider: string;
  model: string;
  latencyMs: number;
  stopReason: StopReason;
  usage: Usage;
  /** Attempts it took, 1 when the first succeeded. */
  attempts: number;
  /** Cost in USD (failed attempts are not billed by the providers and not counted); absent when the model has no price. */
  costUsd?: number;
}

/** One tool call in the run report. */
export interface ToolCallReport {
  step: number;
  callId: string;
  name: string;
  args: JsonValue;
  /** Time the tool's last attempt took, as measured by the worker (0 when it never ran). */
  latencyMs: number;
  /** Size of the result in UTF-8 bytes. */
  resultBytes: number;
  /** True when the result was stored in the blob store rather than inlined in history. */
  stored: boolean;
  isError: boolean;
  error?: string;
  attempts: number;
}

/** What happened during a run, for people and dashboards. */
export interface RunReport {
  agent: string;
  workflowId: string;
  runId: string;
  startedAt: string;
  endedAt: string;
  steps: StepReport[];
  toolCalls: ToolCallReport[];
  usage: Usage;
  /** Sum of the priced steps' costs in USD. */
  costUsd: number;
  /** Steps whose model the worker's price table did not know (not in `costUsd`). */
  unpricedSteps: number;
}

/** A failure that ended a run. */
export interface RunError {
  message: string;
  /** Error class, e.g. the provider's error type or `ToolError`. */
  type?: string;
}

/** The typed result of an agent workflow. */
export interface AgentRunResult {
  status: RunStatus;
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
  /** Cost in USD of the priced steps (see `report.unpricedSteps`). */
  costUsd: number;
  error?: RunError;
  report: RunReport;
  /** Head of the complete content-addressed transcript in the blob store. */
  transcriptHead: string | null;
}
