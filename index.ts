/**
 * durable-agent: run LLM agents durably on Temporal.
 *
 * This entry holds what agent definitions and readers of results need — `defineAgent`, `defineTool`,
 * `ToolError`, the errors and every public type — and loads neither `@temporalio/client` nor
 * `@temporalio/worker`. Start and watch runs with `durable-agent/client`; run them with `durable-agent/worker`.
 */
export { defineAgent, defineTool, ToolError } from './agents/define';
export { waitTool } from './agents/wait';
export { mcpServer, mcpTools, McpServerError } from './mcp/server';
export type { McpHttpServerConfig, McpServer, McpServerConfig, McpSource, McpStdioServerConfig, McpToolOptions, McpToolset, McpToolsetOptions } from './mcp/server';
export { agentTool } from './agents/agent-tool';
export type { AgentToolInput, AgentToolOptions } from './agents/agent-tool';
export { chain } from './agents/chain';
export type { Chain } from './agents/chain';
export type { ChildRunSummary, SubAgentSpend } from './core/child-run';
export type { ChildPendingApproval, ChildTag } from './core/sub-agent';
export type { ChildAgentEvent } from './client/child-events';
export { defineGuardrail } from './agents/guardrails';
export type { Guardrail, GuardrailConfig, GuardrailContext, GuardrailKind, GuardrailsOptions, GuardrailVerdict } from './agents/guardrails';
export type { AfterToolCallResult, BeforeToolCallResult, ToolHookContext, ToolHooks } from './agents/hooks';
export type { WaitToolOptions } from './agents/wait';
export type {
  Agent,
  AgentConfig,
  AnyAgent,
  AnyTool,
  BudgetOptions,
  ContextOptions,
  OutputOf,
  OutputSchema,
  RetryOptions,
  Tool,
  ToolCallOf,
  ToolCallsOf,
  ToolConfig,
  ToolContext,
  ToolInputSchema,
  ToolNamesOf,
} from './agents/define';
export { DefinitionError, DurableAgentError, isDurableAgentError } from './core/errors';
export { UnknownAgentError } from './agents/registry';
export { PolicyError } from './core/run-policy';
export type { ApprovalWaiver, PolicyProblem } from './core/run-policy';
export type { DurableAgentErrorCode } from './core/errors';
export { RUN_STATUSES } from './core/result';
export type * from './core/messages';
export type * from './core/events';
export type * from './core/result';
export type * from './core/usage';
export type * from './core/json';
export type * from './core/stream';
export type { AnyToolCall, BudgetRequest, ToolCallShape } from './core/tool-call';
export type { StopReason, ModelRequest, ModelResponse } from './core/model';
export type { AgentWorkflowInput, DecisionReceipt, RunSnapshot } from './core/contract';
export type { ModelRef, OutputSpec, PromptSpec, ThinkingSpec, ToolErrorPolicy } from './core/spec';
export type { Budget, BudgetExhausted, BudgetName, BudgetSpent } from './core/budget';
export type * from './core/approval-types';
export type { ModelCallContext, ModelProvider, ProviderErrorKind, ProviderErrorOptions } from './providers/types';
export type { ModelPrice, PriceTable } from './providers/pricing';
export type { BlobStore } from './store/blob-store';
export type { AgentClientOptions, AgentRunOf, AwaitingRun, ConnectionSettings, DeltaFeed, DeltaPublisher, EventsOptions, RunCallsOf, RunOptions, SessionOption, StartOptions, StreamEvent, StreamOptions } from './client';
export type { AgentRun, AgentClient } from './client';
export type { AgentWorker, AgentWorkerOptions } from './worker';
