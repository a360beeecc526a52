/** Defined tools and agents (types only), shared by `define.ts` and the modules that check a definition. */
import type { Duration } from '@temporalio/common';
import type { z } from 'zod';
import type { AgentRuleConfig } from './approval-rules';
import type { JsonObject } from '../core/messages/json';
import type { ModelRef } from '../core/run/spec';
import type { AnyToolCall, UnknownOutput } from '../core/run/result';
import type { BuiltinToolSpec } from '../core/loop/wait';
import type { BudgetOptions } from './budget-options';
import type { McpSource } from '../integrations/mcp/server';
import type { GuardrailsOptions } from './guardrails';
import type { ToolHooks } from './hooks';
import type { RetryOptions, ToolConfig, ToolInputSchema } from './tool-config';
import type { LayerDeclaration } from './layers';
import type { ConsolidateSpec, ConsolidatedChild } from '../core/sub-agents/consolidate';

/** A defined tool. */
export interface Tool<N extends string = string, I extends ToolInputSchema = ToolInputSchema, O = unknown> extends ToolConfig<N, I, O> {
  readonly kind: 'tool';
  /**
   * Set on built-in tools the workflow runs itself (see `waitTool`); never on tools you define.
   * @internal
   */
  readonly builtin?: BuiltinToolSpec;
  /** Set on agent tools (see `agentTool`): the agent each call runs as a child workflow. */
  readonly subAgent?: { readonly agent: string; readonly definition: Agent<string, readonly AnyTool[]> };
  /** Set on consolidate tools (see `consolidateTool`): the agents each call runs in parallel, and how their answers become one. */
  readonly consolidate?: ConsolidateToolData;
  /** JSON Schema of the input, from zod. */
  readonly inputSchema: JsonObject;
}

/**
 * The function that makes one answer of a consolidation's children (`consolidateTool`'s `aggregate: { fn }`):
 * given every child (answers, failures) and the call's input. Runs on the worker, in an activity; its result is recorded.
 */
export type AggregateFn = (children: ConsolidatedChild[], input: string) => string | Promise<string>;

/** What a consolidate tool carries: its spec (data, recorded), the agents it runs (served by the worker), its aggregate function. */
export interface ConsolidateToolData {
  readonly spec: ConsolidateSpec;
  /** Every agent the tool runs: the members, then the summarising agent if any. */
  readonly definitions: ReadonlyArray<Agent<string, readonly AnyTool[]>>;
  /** The aggregate function, for `aggregate: { fn }`. */
  readonly aggregate?: AggregateFn;
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
export interface AgentConfig<
  N extends string = string,
  T extends readonly AnyTool[] = readonly AnyTool[],
  S extends OutputSchema | undefined = OutputSchema | undefined,
> {
  /** Name clients start runs by. */
  name: N;
  /** The model to call. Credentials are configured on the worker's provider, never here. */
  model: ModelRef;
  /** Tried in turn after a retryable failure of the model before them. */
  fallbackModels?: ModelRef[];
  system?: string;
  /**
   * Named layers of the system prompt, after `system`, in this order: stable ones (with `system`, before the
   * prompt-cache breakpoint), then the others. Tools set them (`ctx.context.set(name, text)`), messages set
   * them (`send({ text, context: { name: text } })`), or a `value` function computes one before each model
   * call. Values are at most 16 KiB each; the report lists them (not their text).
   *
   * @example
   * ```ts
   * defineAgent({ name: 'coder', model, system: 'You write code.', layers: [{ name: 'memory', stable: true }, { name: 'plan' }] });
   * ```
   */
  layers?: readonly LayerDeclaration[];
  tools?: T;
  /** Step cap (model calls). Default 25. */
  maxSteps?: number;
  /** Tool outputs over this many bytes are stored by reference. Default 16 KiB, at most 256 KiB (`MAX_TOOL_RESULT_INLINE_BYTES`). */
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
  /**
   * Approval rules on the agent's tool calls, with conditions on their arguments (data, recorded in the
   * run): scope `agent`, made by `agent:<name>` unless `createdBy` names someone. They take their place
   * among the standing rules (see the approvals guide, "Precedence"); a rule that allows a tool naming
   * approvers waives it only if its `createdBy` is one of them.
   */
  approvalRules?: AgentRuleConfig[];
  /**
   * Streaming tool execution: calls of the agent's read-only tools start while the model still streams
   * the rest of its answer (see the tool option `earlyStart`, which overrides this per tool). Default false.
   */
  earlyToolStarts?: boolean;
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
export interface Agent<
  N extends string = string,
  T extends readonly AnyTool[] = readonly AnyTool[],
  S extends OutputSchema | undefined = OutputSchema | undefined,
> extends AgentConfig<N, T, S> {
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
export type ToolCallsOf<A> =
  A extends Agent<string, infer T> ? (T[number] extends never ? AnyToolCall : ToolCallOf<T[number]>) : AnyToolCall;

/** The names of an agent's tools. */
export type ToolNamesOf<A> = ToolCallsOf<A>['tool'];

/**
 * The type of a successful run's `output` for agent `A`: what its output schema parses to; for an agent
 * without one (or not known statically), any JSON or nothing.
 */
export type OutputOf<A> =
  A extends Agent<string, readonly AnyTool[], infer S> ? ([S] extends [OutputSchema] ? z.output<S> : UnknownOutput) : UnknownOutput;
