/** durable-agent: run LLM agents durably on Temporal. */
export { defineAgent, defineTool, ToolError } from './agents/define';
export type { Agent, AgentConfig, RetryOptions, Tool, ToolConfig, ToolContext } from './agents/define';
export { createWorker, WORKFLOWS_PATH } from './worker';
export type { AgentWorker, AgentWorkerOptions } from './worker';
export { AgentClient, AgentRun } from './client';
export type { AgentClientOptions, StartOptions } from './client';
export { loadTranscript } from './client/transcript';
export { AnthropicProvider, DEFAULT_PRICES, OpenAIProvider, ProviderError, ScriptedProvider, costUsd, priceFor } from './providers';
export type {
  AnthropicProviderOptions,
  ModelCallContext,
  ModelPrice,
  ModelProvider,
  OpenAIProviderOptions,
  PriceTable,
  Script,
  ScriptedTurn,
} from './providers';
export { FileBlobStore, MemoryBlobStore } from './store/blob-store';
export type { BlobStore } from './store/blob-store';
export { TranscriptStore } from './store/transcript-store';
export type * from './core/messages';
export type * from './core/events';
export type * from './core/result';
export type * from './core/usage';
export type { AgentWorkflowInput, RunSnapshot } from './core/contract';
export type { ModelRef, ThinkingSpec } from './core/spec';
export type { ApprovalDecision, Decision, PendingApproval, RunPolicy } from './core/approvals';
export { ApprovalRefusedError } from './client';
