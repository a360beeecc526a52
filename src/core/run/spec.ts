import type { AgentApprovalRule, ApprovalSpec, RuleSet } from '../approvals/approvals';
import type { Budget } from '../budget/budget';
import type { BlobRef } from '../messages/messages';
import type { JsonObject } from '../messages/json';
import type { BuiltinToolSpec } from '../loop/wait';
import type { GuardrailsSpec } from '../guardrails/guardrail-types';
import type { LayerSpec } from '../prompt/layers';
import type { ConsolidateSpec } from '../sub-agents/consolidate-spec';
import type { NotifySpec } from '../approvals/notify-spec';

/**
 * Retry policy, in the shape of Temporal's RetryPolicy with durations in milliseconds.
 * `maximumAttempts` counts the first attempt: 1 means no retry.
 */
export interface RetrySpec {
  maximumAttempts: number;
  initialIntervalMs: number;
  backoffCoefficient: number;
  maximumIntervalMs: number;
}

/** Which model to call, as recorded in history. Never holds credentials. */
export interface ModelRef {
  /** Name of a provider registered on the worker (e.g. `anthropic`, `scripted`). */
  provider: string;
  /** The provider's model id (e.g. `claude-sonnet-4-5`). */
  model: string;
  /** Upper bound on output tokens per response. */
  maxTokens?: number;
  temperature?: number;
  /**
   * Extended thinking (Anthropic): the model reasons in up to `budgetTokens` tokens before answering.
   * The budget must be less than `maxTokens`; temperature is not sent while thinking is on.
   */
  thinking?: ThinkingSpec;
}

/** Extended thinking settings of a model. */
export interface ThinkingSpec {
  /** Tokens the model may spend thinking (Anthropic requires at least 1024, and less than `maxTokens`). */
  budgetTokens: number;
}

/** What happens to a run when a tool call fails after its retries. */
export type ToolErrorPolicy = 'report' | 'fail';

/** A tool that runs an agent as a child workflow, as recorded in its `ToolSpec`. */
export interface SubAgentToolSpec {
  /** Name of the agent the child runs (registered on the workers of the parent's task queue). */
  agent: string;
}

/** A tool as the workflow and the model see it: data only, no code. */
export interface ToolSpec {
  name: string;
  description: string;
  /** JSON Schema of the tool's input (from its zod schema). */
  inputSchema: JsonObject;
  /** Read-only calls may run in parallel with other read-only calls. */
  readOnly: boolean;
  /** Start-to-close timeout of one attempt. */
  timeoutMs: number;
  /** The activity must heartbeat at least this often (the runtime heartbeats for the tool). */
  heartbeatTimeoutMs: number;
  retry: RetrySpec;
  /** `report` (default): a failed call becomes an error result the model sees. `fail`: the run ends `tool_error`. */
  onError: ToolErrorPolicy;
  /** Whether a person must approve calls; absent means never. */
  approval?: ApprovalSpec;
  /**
   * Set for a built-in tool the workflow runs itself (`wait`): no activity, no worker busy.
   * @internal
   */
  builtin?: BuiltinToolSpec;
  /**
   * Calls never execute twice: a claim is stored before `execute`, and an attempt that finds one without a
   * result does not execute (the outcome is unknown). Absent: at-least-once.
   */
  atMostOnce?: true;
  /**
   * Set for a tool that runs another agent as a child workflow (`agentTool`): no activity, the child is the call.
   * @internal
   */
  subAgent?: SubAgentToolSpec;
  /**
   * Set for a tool that runs several agents in parallel and aggregates their answers (`consolidateTool`):
   * no activity of its own, the children are the call.
   * @internal
   */
  consolidate?: ConsolidateSpec;
  /** The output comes from an untrusted source: the model is shown it fenced, as data (`core/fence.ts`). */
  untrusted?: true;
  /**
   * Calls may start while the model still streams its answer (streaming tool execution): set only on a
   * read-only tool that opted in (or whose agent did). Absent: calls start after the answer.
   */
  earlyStart?: true;
}

/** Limits of a run. */
export interface RunLimits {
  /** Maximum number of model calls. */
  maxSteps: number;
  /** Tool outputs larger than this (UTF-8 bytes) are stored in the blob store and referenced from history. */
  toolResultInlineBytes: number;
  /** The result carries at most this many bytes of messages (the most recent); the rest stay in the store. */
  resultMessagesInlineBytes?: number;
  /**
   * How many times in a run an answer cut off at the output token limit is followed by a "continue" turn
   * instead of ending the run `max_tokens`. Absent: never.
   */
  maxTokensRecoveries?: number;
  /** After a cut-off answer, later calls may write up to this many output tokens (raised from the model's `maxTokens`). */
  recoveryMaxTokens?: number;
  /** Continue as new at the next step boundary once the history has this many events (default 5,000). */
  continueAsNewAfterEvents?: number;
  /** When a token, cost or turn budget is spent: end the run (default), or `ask` a person to extend it. */
  onBudgetExhausted?: 'end' | 'ask';
}

/** How an agent's context is managed, as recorded in its spec. */
export interface ContextSpec {
  /** The model's context window in tokens; unknown (absent): only a provider's "prompt is too long" compacts. */
  windowTokens?: number;
  /** Compact before a call estimated to pass this fraction of the window. */
  compactAt: number;
  /** Tokens of the most recent messages kept verbatim when compacting. */
  keepRecentTokens: number;
  /** Tool results of the last this-many steps are shown whole; older ones as a stub (0: never stubbed). */
  keepToolResults: number;
  /** Summarise older messages when the context fills (false: only stubs; an overflow then ends the run). */
  summarize: boolean;
  /** The model that writes summaries; absent: the agent's own. */
  summaryModel?: ModelRef;
  /** Instructions for the summary; absent: the built-in one (`SUMMARY_PROMPT` in `core/context.ts`). */
  summaryPrompt?: string;
}

/** Everything the workflow needs to know about an agent, resolved once per run and recorded in history. */
export interface AgentSpec {
  name: string;
  /** The primary model, then fallbacks tried in turn after retryable failures. */
  models: ModelRef[];
  tools: ToolSpec[];
  limits: RunLimits;
  modelRetry: RetrySpec;
  /** Start-to-close timeout of one model call attempt. */
  modelTimeoutMs: number;
  /** Heartbeat timeout of a model call (providers heartbeat while streaming). */
  modelHeartbeatTimeoutMs: number;
  /** Reference to the model-facing prompt (system text and tool schemas) in the blob store. */
  promptRef: BlobRef;
  /** The worker registered durable-agent's search attributes: the run keeps them up to date. */
  searchAttributes?: boolean;
  /** What a run of this agent may spend at most (a run may lower it); absent when the agent sets no budget. */
  budget?: Budget;
  /**
   * How the model's context is kept within its window (compaction, stubs of old tool results). Absent in
   * runs recorded before compaction existed: they show the model the whole transcript.
   */
  context?: ContextSpec;
  /** Input and output guardrails (names and flags; their code runs in the worker). Absent: none. */
  guardrails?: GuardrailsSpec;
  /** The contract the run's final answer must meet (absent: any answer ends the run). */
  output?: OutputSpec;
  /**
   * SHA-256 (hex) of the agent definition (core/definition.ts): equal for runs of the same definition,
   * different once a tool schema, the prompt, a model or a limit changes. Absent in runs recorded before it existed.
   */
  definitionHash?: string;
  /** Approval rules written in the agent's code (scope `agent`; `createdBy` defaults to `agent:<name>`). */
  approvalRules?: AgentApprovalRule[];
  /**
   * The standing rule set (session, agent and namespace rules of the rules entity) when the agent was
   * described: the run starts with it. Not part of the definition (nor its hash). Absent: none.
   */
  standingRules?: RuleSet;
  /** The worker's approval notifications (webhook names and the events each receives; no URL, no secret). Absent: none. */
  notify?: NotifySpec;
  /**
   * The tools of the agents this agent runs through agent tools (depth first, MCP tools included), which
   * the run's policy reaches too (children get it): listed only for a run with a policy, to check it.
   */
  subAgentTools?: Array<{ agent: string; name: string; approval?: ApprovalSpec }>;
  /** The system prompt's layers in their order (after the base text): names, placement, computed or not. Absent: none. */
  layers?: LayerSpec[];
}

/**
 * How a final answer must look, as recorded in the spec. `native`: the provider constrains the answer to
 * the schema (e.g. OpenAI's `response_format: json_schema`) and its text is parsed as JSON; `tool`: the
 * model answers by calling the `final_answer` tool with the schema as its input schema.
 */
export interface OutputSpec {
  /** JSON Schema of the answer (an object), from the agent's zod schema. */
  schema: JsonObject;
  mode: 'native' | 'tool';
  /** How many times an answer that does not validate is fed back (with the errors) before the run ends `output_invalid`. */
  maxRetries: number;
}

/** The part of an agent the model sees, stored once per run as a blob. */
export interface PromptSpec {
  system?: string;
  tools: Array<Pick<ToolSpec, 'name' | 'description' | 'inputSchema'>>;
}

/** Defaults applied by `defineAgent` and `defineTool`. */
export const DEFAULTS = {
  maxSteps: 25,
  toolResultInlineBytes: 16 * 1024,
  resultMessagesInlineBytes: 256 * 1024,
  modelTimeoutMs: 10 * 60_000,
  // Short heartbeat timeouts: a lost worker is noticed within seconds, and its call runs again on
  // another worker (the runtime heartbeats every second while a call runs, whatever the call does).
  modelHeartbeatTimeoutMs: 3_000,
  toolTimeoutMs: 5 * 60_000,
  toolHeartbeatTimeoutMs: 3_000,
  maxTokens: 8192,
  modelRetry: { maximumAttempts: 6, initialIntervalMs: 1000, backoffCoefficient: 2, maximumIntervalMs: 60_000 },
  toolRetry: { maximumAttempts: 3, initialIntervalMs: 1000, backoffCoefficient: 2, maximumIntervalMs: 30_000 },
} as const satisfies Record<string, unknown>;
