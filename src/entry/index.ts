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
export { agentTool } from '../agents/agent-tool';
export { consolidateTool } from '../agents/consolidate-tool';
export { chain } from '../agents/chain';
export { defineGuardrail } from '../agents/guardrails';
export { DefinitionError, DurableAgentError, isDurableAgentError } from '../core/run/errors';
export { MissingPeerError } from '../integrations/optional-peer';
export { UnknownAgentError } from '../agents/registry';
export { PolicyError } from '../core/approvals/run-policy';
export { RUN_STATUSES } from '../core/run/result';
export type * from './types';

// used by the CLI and HTTP API
export { messageText, outputText, toolCalls } from '../core/messages/messages';
