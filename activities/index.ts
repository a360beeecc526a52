import type { AgentActivities } from '../core/contract';
import type { PriceTable } from '../providers/pricing';
import type { AgentRegistry } from '../agents/registry';
import type { TranscriptStore } from '../store/transcript-store';
import { checkApprovalsActivity } from './approvals';
import { describeAgentActivity } from './describe';
import type { ProviderRegistry } from './model';
import { callModelActivity } from './model';
import { withStore } from './storage';
import { runToolActivity } from './tool';

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
}): AgentActivities {
  return {
    describeAgent: describeAgentActivity(deps.registry, deps.store, deps.searchAttributes ?? false),
    callModel: callModelActivity(deps.providers, deps.store, deps.prices),
    runTool: runToolActivity(deps.registry, deps.store),
    commitTranscript: (input) => withStore('store the last messages of the transcript', () => deps.store.append(input.head, input.append)),
    checkApprovals: checkApprovalsActivity(deps.registry),
  };
}
