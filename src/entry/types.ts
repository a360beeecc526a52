/**
 * Every public type of durable-agent, and nothing else: the root entry (`durable-agent`) and
 * `durable-agent/client` re-export it with `export type *`. A module of types only, so that ESM importers
 * of the CommonJS build are not promised names (the functions of the modules listed) that only exist as types.
 */
export type {
  McpHttpServerConfig,
  McpServer,
  McpServerConfig,
  McpSource,
  McpStdioServerConfig,
  McpToolOptions,
  McpToolset,
  McpToolsetOptions,
} from '../integrations/mcp/server';
export type { AgentToolInput, AgentToolOptions } from '../agents/agent-tool';
export type {
  AggregateFn,
  ConsolidateAgent,
  ConsolidateAggregate,
  ConsolidateToolData,
  ConsolidateToolOptions,
} from '../agents/consolidate-tool';
export type {
  AggregateByAgent,
  AggregateByFunction,
  AggregateResultsInput,
  AggregateResultsOutput,
  AggregateSpec,
  ChildErrorPolicy,
  ConsolidatedChild,
  ConsolidatedFailure,
  ConsolidatedRun,
  ConsolidateMember,
  ConsolidateSpec,
  ConsolidateWorkflowInput,
} from '../core/sub-agents/consolidate';
export type { Chain } from '../agents/chain';
export type { ChildRunSummary, SubAgentSpend } from '../core/sub-agents/child-run';
export type { ChildPendingApproval, ChildTag } from '../core/sub-agents/sub-agent';
export type { ChildAgentEvent } from '../client/child-events';
export type {
  Guardrail,
  GuardrailConfig,
  GuardrailContext,
  GuardrailKind,
  GuardrailsOptions,
  GuardrailVerdict,
} from '../agents/guardrails';
export type { AfterToolCallResult, BeforeToolCallResult, ToolHookContext, ToolHooks } from '../agents/hooks';
export type { WaitToolOptions } from '../agents/wait';
export type { AgentRuleConfig } from '../agents/approval-rules';
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
  LayerDeclaration,
  LayerFunction,
  LayerState,
} from '../agents/define';
export type { ToolEscalation, ToolMetricsRecorder } from '../agents/tool-config';
export type { ToolMetrics, ToolMetricValue } from '../core/tool-calls/metrics';
export type { ToolProgress } from '../core/tool-calls/progress';
export type { ToolLayers } from '../agents/tool-config';
export type { LayerReport, LayerSource, LayerSpec } from '../core/prompt/layers';
export type { ApprovalWaiver, PolicyProblem } from '../core/approvals/run-policy';
export type { DurableAgentErrorCode } from '../core/run/errors';
// Listed (not `export type *`): the module also holds functions, which ESM importers of this CommonJS build would not get.
export type {
  AssistantContent,
  AssistantMessage,
  BlobRef,
  ContentBlock,
  Message,
  RedactedThinkingBlock,
  TextBlock,
  ThinkingBlock,
  ToolOutput,
  ToolResultBlock,
  ToolUseBlock,
  UserContent,
  UserMessage,
} from '../core/messages/messages';
export type * from '../core/events/events';
export type {
  ApprovalNotification,
  NotificationEventType,
  NotifyInput,
  NotifyRetrySpec,
  NotifySpec,
  NotifyTargetSpec,
} from '../core/approvals/notifications';
export type { NotificationsOptions, WebhookTarget } from '../integrations/webhooks/deliver';
export type {
  AgentRunResult,
  CancelledResult,
  FailedResult,
  FailureStatus,
  LimitResult,
  LimitStatus,
  RunError,
  RunReport,
  RunResultBase,
  RunStatus,
  StepReport,
  SuccessResult,
  SuccessStatus,
  ToolCallReport,
  UnknownOutput,
} from '../core/run/result'; // listed: it also holds RUN_STATUSES
export type { Usage } from '../core/budget/usage';
export type { JsonObject, JsonValue } from '../core/messages/json';
export type * from '../core/events/stream';
export type { AnyToolCall, BudgetRequest, ToolCallShape } from '../core/tool-calls/tool-call';
export type { StopReason, ModelRequest, ModelResponse, SystemPart } from '../core/output/native-output';
export type { AgentWorkflowInput, DecisionReceipt, RunSnapshot } from '../core/run/contract';
export type { ModelRef, OutputSpec, PromptSpec, ThinkingSpec, ToolErrorPolicy } from '../core/run/spec';
export type { Budget, BudgetExhausted, BudgetName, BudgetSpent } from '../core/budget/budget';
export type * from '../core/approvals/approval-requests';
export type { DeferReceipt, DeferRequest, DelegateReceipt, DelegateRequest, PendingApprovalsOptions } from '../core/approvals/deferrals';
export type { AuditFilter, AuditKind, AuditRecord } from '../core/approvals/audit';
export type { AuditOptions, AuditQuery, RunAudit } from '../client/audit';
export type {
  PutRuleRequest,
  RemoveRuleRequest,
  RuleChangedEvent,
  RuleChangeMeta,
  RuleChangeOp,
  RuleChangeReceipt,
  RuleInput,
  RuleRefusal,
  RuleRefusalKind,
  RulesEntityState,
  RulesView,
  SetEditorsRequest,
} from '../core/approvals/rule-entity';
export type { AnnounceRulesInput, AnnounceRulesResult, RulePushTargets } from '../core/approvals/rule-push';
export type { RuleChangeOptions } from '../client/rules';
export type { DecisionInput, StandingDecisionOptions, WaitingCall } from '../client/standing-decision';
export type { RulesEntityInput } from '../workflows/rules-entity';
export type { ModelCallContext, ModelProvider, ProviderErrorKind, ProviderErrorOptions } from '../integrations/providers/types';
export type { ModelPrice, PriceTable } from '../integrations/providers/pricing';
export type { BlobStore } from '../integrations/store/blob-store';
export type {
  AgentClientOptions,
  AgentRunOf,
  AwaitingRun,
  ConnectionSettings,
  DeltaFeed,
  DeltaPublisher,
  EventsOptions,
  RunCallsOf,
  RunOptions,
  SessionOption,
  StartOptions,
  StreamEvent,
  StreamOptions,
} from '../client';
export type { AgentRun, AgentClient } from '../client';
export type { ListedRun } from '../core/run/run-views';
export type { ListRunsOptions, RunFilter } from '../client/run-list';
export type { MessageReceipt, UserMessageInput } from '../core/messages/user-messages';
export type { SessionOptions } from '../core/run/contract';
export type { RetrySpec, ToolSpec } from '../core/run/spec';
export type { OptionalPeer } from '../integrations/optional-peer';
export type * from '../core/chat/ui-message-chunks';
export type { ChatCursor } from '../core/chat/cursor';
export type { ChatStreamEvent, TurnTranslatorOptions } from '../core/chat/turn-translator';
export type { ChatTurn, TurnStatus } from '../core/chat/history';
export type {
  ChatAction,
  ChatHandler,
  ChatHandlerOptions,
  ChatIdentity,
  ChatRequestContext,
  ChatRunOptions,
  ChatApprovalsRequest,
  ChatDecision,
  ChatMessageRequest,
  ChatRequest,
} from '../client/chat';
export type {
  ChatHeaders,
  ChatReconnectOptions,
  ChatSendOptions,
  ChatTransportMessage,
  ChatTransportRequestOptions,
  DurableChatTransportOptions,
} from '../browser/chat-transport';
