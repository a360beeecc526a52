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
export type { ResourceLike, SpanProcessorLike, TracingOptions } from '../integrations/telemetry/tracing';
export { FileBlobStore, MemoryBlobStore, BlobIntegrityError, BlobNotFoundError } from '../integrations/store/blob-store';
export { DurableAgentError, DefinitionError, isDurableAgentError } from '../core/run/errors';
export { MissingPeerError } from '../integrations/optional-peer';
export { PolicyError, policyValueProblem } from '../core/approvals/run-policy';
export type * from './types';
export { DecryptionError, EncryptionCodec, EncryptionConfigError, Keyring, KeyringCipher } from '../integrations/encryption';
export type { EncryptionSetting } from '../integrations/encryption';

// used by the CLI and HTTP API
// Listing runs and reading their reports (`durable-agent runs`, `durable-agent report`, `GET /runs`).
export { DEFAULT_RUNS_LIMIT, LISTED_STATUSES, MAX_RUNS_LIMIT, RunFilterError, readRunReport, runsQuery } from '../client';
export type {
  EndedRunReport,
  FailedRunReport,
  ListedRun,
  ListRunsOptions,
  ReadRunReportOptions,
  RunFilter,
  RunningRunReport,
  RunReportView,
} from '../client';
export type { CallerView, ContextMessage, InboxCall, InboxRun, InboxView, RunView } from '../core/run/run-views';
export { MIN_SCHEDULE_INTERVAL_MS, scheduledRunStatuses } from '../client/schedules';
export { checkPolicyEarly } from '../client/policy-check';
export { policyRule } from '../core/approvals/approvals';
// The namespace's standing approval rules (`client.rules`, `durable-agent rules`, `/rules`).
export { ApprovalRules, RuleChangeRefusedError } from '../client/rules';
export { RULES_MEMO_KEY, RULES_TASK_QUEUE, RULES_WORKFLOW_ID } from '../core/approvals/rules';
export { MAX_EDITORS, MAX_RULE_CHANGES, MAX_RULES, MAX_RULES_BYTES, STANDING_SCOPES } from '../core/approvals/rule-entity';
export { RULES_WORKFLOW } from '../workflows/rules-definitions';
export { parseCond } from '../core/approvals/conditions';
export { parseWhen, renderCond } from '../core/approvals/render-cond';
export { parseUserMessage } from '../core/messages/user-messages';
export type { UserMessageInput } from '../core/messages/user-messages';
// Names a run is found by: its task queue, its search attributes and memo fields.
export { AGENT_WORKFLOW, DEFAULT_TASK_QUEUE, agentTaskQueue, isAgentTaskQueue } from '../core/run/contract';
export {
  AGENT_NAME,
  AWAITING_APPROVAL,
  AWAITING_APPROVAL_QUERY,
  PENDING_APPROVALS,
  RUN_STATUS,
  SEARCH_ATTRIBUTE_KEYS,
} from '../workflows/search-attributes';
export { AGENT_MEMO, DEFINITION_HASH_MEMO, STARTED_BY_MEMO } from '../core/run/definition';
// What a run's history records (activity inputs and outputs), for tools that read histories without a worker.
export type { CallModelOutput, CheckApprovalsOutput, RunToolInput } from '../core/run/contract';
export type { AgentSpec, ContextSpec, RunLimits } from '../core/run/spec';
export type { ModelStep } from '../core/loop/state';
export type { GuardrailSpec, GuardrailsSpec } from '../core/guardrails/guardrail-types';
export { resolveKeyring } from '../integrations/encryption';
export type { KeyEntry } from '../integrations/encryption';
