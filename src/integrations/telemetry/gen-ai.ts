/**
 * Names of the spans, attributes and metrics durable-agent emits: the OpenTelemetry GenAI semantic
 * conventions (`gen_ai.*`) where they name the thing, `durable_agent.*` for the rest. Plain constants,
 * no imports: used by workflow code too.
 */

/** GenAI semantic-convention attribute names. */
export const GEN_AI = {
  operation: 'gen_ai.operation.name',
  /** The provider (newer name) and the system (older name): both are set. */
  provider: 'gen_ai.provider.name',
  system: 'gen_ai.system',
  agentName: 'gen_ai.agent.name',
  conversationId: 'gen_ai.conversation.id',
  requestModel: 'gen_ai.request.model',
  requestMaxTokens: 'gen_ai.request.max_tokens',
  responseModel: 'gen_ai.response.model',
  finishReasons: 'gen_ai.response.finish_reasons',
  inputTokens: 'gen_ai.usage.input_tokens',
  outputTokens: 'gen_ai.usage.output_tokens',
  inputMessages: 'gen_ai.input.messages',
  outputMessages: 'gen_ai.output.messages',
  toolName: 'gen_ai.tool.name',
  toolCallId: 'gen_ai.tool.call.id',
  toolType: 'gen_ai.tool.type',
  toolArguments: 'gen_ai.tool.call.arguments',
  toolResult: 'gen_ai.tool.call.result',
  errorType: 'error.type',
} as const;

/** durable-agent's own attribute names (no GenAI convention for them). */
export const AGENT_ATTR = {
  step: 'durable_agent.step',
  attempt: 'durable_agent.attempt',
  costUsd: 'durable_agent.cost_usd',
  cacheReadTokens: 'durable_agent.usage.cache_read_tokens',
  toolOutcome: 'durable_agent.tool.outcome',
  /** Prefix of a tool metric's attribute (`ctx.metrics.set(name, …)`): `durable_agent.tool.metric.<name>`. */
  toolMetricPrefix: 'durable_agent.tool.metric.',
  runStatus: 'durable_agent.run.status',
  approvalDecision: 'durable_agent.approval.decision',
  approvalBy: 'durable_agent.approval.by',
  approvalWaitMs: 'durable_agent.approval.wait_ms',
  /** How a decision reached the run (`sdk`, `cli`, `http`, `console`, `chat`, `temporal`, `rule`, `timeout`, `policy`). */
  approvalPath: 'durable_agent.approval.path',
  approvalRuleId: 'durable_agent.approval.rule.id',
  approvalRuleVersion: 'durable_agent.approval.rule.version',
  /** Who may decide now (escalated, delegated). */
  approvalTo: 'durable_agent.approval.to',
  /** The reason people gave (content: only with `captureContent`). */
  approvalReason: 'durable_agent.approval.reason',
  /** ISO time a deferred approval returns. */
  approvalUntil: 'durable_agent.approval.until',
} as const;

/** GenAI operation names used here. */
export const OPERATION = { invokeAgent: 'invoke_agent', chat: 'chat', executeTool: 'execute_tool' } as const;

/** Span names: `<operation> <subject>`, as the GenAI conventions name them. */
export const spanName = {
  invokeAgent: (agent: string): string => `${OPERATION.invokeAgent} ${agent}`,
  chat: (model: string): string => `${OPERATION.chat} ${model}`,
  executeTool: (tool: string): string => `${OPERATION.executeTool} ${tool}`,
  approval: (tool: string): string => `approval ${tool}`,
};

/** Names of the agent metrics (Prometheus adds `_total` to counters and unit suffixes as it exports). */
export const METRIC = {
  tokens: 'durable_agent_tokens',
  costUsd: 'durable_agent_cost_usd',
  steps: 'durable_agent_steps',
  modelLatency: 'durable_agent_model_call_latency',
  toolLatency: 'durable_agent_tool_latency',
  approvalsRequested: 'durable_agent_approvals_requested',
  approvalsClosed: 'durable_agent_approvals_closed',
  approvalWait: 'durable_agent_approval_wait',
  notificationsFailed: 'durable_agent_notifications_failed',
} as const;

/** Name of the tracer (instrumentation scope) of durable-agent's own spans. */
export const TRACER_NAME = 'durable-agent';
