/**
 * durable-agent: run LLM agents durably on Temporal.
 *
 * This entry holds what agent definitions and readers of results need — `defineAgent`, `defineTool`,
 * `ToolError`, the errors and every public type — and loads neither `@temporalio/client` nor
 * `@temporalio/worker`. Start and watch runs with `durable-agent/client`; run them with `durable-agent/worker`.
 *
 * @module durable-agent
 */
export { defineAgent, defineTool, ToolError } from '../agents/define';
export { waitTool } from '../agents/wait';
export { mcpServer, mcpTools, McpServerError } from '../integrations/mcp/server';
export type { McpHttpServerConfig, McpServer, McpServerConfig, McpSource, McpStdioServerConfig, McpToolOptions, McpToolset, McpToolsetOptions } from '../integrations/mcp/server';
export { agentTool } from '../agents/agent-tool';
export type { AgentToolInput, AgentToolOptions } from '../agents/agent-tool';
export { chain } from '../agents/chain';
export type { Chain } from '../agents/chain';
export type { ChildRunSummary, SubAgentSpend } from '../core/sub-agents/child-run';
export type { ChildPendingApproval, ChildTag } from '../core/sub-agents/sub-agent';
export type { ChildAgentEvent } from '../client/child-events';
export { defineGuardrail } from '../agents/guardrails';
export type { Guardrail, GuardrailConfig, GuardrailContext, GuardrailKind, GuardrailsOptions, GuardrailVerdict } from '../agents/guardrails';
export type { AfterToolCallResult, BeforeToolCallResult, ToolHookContext, ToolHooks } from '../agents/hooks';
export type { WaitToolOptions } from '../agents/wait';
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
} from '../agents/define';
export { DefinitionError, DurableAgentError, isDurableAgentError } from '../core/run/errors';
export { UnknownAgentError } from '../agents/registry';
export { PolicyError } from '../core/approvals/run-policy';
export type { ApprovalWaiver, PolicyProblem } from '../core/approvals/run-policy';
export type { DurableAgentErrorCode } from '../core/run/errors';
export { RUN_STATUSES } from '../core/run/result';
export type * from '../core/messages/messages';
export type * from '../core/events/events';
export type * from '../core/run/result';
export type * from '../core/budget/usage';
export type * from '../core/messages/json';
export type * from '../core/events/stream';
export type { AnyToolCall, BudgetRequest, ToolCallShape } from '../core/tool-calls/tool-call';
export type { StopReason, ModelRequest, ModelResponse } from '../core/output/native-output';
export type { AgentWorkflowInput, DecisionReceipt, RunSnapshot } from '../core/run/contract';
export type { ModelRef, OutputSpec, PromptSpec, ThinkingSpec, ToolErrorPolicy } from '../core/run/spec';
export type { Budget, BudgetExhausted, BudgetName, BudgetSpent } from '../core/budget/budget';
export type * from '../core/approvals/approval-requests';
export type { ModelCallContext, ModelProvider, ProviderErrorKind, ProviderErrorOptions } from '../integrations/providers/types';
export type { ModelPrice, PriceTable } from '../integrations/providers/pricing';
export type { BlobStore } from '../integrations/store/blob-store';
export type { AgentClientOptions, AgentRunOf, AwaitingRun, ConnectionSettings, DeltaFeed, DeltaPublisher, EventsOptions, RunCallsOf, RunOptions, SessionOption, StartOptions, StreamEvent, StreamOptions } from '../client';
export type { AgentRun, AgentClient } from '../client';
export type { AgentWorker, AgentWorkerOptions } from '../worker';
export type { ListedRun } from '../core/run/run-views';
export type { ListRunsOptions, RunFilter } from '../client/run-list';
export type { MessageReceipt, UserMessageInput } from '../core/messages/user-messages';
export type { SessionOptions } from '../core/run/contract';
export type { ToolSpec } from '../core/run/spec';
export type { RetrySpec } from '../core/run/spec';
