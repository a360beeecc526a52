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
 *
 * @module durable-agent/worker
 */
export * from './index';
export { createWorker, durableAgents, DurableAgentsPlugin, WORKFLOWS_PATH, WORKFLOW_BUNDLE_ENV, buildAgentBundle } from '../worker';
export type { AgentWorker, AgentWorkerOptions, DurableAgentsOptions, WorkflowCodeSource } from '../worker';
export { durableAgentsClient } from '../client/plugin';
export { stateDir } from '../worker/paths';
export type { TracingOptions } from '../integrations/telemetry/tracing';
export { contextWindowFor, DEFAULT_CONTEXT_WINDOWS } from '../integrations/providers/context-windows';
export type { ContextWindowTable } from '../integrations/providers/context-windows';
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
} from '../integrations/providers';
export type {
  AnthropicProviderOptions,
  MaxTokensField,
  OpenAIProviderOptions,
  Script,
  ScriptedFailure,
  ScriptedToolCall,
  ScriptedTurn,
} from '../integrations/providers';
export { AiSdkProvider, aiSdkProvider, classifyAiSdkError, type AiSdkCallSettings, type AiSdkModels, type AiSdkModelSource, type AiSdkProviderOptions } from '../integrations/providers/ai-sdk';
export { AgentStore, BlobIntegrityError, BlobNotFoundError, FileBlobStore, MemoryBlobStore, blobRef } from '../integrations/store/blob-store';
export type { AgentStoreOptions, BlobCipher, BlobStore, ClaimInDoubt, ClaimRecord, ClaimSettled, ClaimState, ClaimStore, ClaimTaken, Store } from '../integrations/store/blob-store';
export { STORE_ENV, StoreConfigError, objectStoreFor, openStore } from '../integrations/store/open';
export type { ObjectKind, ObjectStore } from '../integrations/store/objects';
export { FileObjectStore } from '../integrations/store/file-objects';
export { MemoryObjectStore } from '../integrations/store/objects';
export { PostgresObjectStore } from '../integrations/store/postgres-objects';
export { S3ObjectStore } from '../integrations/store/s3-objects';
export { TranscriptStore } from '../integrations/store/transcript-store';
export { loadTranscript } from '../client/transcript';
export { DecryptionError, EncryptionCodec, EncryptionConfigError, Keyring, KeyringCipher, KEYS_ENV } from '../integrations/encryption';
export type { EncryptionSetting } from '../integrations/encryption';
export type { OpenAIRequestOptions } from '../integrations/providers/openai-request';
export type { ScriptedProviderOptions, ScriptedStreaming } from '../integrations/providers/scripted';
export type { PostgresObjectStoreOptions } from '../integrations/store/postgres-objects';
export type { S3ObjectStoreOptions } from '../integrations/store/s3-objects';
export type { BundleManifest } from '../worker/prebuilt-bundle';
export type { KeyEntry } from '../integrations/encryption';
