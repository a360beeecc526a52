/**
 * `durable-agent/worker`: run agents. `createWorker`, the model providers, the blob stores and the
 * price table, plus everything the root entry has (`defineAgent`, `defineTool`, errors, types).
 * Loads `@temporalio/worker` (native code): import it only in worker processes.
 *
 * @example
 * ```ts
 * import { createWorker, OpenAIProvider } from 'durable-agent/worker';
 * import { assistant } from './agents';
 *
 * const worker = await createWorker({
 *   agents: [assistant],
 *   providers: { ollama: new OpenAIProvider({ baseURL: 'http://localhost:11434/v1', label: 'Ollama' }) },
 * });
 * await worker.run();
 * ```
 */
export * from '../index';
export { createWorker, durableAgents, DurableAgentsPlugin, WORKFLOWS_PATH, WORKFLOW_BUNDLE_ENV, buildAgentBundle } from '../worker';
export type { AgentWorker, AgentWorkerOptions, DurableAgentsOptions, WorkflowCodeSource } from '../worker';
export { durableAgentsClient } from '../client/plugin';
export { stateDir } from '../worker/paths';
export type { TracingOptions } from '../telemetry/tracing';
export { contextWindowFor, DEFAULT_CONTEXT_WINDOWS } from '../providers/context-windows';
export type { ContextWindowTable } from '../providers/context-windows';
export { resolveConnectionSettings } from '../client/connection-settings';
export type { ConnectionSettings, ResolvedConnectionSettings } from '../client/connection-settings';
export {
  AnthropicProvider,
  DEFAULT_PRICES,
  OpenAIProvider,
  PLACEHOLDER_API_KEY,
  ProviderError,
  ScriptedProvider,
  classifyAnthropicError,
  classifyOpenAIError,
  costUsd,
  defaultProviders,
  priceFor,
} from '../providers';
export type {
  AnthropicProviderOptions,
  MaxTokensField,
  OpenAIProviderOptions,
  Script,
  ScriptedFailure,
  ScriptedToolCall,
  ScriptedTurn,
} from '../providers';
export { AiSdkProvider, aiSdkProvider, classifyAiSdkError, type AiSdkCallSettings, type AiSdkModels, type AiSdkModelSource, type AiSdkProviderOptions } from '../providers/ai-sdk';
export { AgentStore, BlobIntegrityError, BlobNotFoundError, FileBlobStore, MemoryBlobStore, blobRef } from '../store/blob-store';
export type { AgentStoreOptions, BlobCipher, BlobStore, ClaimInDoubt, ClaimRecord, ClaimSettled, ClaimState, ClaimStore, ClaimTaken, Store } from '../store/blob-store';
export { STORE_ENV, StoreConfigError, objectStoreFor, openStore } from '../store/open';
export type { ObjectKind, ObjectStore } from '../store/objects';
export { FileObjectStore } from '../store/file-objects';
export { MemoryObjectStore } from '../store/objects';
export { PostgresObjectStore } from '../store/postgres-objects';
export { S3ObjectStore } from '../store/s3-objects';
export { TranscriptStore } from '../store/transcript-store';
export { loadTranscript } from '../client/transcript';
export { DecryptionError, EncryptionCodec, EncryptionConfigError, Keyring, KeyringCipher, KEYS_ENV } from '../encryption';
export type { EncryptionSetting } from '../encryption';
