/**
 * `durable-agent/worker`: run agents. `createWorker`, the blob stores and the price table, plus
 * everything the root entry has (`defineAgent`, `defineTool`, errors, types). Loads `@temporalio/worker`
 * (native code, an optional peer: `npm install @temporalio/worker`): import it only in worker processes.
 * Model providers and stores that need other packages have their own entries (`durable-agent/anthropic`,
 * `/openai`, `/ai-sdk`, `/postgres`, `/s3`, `/redis`, `/otel`, `/mcp`).
 *
 * @example
 * ```ts
 * import { createWorker } from 'durable-agent/worker';
 * import { assistant } from './agents';
 *
 * const worker = await createWorker({ agents: [assistant] });
 * await worker.run();
 * ```
 *
 * @module durable-agent/worker
 */
import '../worker/native-peer'; // first: names @temporalio/worker when it is not installed
// Listed, not `export *`: ESM importers of this CommonJS build get only the names Node's static analysis sees.
export {
  agentTool,
  chain,
  consolidateTool,
  defineAgent,
  defineGuardrail,
  defineTool,
  DefinitionError,
  DurableAgentError,
  isDurableAgentError,
  mcpServer,
  mcpTools,
  McpServerError,
  messageText,
  MissingPeerError,
  outputText,
  PolicyError,
  RUN_STATUSES,
  ToolError,
  toolCalls,
  UnknownAgentError,
  waitTool,
} from './index';
export type * from './types';
export { createWorker, durableAgents, DurableAgentsPlugin, WORKFLOWS_PATH, buildAgentBundle } from '../worker';
export type { AgentWorker, AgentWorkerOptions, ApprovalRulesWorkerOptions, DurableAgentsOptions, WorkflowCodeSource } from '../worker';
export { durableAgentsClient } from '../client/plugin';
export type { TracingOptions } from '../integrations/telemetry/tracing';
export { contextWindowFor, DEFAULT_CONTEXT_WINDOWS } from '../integrations/providers/context-windows';
export type { ContextWindowTable } from '../integrations/providers/context-windows';
export { resolveConnectionSettings } from '../client/connection-settings';
export type { ConnectionSettings, ResolvedConnectionSettings } from '../client/connection-settings';
// From the modules, not the providers' index: its declarations lead to the model SDKs' (optional) types.
export { DEFAULT_PRICES, costUsd, priceFor } from '../integrations/providers/pricing';
export { ProviderError } from '../integrations/providers/types';
export { ScriptedProvider } from '../integrations/providers/scripted';
export { defaultProviders } from '../integrations/providers/defaults';
export type { Script, ScriptedFailure, ScriptedToolCall, ScriptedTurn } from '../integrations/providers/scripted';
export { AgentStore, BlobIntegrityError, BlobNotFoundError, FileBlobStore, MemoryBlobStore } from '../integrations/store/blob-store';
export type {
  AgentStoreOptions,
  BlobCipher,
  BlobStore,
  ClaimInDoubt,
  ClaimRecord,
  ClaimSettled,
  ClaimState,
  ClaimStore,
  ClaimTaken,
  Store,
} from '../integrations/store/blob-store';
export { StoreConfigError, objectStoreFor, openStore } from '../integrations/store/open';
export type { ObjectKind, ObjectStore } from '../integrations/store/objects';
export { FileObjectStore } from '../integrations/store/file-objects';
export { MemoryObjectStore } from '../integrations/store/objects';
export { TranscriptStore } from '../integrations/store/transcript-store';
export { loadTranscript } from '../client/transcript';
export { DecryptionError, EncryptionCodec, EncryptionConfigError, Keyring, KeyringCipher } from '../integrations/encryption';
export type { EncryptionSetting } from '../integrations/encryption';
export type { ScriptedProviderOptions, ScriptedStreaming } from '../integrations/providers/scripted';
export type { BundleManifest } from '../worker/prebuilt-bundle';
export type { KeyEntry } from '../integrations/encryption';
