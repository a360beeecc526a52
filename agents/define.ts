/**
 * Defining tools and agents. These objects live in the worker: tool code never enters the workflow,
 * which only receives the data form ({@link AgentSpec}) through the `describeAgent` activity.
 */
import type { Duration } from '@temporalio/common';
import { msToNumber } from '@temporalio/common';
import type { z } from 'zod';
import { DurableAgentError } from '../core/errors';
import type { JsonObject } from '../core/json';
import type { ApprovalTimeoutOutcome } from '../core/approvals';
import type { ModelRef, RetrySpec, ToolErrorPolicy } from '../core/spec';
import type { AnyToolCall, UnknownOutput } from '../core/result';
import type { BuiltinToolSpec } from '../core/wait';
import { DEFAULTS } from '../core/spec';
import { checkAgentConfig, checkToolConfig, inputSchemaOf } from './validate';
import { outputSchemaOf } from './output';
import type { BudgetOptions } from './budget-options';
import type { McpSource } from '../mcp/server';
import { checkAgentMcp } from '../mcp/server';
import type { GuardrailsOptions } from './guardrails';
import type { ToolHooks } from './hooks';

export type { BudgetOptions } from './budget-options';

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
  /** Stable across retries and worker restarts of this call: pass it to the systems you change. */
  idempotencyKey: string;
  callId: string;
  /** 1-based attempt number of this call (attempts lost with a worker do not count). */
  attempt: number;
  agent: string;
  workflowId: string;
  runId: string;
  step: number;
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
   * The output comes from an untrusted source (web pages, emails, other people's files): the model is shown
   * it fenced between tags it cannot close, with a note to treat it as data, never as instructions.
   * Default false.
   */
  untrusted?: boolean;
  /** Runs in the worker. Return a string or any JSON-serialisable value. */
  execute(args: z.output<I>, ctx: ToolContext): O | Promise<O>;
}

/** A defined tool. */
export interface Tool<N extends string = string, I extends ToolInputSchema = ToolInputSchema, O = unknown> extends ToolConfig<N, I, O> {
  readonly kind: 'tool';
  /** Set on built-in tools the workflow runs itself (see `waitTool`); never on tools you define. */
  readonly builtin?: BuiltinToolSpec;
  /** Set on agent tools (see `agentTool`): the agent each call runs as a child workflow. */
  readonly subAgent?: { readonly agent: string; readonly definition: Agent<string, readonly AnyTool[]> };
  /** JSON Schema of the input, from zod. */
  readonly inputSchema: JsonObject;
}

/**
 * Thrown by a tool to fail its call; `retryable: false` skips the remaining attempts.
 *
 * @example
 * ```ts
 * throw new ToolError(`unknown time zone "${tz}"`, { retryable: false });
 * ```
 */
export class ToolError extends DurableAgentError {
  /** Whether the call's remaining attempts may run (default true). */
  readonly retryable: boolean;
  constructor(message: string, options: { retryable?: boolean; cause?: unknown } = {}) {
    super('tool_error', message, options.cause !== undefined ? { cause: options.cause } : undefined);
    this.retryable = options.retryable ?? true;
  }
}

/**
 * Declare a tool. Its zod schema becomes the JSON Schema the model sees and validates every call.
 *
 * Approval: `needsApproval` (true or a predicate) asks a person before calls; naming `approvers` alone
 * means every call is approved by one of them, and no run policy can waive it.
 *
 * @throws {DefinitionError} for an invalid name, a missing description, an input that is not a
 * `z.object(...)`, a missing `execute`, a malformed option, or contradictory approval settings
 * (`needsApproval: false` with approvers or an approval timeout; a timeout with nothing to approve).
 */
export function defineTool<const N extends string, I extends ToolInputSchema, O>(config: ToolConfig<N, I, O>): Tool<N, I, O> {
  checkToolConfig(config);
  const inputSchema = inputSchemaOf(config.input, `tool "${config.name}"`);
  return Object.freeze({ ...config, kind: 'tool' as const, inputSchema });
}

/** A tool of any name, input and output. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tools of any input and output type
export type AnyTool = Tool<string, any, any>;

/** Output schemas of agents: zod objects (the answer is a JSON object). */
export type OutputSchema = z.ZodObject;

/**
 * How an agent is declared. `N` is its name, `T` its tools and `S` its output schema, so names, argument
 * types and the output type flow to runs.
 */
export interface AgentConfig<N extends string = string, T extends readonly AnyTool[] = readonly AnyTool[], S extends OutputSchema | undefined = OutputSchema | undefined> {
  /** Name clients start runs by. */
  name: N;
  /** The model to call. Credentials are configured on the worker's provider, never here. */
  model: ModelRef;
  /** Tried in turn after a retryable failure of the model before them. */
  fallbackModels?: ModelRef[];
  system?: string;
  tools?: T;
  /** Step cap (model calls). Default 25. */
  maxSteps?: number;
  /** Tool outputs over this many bytes are stored by reference. Default 16 KiB, at most {@link MAX_TOOL_RESULT_INLINE_BYTES} (256 KiB). */
  toolResultInlineBytes?: number;
  /** The result carries at most this many bytes of messages (most recent first). Default 256 KiB. */
  resultMessagesInlineBytes?: number;
  /**
   * When an answer is cut off at the output token limit, ask the model to continue (a "continue" turn) at
   * most this many times in the run instead of ending it `max_tokens`. A cut-off tool call is never run.
   * Default 0.
   */
  maxTokensRecoveries?: number;
  /**
   * With `maxTokensRecoveries`: once an answer has been cut off, later calls may write up to this many
   * output tokens (raised from each model's `maxTokens`), so the continuation has room to finish.
   * Default: not raised.
   */
  recoveryMaxTokens?: number;
  /**
   * A long run continues as a new execution (same workflow id; clients notice nothing) at the first step
   * boundary after its history reaches this many events, or when the server suggests it. Default 5,000;
   * at least 50.
   */
  continueAsNewAfterEvents?: number;
  /**
   * When a token, cost or turn budget is spent: `end` the run `budget_exceeded` (default), or `ask` — the
   * run pauses on an approval request (call id `budget_<step>_<n>`, tool `budget`, arguments naming the
   * budget, its limit and what was spent); approving extends it (by `extendBy`, or as much again), deny
   * or skip ends the run.
   */
  onBudgetExhausted?: 'end' | 'ask';
  /** Retries of a failed model call (the workflow owns them). Default 6 attempts, 1 s doubling to 60 s. */
  modelRetry?: RetryOptions;
  /** Timeout of one model call attempt. Default 10 minutes. */
  modelTimeout?: Duration;
  /** Heartbeat timeout of a model call. Default 60 s. */
  modelHeartbeatTimeout?: Duration;
  /**
   * What every run of this agent may spend at most: tokens, US dollars, wall-clock time, user turns. A run
   * may lower these limits (`start(agent, { budget })`), never raise them. A spent budget ends the run
   * `budget_exceeded` (the timeout: `timeout`) with its result. None by default.
   *
   * @example
   * ```ts
   * defineAgent({ name: 'researcher', model, budget: { maxTokens: 200_000, maxCostUsd: 1.5, timeout: '30m' } });
   * ```
   */
  budget?: BudgetOptions;
  /**
   * How the model's context is kept within its window. Before a call estimated (the provider's last
   * token count plus about 4 characters a token for newer messages) to pass `compactAt` of the window,
   * the older messages are summarised by a model (an activity) and the model is shown the summary and the
   * recent messages; a provider's "prompt is too long" compacts once and retries. Tool results older than
   * `keepToolResults` steps are shown as a short stub. The transcript always keeps everything.
   *
   * @example
   * ```ts
   * defineAgent({ name: 'ops', model, context: { windowTokens: 128_000, compactAt: 0.7, keepToolResults: 5 } });
   * ```
   */
  context?: ContextOptions;
  /**
   * Tools from MCP servers: servers (every tool they list) or `mcpTools(server, { include, exclude, defaults, tools })`.
   * The worker lists them when a run starts; the run records the list (names `server__tool`), so replay
   * never asks the server. See `mcpServer`.
   */
  mcp?: readonly McpSource[];
  /**
   * Checks run in the worker: `input` guardrails before each model call, `output` guardrails after each
   * answer (the final one included). A failure with `tripwire` ends the run `guardrail`; an output
   * failure with `feedback` (default) is sent back to the model to revise. See `defineGuardrail`.
   */
  guardrails?: GuardrailsOptions;
  /** Code run around each tool call in the worker: block or rewrite a call, transform its output. */
  hooks?: ToolHooks;
  /**
   * The run's final answer must match this schema (a `z.object(...)`); a successful result's `output` is
   * the validated answer, typed from it. The model answers through its provider's native structured
   * output when the provider has one (OpenAI-compatible: `response_format: json_schema`), else by calling
   * a `final_answer` tool whose input schema is this one. An answer that does not validate is fed back
   * with the errors, at most `outputRetries` times, then the run ends `output_invalid`.
   *
   * @example
   * ```ts
   * defineAgent({ name: 'triage', model, output: z.object({ severity: z.enum(['low', 'high']), summary: z.string() }) });
   * ```
   */
  output?: S;
  /** With `output`: how many times an invalid final answer is fed back before the run ends `output_invalid`. Default 2. */
  outputRetries?: number;
  /**
   * With `output`: `native` (the provider constrains the answer) or `tool` (a `final_answer` tool).
   * Default: `native` when every model's provider supports it, else `tool`.
   */
  outputMode?: 'native' | 'tool';
}

/** How an agent's context is managed (see `AgentConfig.context`); every field optional. */
export interface ContextOptions {
  /** The model's context window in tokens. Default: the worker's table by model id (`contextWindows`); unknown: no threshold compaction. */
  windowTokens?: number;
  /** Compact before a call estimated to pass this fraction of the window, in (0, 1]. Default 0.8. */
  compactAt?: number;
  /** Tokens of the most recent messages kept verbatim when compacting. Default a quarter of the window (20,000 when unknown). */
  keepRecentTokens?: number;
  /** Tool results of this many most recent steps are shown whole; older ones (over 1 KiB) as a stub. Default 10; 0: never stubbed. */
  keepToolResults?: number;
  /** Summarise when the context fills. Default true; false: old tool results are still stubbed, and an overflow ends the run. */
  summarize?: boolean;
  /** The model that writes summaries (a cheaper one, say). Default: the agent's own. */
  summaryModel?: ModelRef;
  /** Instructions for the summary. Default: a built-in prompt that keeps goals, decisions, findings and next steps. */
  summaryPrompt?: string;
}

/** A defined agent. */
export interface Agent<N extends string = string, T extends readonly AnyTool[] = readonly AnyTool[], S extends OutputSchema | undefined = OutputSchema | undefined>
  extends AgentConfig<N, T, S> {
  readonly kind: 'agent';
  readonly tools: T;
  /** JSON Schema of the output, from zod (set when `output` is). */
  readonly outputSchema?: JsonObject;
}

/** An agent of any name, tools and output. */
export type AnyAgent = Agent<string, readonly AnyTool[], OutputSchema | undefined>;

/** The call shape (`{ tool, args }`) of one tool: its name and the arguments its schema accepts. */
export type ToolCallOf<T> = T extends Tool<infer N, infer I, infer _O> ? { tool: N; args: z.input<I> } : never;

/**
 * The tool calls an agent can make, as a union discriminated by `tool`: narrow on `call.tool` and `args`
 * has that tool's input type. For an agent not known statically, any tool name and JSON arguments.
 * (A call the model got wrong — unknown tool, invalid arguments — is reported with `isError` and its
 * arguments exactly as sent.)
 */
export type ToolCallsOf<A> = A extends Agent<string, infer T> ? (T[number] extends never ? AnyToolCall : ToolCallOf<T[number]>) : AnyToolCall;

/** The names of an agent's tools. */
export type ToolNamesOf<A> = ToolCallsOf<A>['tool'];

/**
 * The type of a successful run's `output` for agent `A`: what its output schema parses to; for an agent
 * without one (or not known statically), any JSON or nothing.
 */
export type OutputOf<A> = A extends Agent<string, readonly AnyTool[], infer S> ? ([S] extends [OutputSchema] ? z.output<S> : UnknownOutput) : UnknownOutput;

/**
 * Declare an agent. Its tools are checked too (a tool made by hand, not by `defineTool`, must have the
 * same shape: a valid name, a description, a `z.object(...)` input and an `execute` function).
 *
 * @throws {DefinitionError} naming the agent (and tool) and the field that is wrong, and how to fix it.
 */
export function defineAgent<const N extends string, const T extends readonly AnyTool[] = readonly [], S extends OutputSchema | undefined = undefined>(
  config: AgentConfig<N, T, S>,
): Agent<N, T, S> {
  const tools = checkAgentConfig(config as AgentConfig<string, readonly AnyTool[]>) as unknown as T;
  checkAgentMcp(config.name, config.mcp);
  const outputSchema = config.output !== undefined ? outputSchemaOf(config as AgentConfig) : undefined;
  return Object.freeze({ ...config, kind: 'agent' as const, tools, ...(outputSchema ? { outputSchema } : {}) });
}

/** Resolve retry options against defaults. */
export function retrySpec(options: RetryOptions | undefined, defaults: RetrySpec): RetrySpec {
  return {
    maximumAttempts: options?.maximumAttempts ?? defaults.maximumAttempts,
    initialIntervalMs: options?.initialInterval !== undefined ? msToNumber(options.initialInterval) : defaults.initialIntervalMs,
    backoffCoefficient: options?.backoffCoefficient ?? defaults.backoffCoefficient,
    maximumIntervalMs: options?.maximumInterval !== undefined ? msToNumber(options.maximumInterval) : defaults.maximumIntervalMs,
  };
}

export { DEFAULTS };
export { MAX_TOOL_RESULT_INLINE_BYTES } from './limits';
