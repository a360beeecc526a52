/** How a tool is declared (types only): its config, context and retry options. */
import type { Duration } from '@temporalio/common';
import type { z } from 'zod';
import type { ApprovalTimeoutOutcome } from '../core/approvals/approvals';
import type { ToolErrorPolicy } from '../core/run/spec';

/** A tool's escalation of waiting approval requests (see {@link ToolConfig.escalate}). */
export interface ToolEscalation {
  /** How long a request waits before it escalates, e.g. `'2h'`. */
  after: Duration;
  /** Identities who may decide it from then on, beside its approvers, e.g. `['ops:leads']`. */
  to: readonly string[];
}
import type { ToolProgress } from '../core/tool-calls/progress';

/** Retry options of a tool or model call, in the shape of Temporal's RetryPolicy. */
export interface RetryOptions {
  /** Attempts in all, the first included (1 = no retry). */
  maximumAttempts?: number;
  initialInterval?: Duration;
  backoffCoefficient?: number;
  maximumInterval?: Duration;
}

/** What a tool's `execute` gets besides its arguments. */
export interface ToolContext {
  /** Aborted when the run is cancelled or the attempt times out. */
  signal: AbortSignal;
  /** Report liveness (the runtime also heartbeats on its own while the tool runs). */
  heartbeat(details?: unknown): void;
  /**
   * Report progress while the tool runs (`{ message: 'scanning', fraction: 0.4, data: { files: 120 } }`):
   * live only, never a history event. Bounded (message 500 characters, fraction clamped to 0…1, data up
   * to 4 KiB of JSON, else left out) and redacted like outputs; at most a few updates per second per call
   * reach clients (`run.stream()` `tool_progress` items, SSE, the CLI and console), the newest always. The
   * last one is kept in the call's report entry and `tool_result`. Partial output goes in `data`.
   */
  progress(p: ToolProgress): void;
  /** Stable across retries and worker restarts of this call: pass it to the systems you change. */
  idempotencyKey: string;
  callId: string;
  /** 1-based attempt number of this call (attempts lost with a worker do not count). */
  attempt: number;
  agent: string;
  workflowId: string;
  runId: string;
  step: number;
  /**
   * Numbers, strings or booleans about this call (rows read, bytes fetched, cache hit), recorded with its
   * result: in the call's `tool_result` event, its entry in the run report and as
   * `durable_agent.tool.metric.<name>` attributes of its `execute_tool` span. See {@link ToolMetricsRecorder}.
   */
  metrics: ToolMetricsRecorder;
  /**
   * The agent's prompt layers (`defineAgent({ layers })`): `set(name, text)` changes a layer from the next
   * model call on (`undefined` clears it). Applied when the step's results are, in the order the model made
   * the calls (the last set wins), and only if this attempt returns. An undeclared name or a text over
   * 16 KiB throws a non-retryable `ToolError`.
   */
  context: ToolLayers;
}

/**
 * Sets a tool call's metrics (`ctx.metrics`). Metrics are per attempt, and the LAST ATTEMPT WINS: the
 * call's outcome (its `tool_result` event and report entry) carries the metrics of the attempt that
 * produced it; an earlier, failed attempt's values appear only on that attempt's own `execute_tool`
 * span. An attempt lost with its worker or timed out records none. An at-most-once call answered from
 * its claim (a retry after the result was recorded) returns the original attempt's metrics.
 */
export interface ToolMetricsRecorder {
  /**
   * Set metric `name` to `value` (setting a name again replaces its value). At most 32 names per attempt;
   * a name is 1–64 letters, digits, `_`, `.` or `-`; a number must be finite; a string longer than 256
   * characters is cut and ends with `…`.
   *
   * @throws TypeError for a bad name, a value that is not a finite number, a string or a boolean, or a
   * 33rd name: the mistake fails the attempt with a clear message, like any error the tool throws.
   */
  set(name: string, value: number | string | boolean): void;
}

/** Setting the agent's prompt layers from a tool (`ctx.context`). */
export interface ToolLayers {
  /** Set layer `name` to `text` (`undefined` or `''` clears it); throws a non-retryable `ToolError` for an undeclared name or a text over 16 KiB. */
  set(name: string, text: string | undefined): void;
}

/** Input schemas of tools: zod objects. */
export type ToolInputSchema = z.ZodObject;

/** How a tool is declared. `N` is its name, `I` its zod input schema, `O` what `execute` returns. */
export interface ToolConfig<N extends string, I extends ToolInputSchema, O> {
  /** 1–64 characters of letters, digits, `_` and `-`. */
  name: N;
  description: string;
  input: I;
  /** Read-only calls may run in parallel with other read-only calls. Default false. */
  readOnly?: boolean;
  /**
   * With `readOnly`: a call may start while the model still streams the rest of its answer (streaming
   * tool execution), as soon as its arguments are complete, when it needs no approval and every earlier
   * call of the answer starts early too. A call of a model attempt that then fails is cancelled and its
   * result discarded (the retry starts it again if it makes it again): the tool may run more than once per
   * call, so only read-only tools may. Default: the agent's `earlyToolStarts`; `false` opts out.
   */
  earlyStart?: boolean;
  /**
   * Never execute a call twice, for calls that must not repeat (payments, emails, deployments). Tools run
   * at least once by default: a worker lost after the tool's effect but before its result was recorded
   * runs the call again (`ctx.idempotencyKey` lets the systems you call drop the repeat). With
   * `atMostOnce`, a claim keyed by the idempotency key is written to the worker's store before `execute`;
   * an attempt that finds a claim without a result does not execute: the model reads "outcome unknown",
   * or, if the tool names `approvers`, one of them decides whether to run it again. A throwing `execute`
   * must mean "no effect" (its claim is dropped and the retry policy applies). Needs a store every worker
   * shares (PostgreSQL, S3) when workers run on several machines. Not with `readOnly`.
   */
  atMostOnce?: boolean;
  /** Timeout of one attempt. Default 5 minutes. */
  timeout?: Duration;
  /**
   * Heartbeat timeout: how soon a lost worker is noticed and the call runs elsewhere (the runtime
   * heartbeats every second for the tool). Default 3 s (or the timeout, if shorter).
   */
  heartbeatTimeout?: Duration;
  /** Retries of a throwing tool. Default 3 attempts. */
  retry?: RetryOptions;
  /** `report` (default): errors become results the model sees. `fail`: the run ends `tool_error`. */
  onError?: ToolErrorPolicy;
  /**
   * Ask a person before each call: `true` always, or a predicate of the validated arguments (e.g.
   * `({ amount }) => amount > 100`). The predicate runs in the worker and its answer is recorded in
   * history. Default: ask only if `approvers` are named. `false` with approval settings is an error.
   */
  needsApproval?: boolean | ((args: z.output<I>) => boolean | Promise<boolean>);
  /**
   * Identities allowed to decide on calls of this tool (e.g. `ops:alice`); anyone when absent. Naming
   * them means calls need their approval (every call, unless `needsApproval` is a predicate), and a run
   * policy of `allow` does not waive it.
   */
  approvers?: readonly string[];
  /** How long an approval waits (durable timer); forever when absent. Needs `needsApproval` or `approvers`. */
  approvalTimeout?: Duration;
  /** When the approval expires: `deny` the call (default; the model is told) or `fail` the run. */
  onApprovalTimeout?: ApprovalTimeoutOutcome;
  /**
   * Escalate a request nobody decided in time: after `after` (durable timer), the identities `to` may decide
   * it too (event `approval_escalated`; the console marks it); the approval timeout still gives the final action.
   * Needs `needsApproval` or `approvers`.
   */
  escalate?: ToolEscalation;
  /**
   * The output comes from an untrusted source (web pages, emails, other people's files): the model is shown
   * it fenced between tags it cannot close, with a note to treat it as data, never as instructions.
   * Default false.
   */
  untrusted?: boolean;
  /** Runs in the worker. Return a string or any JSON-serialisable value. */
  execute(args: z.output<I>, ctx: ToolContext): O | Promise<O>;
}
