/**
 * What one tool call came to — ran, failed, denied, skipped, expired, not run — and the result text the
 * model reads for each. Every call of a step ends in exactly one outcome; the transcript gets one result
 * per call from them.
 */
import type { Decision, ToolCallApproval } from '../approvals/approval-requests';
import type { ToolResultEvent } from '../events/events';
import { preview, utf8Bytes } from '../messages/json';
import type { ToolOutput } from '../messages/messages';
import { outputText } from '../messages/messages';
import type { FailureStatus } from '../run/result';
import type { ChildRunSummary } from '../sub-agents/child-run';
import type { JsonObject } from '../messages/json';
import type { ToolHookNote } from './tool-hooks';
import type { ToolMetrics } from './metrics';
import type { ToolProgress } from './progress';
import type { LayerUpdate } from '../prompt/layers';

/** What one tool call produced. */
export interface ToolOutcome {
  callId: string;
  /** How its approval was settled, when a person, a rule or the run policy had a say (for the report). */
  approval?: ToolCallApproval;
  /** The tool's name, as the model called it. */
  tool: string;
  output: ToolOutput;
  isError: boolean;
  /** Failure message, for the report, when `isError`. */
  error?: string;
  latencyMs: number;
  attempts: number;
  /** Attempts lost with their worker (retried without counting in `attempts`); absent: none. */
  workerLosses?: number;
  /** An at-most-once call whose effect is unknown: it was not executed again. */
  outcomeUnknown?: true;
  /**
   * The run must end after this call, with this status: a tool whose error policy is `fail` failed
   * (`tool_error`), its approval expired with outcome `fail` (`approval_expired`), or the worker could
   * not store its output (`storage_error`).
   */
  endsRun?: FailureStatus;
  /** The call ran a sub-agent as a child workflow: how that run ended, and what it spent. */
  child?: ChildRunSummary;
  /** The call ran several child runs (a consolidate tool: its agents, then its summarising agent): how each ended, what each spent. */
  children?: ChildRunSummary[];
  /** The arguments the call ran with, when a `beforeToolCall` hook rewrote them. */
  ranArgs?: JsonObject;
  /** What the worker's tool hooks did to the call. */
  hooks?: ToolHookNote[];
  /** The metrics the tool set in the attempt that produced this outcome (the last: earlier attempts' are not kept). */
  metrics?: ToolMetrics;
  /** The last progress the tool reported in that attempt. */
  lastProgress?: ToolProgress;
  /** Prompt layers the tool set (`ctx.context.set`), in the order it set them. */
  context?: LayerUpdate[];
}

/** An error outcome with a message the model can read. */
export function errorOutcome(callId: string, tool: string, message: string, extra?: Partial<ToolOutcome>): ToolOutcome {
  return { callId, tool, output: { type: 'text', text: message }, isError: true, error: message, latencyMs: 0, attempts: 0, ...extra };
}

/** The result for a call to a tool the agent does not have. */
export function unknownToolOutcome(callId: string, tool: string, available: readonly string[]): ToolOutcome {
  const names = available.length ? `Available tools: ${available.join(', ')}.` : 'This agent has no tools.';
  return errorOutcome(callId, tool, `Unknown tool "${tool}". ${names}`);
}

/** The result for a complete call of a response cut off at the output token limit: never run. */
export function truncatedOutcome(callId: string, tool: string): ToolOutcome {
  return errorOutcome(callId, tool, 'Not executed: the response was cut off at the output token limit.');
}

/** The result for a call the run policy denies. */
export function policyDeniedOutcome(callId: string, tool: string): ToolOutcome {
  return errorOutcome(callId, tool, `Denied by the run's policy: "${tool}" may not be used in this run. The tool was not run.`);
}

/** The result the model sees for a call a person denied or skipped. */
export function decisionOutcome(
  callId: string,
  tool: string,
  d: { decision: Exclude<Decision, 'approve'>; by: string; reason?: string },
): ToolOutcome {
  const reason = d.reason?.trim();
  const why = reason ? `: ${reason}${/[.!?]$/.test(reason) ? '' : '.'}` : '.';
  if (d.decision === 'skip') {
    const text = `Skipped by ${d.by}${why} The tool was not run.`;
    return { callId, tool, output: { type: 'text', text }, isError: false, latencyMs: 0, attempts: 0 };
  }
  return errorOutcome(callId, tool, `Denied by ${d.by}${why} The tool was not run.`);
}

/** The result for a call whose approval expired: denied, or (outcome `fail`) the end of the run. */
export function expiredOutcome(callId: string, tool: string, endsRun = false): ToolOutcome {
  return errorOutcome(callId, tool, 'Denied: nobody decided on this call before its approval expired. The tool was not run.', {
    ...(endsRun ? { endsRun: 'approval_expired' as const } : {}),
  });
}

/** The result for a call not run because an earlier call of the step ends the run. */
export function notExecutedOutcome(callId: string, tool: string, cause: ToolOutcome): ToolOutcome {
  return errorOutcome(callId, tool, `Not executed: the run ended after the call to "${cause.tool}" failed.`);
}

/** The result for a call still waiting for a person when the run ended. */
export function withdrawnOutcome(callId: string, tool: string): ToolOutcome {
  return errorOutcome(callId, tool, 'Not executed: the run ended first.');
}

/** Size in UTF-8 bytes of a tool output (stored outputs: their full size). */
export function outputBytes(output: ToolOutput): number {
  return output.type === 'stored' ? output.bytes : utf8Bytes(output.text);
}

/** The `tool_result` event of an outcome; the workflow emits it as soon as the call completes. */
export function toolResultEvent(step: number, o: ToolOutcome): ToolResultEvent {
  return {
    type: 'tool_result',
    step,
    callId: o.callId,
    tool: o.tool,
    isError: o.isError,
    preview: preview(outputText(o.output)),
    bytes: outputBytes(o.output),
    stored: o.output.type === 'stored',
    latencyMs: o.latencyMs,
    attempts: o.attempts,
    ...(o.metrics ? { metrics: o.metrics } : {}),
    ...(o.lastProgress ? { lastProgress: o.lastProgress } : {}),
  };
}
