/**
 * `durable-agent/client`: start runs, find them, read their results and events, decide approvals.
 * Loads `@temporalio/client` and nothing of the worker (no `@temporalio/worker`, no tool code, no zod),
 * so a web server or a script that only starts runs or decides approvals stays light.
 *
 * @example
 * ```ts
 * import { AgentClient } from 'durable-agent/client';
 * import type { assistant } from './agents'; // type only
 *
 * const client = await AgentClient.connect();
 * const run = await client.start<typeof assistant>('assistant', { input: 'Weather in Paris?' });
 * for await (const event of run.events()) console.log(event.type);
 * console.log((await run.result()).finalText);
 * await client.close();
 * ```
 *
 * @module durable-agent/client
 */
/**
 * The reference documents the classes here, where they are values (the root entry exports their types).
 * @primaryExport
 */
export { AgentClient, AgentRun } from '../client';
export {
  AgentSchedule,
  ApprovalRefusedError,
  MessageRefusedError,
  NoWorkerError,
  RunEndedError,
  RunNotFoundError,
  ScheduleNotFoundError,
  TemporalDeltaFeed,
  TextAccumulator,
  resolveConnectionSettings,
} from '../client';
export type {
  AgentClientOptions,
  AgentRunOf,
  AgentScheduleDescription,
  AgentScheduleOptions,
  AgentScheduleSpec,
  RunEndedStatus,
  AgentScheduleSummary,
  AwaitingRun,
  BudgetOptions,
  ConnectionSettings,
  DeltaFeed,
  EventsOptions,
  FollowOptions,
  ResolvedConnectionSettings,
  RunCallsOf,
  ScheduledRun,
  ScheduledRunStatus,
  ScheduleOverlap,
  StartOptions,
  RunOptions,
  SessionOption,
  StreamEvent,
  StreamOptions,
  TemporalFeedOptions,
} from '../client';
export { loadTranscript } from '../client/transcript';
export { durableAgentsClient } from '../client/plugin';
export type { DurableAgentsClientOptions } from '../client/plugin';
export type { TracingOptions } from '../integrations/telemetry/tracing';
export { FileBlobStore, MemoryBlobStore, BlobIntegrityError, BlobNotFoundError } from '../integrations/store/blob-store';
export { DurableAgentError, DefinitionError, isDurableAgentError } from '../core/run/errors';
export { PolicyError } from '../core/approvals/run-policy';
export type * from './index';
export { DecryptionError, EncryptionCodec, EncryptionConfigError, Keyring, KeyringCipher, KEYS_ENV } from '../integrations/encryption';
export type { EncryptionSetting } from '../integrations/encryption';
export { RunFilterError } from '../client/run-list';
export type { KeyEntry } from '../integrations/encryption';
