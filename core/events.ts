import type { ApprovalTimeoutOutcome, Decision } from './approvals';
import type { JsonValue } from './json';
import type { StopReason } from './model';
import type { RunError, RunStatus } from './result';
import type { Usage } from './usage';

/** The body of a run event, without its sequence number and time. */
export type AgentEventBody =
  | { type: 'run_started'; agent: string; model: string; maxSteps: number }
  | { type: 'step_started'; step: number; provider: string; model: string; attempt: number }
  | { type: 'text'; step: number; text: string }
  | { type: 'tool_call'; step: number; callId: string; name: string; args: JsonValue }
  | {
      type: 'tool_result';
      step: number;
      callId: string;
      name: string;
      isError: boolean;
      /** Start of the result text. */
      preview: string;
      bytes: number;
      stored: boolean;
      latencyMs: number;
      attempts: number;
    }
  | {
      type: 'retrying';
      step: number;
      /** The attempt that failed. */
      attempt: number;
      error: string;
      errorType?: string;
      /** Wait before the next attempt. */
      delayMs: number;
      /** The model the next attempt will use. */
      nextModel: string;
    }
  | { type: 'step_finished'; step: number; stopReason: StopReason; usage: Usage; latencyMs: number; costUsd?: number }
  | {
      type: 'approval_requested';
      step: number;
      callId: string;
      name: string;
      args: JsonValue;
      /** ISO time the request expires, if it does. */
      expiresAt?: string;
      approvers?: string[];
    }
  | {
      type: 'approval_decided';
      step: number;
      callId: string;
      name: string;
      decision: Decision;
      by: string;
      reason?: string;
      /** `signal` or `update`. */
      via: 'signal' | 'update';
      /** True when the decision came from an earlier "approve all calls of this tool". */
      sticky: boolean;
    }
  | { type: 'approval_expired'; step: number; callId: string; name: string; outcome: ApprovalTimeoutOutcome }
  /** A decision signal that could not be applied (malformed, unknown call, already decided, not allowed). */
  | { type: 'approval_refused'; callId?: string; by?: string; reason: string }
  | { type: 'done'; status: RunStatus; steps: number; usage: Usage; costUsd: number; finalText: string; error?: RunError };

/** Every kind of run event. */
export type AgentEventType = AgentEventBody['type'];

/** A run event as stored in workflow state: numbered from 0 and stamped with workflow time. */
export type AgentEvent = AgentEventBody & {
  seq: number;
  /** Workflow time, ISO 8601. */
  at: string;
};

/** A page of events read by cursor. */
export interface EventPage {
  events: AgentEvent[];
  /** Cursor to pass next time. */
  next: number;
  /** True once the run has ended (the `done` event is in the log). */
  done: boolean;
}
