import type { AgentActivities } from '../core/run/contract';
import type { ContextWindowTable } from '../integrations/providers/context-windows';
import type { PriceTable } from '../integrations/providers/pricing';
import type { AgentRegistry } from '../agents/registry';
import type { TranscriptStore } from '../integrations/store/transcript-store';
import { aggregateResultsActivity } from './aggregate';
import { checkApprovalsActivity } from './approvals';
import { compactContextActivity } from './compact';
import { checkGuardrailsActivity } from './guardrails';
import { describeAgentActivity } from './describe';
import type { LiveOptions, ProviderRegistry } from './model';
import { callModelActivity } from './model';
import { withStore } from './storage';
import type { RedactorSource } from './redaction';
import { runToolActivity } from './tool';
import type { McpCatalog } from '../integrations/mcp/tools';
import type { NotificationsOptions } from '../integrations/webhooks/deliver';
import { notifySpecOf } from '../integrations/webhooks/deliver';
import { notifyActivity } from './notify';
import type { RulesActivities } from '../core/approvals/rule-push';
import { createRulesActivities } from './rules';

export type { ProviderRegistry } from './model';

/** The activities of the agent workflow, bound to a worker's agents, providers and store. */
export function createActivities(deps: {
  registry: AgentRegistry;
  providers: ProviderRegistry;
  store: TranscriptStore;
  /** The worker registered durable-agent's search attributes. */
  searchAttributes?: boolean;
  /** USD prices per model, for the cost of each model call. */
  prices?: PriceTable;
  /** Context windows by model id, for agents that do not name theirs. */
  contextWindows?: ContextWindowTable;
  /** Where streaming model calls send their deltas. */
  live?: LiveOptions;
  /** The worker's MCP tools (agents declaring `mcp`). */
  mcp?: McpCatalog;
  /** The worker's secrets, redacted from model answers, tool outputs and summaries before they are stored. */
  redact?: RedactorSource;
  /** The worker's approval notifications (webhooks). */
  notifications?: NotificationsOptions;
}): AgentActivities & RulesActivities {
  const describe = describeAgentActivity(
    deps.registry,
    deps.store,
    deps.searchAttributes ?? false,
    deps.contextWindows,
    deps.mcp,
    deps.providers,
  );
  const notify = notifySpecOf(deps.notifications);
  return {
    // Runs record which webhooks they notify (names and events only).
    describeAgent: notify ? async (input) => ({ ...(await describe(input)), notify }) : describe,
    callModel: callModelActivity(deps.providers, deps.store, deps.prices, deps.live, deps.registry, deps.redact),
    compactContext: compactContextActivity(deps.providers, deps.store, deps.prices, deps.redact),
    runTool: runToolActivity(deps.registry, deps.store, deps.mcp, deps.redact, deps.live),
    commitTranscript: (input) => withStore('store the last messages of the transcript', () => deps.store.append(input.head, input.append)),
    recordEvents: async () => undefined,
    checkApprovals: checkApprovalsActivity(deps.registry, deps.mcp),
    checkGuardrails: checkGuardrailsActivity(deps.registry, deps.store),
    aggregateResults: aggregateResultsActivity(deps.registry),
    notify: notifyActivity(deps.notifications?.webhooks ?? [], deps.redact),
    // The rules entity's push (runs on every worker: the entity's queue is polled by each).
    ...createRulesActivities(),
  };
}
