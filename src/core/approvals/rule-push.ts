/** The rules entity's push to running agent runs: which runs, and the activity's contract. */
import type { RuleSet } from './rules';

/** Name of the agent workflow's `rulesChanged` signal (`rulesChangedSignal`). */
export const RULES_CHANGED_SIGNAL = 'rulesChanged';

/** The search attribute holding a run's agent (`AGENT_NAME`). */
export const AGENT_NAME_ATTRIBUTE = 'DurableAgentName';

/** Runs told of a change: those of the agents named, or every running agent run (`all`). */
export type RulePushTargets = 'all' | string[];

/** Input of the `announceRules` activity. */
export interface AnnounceRulesInput {
  set: RuleSet;
  agents: RulePushTargets;
}

/** What the `announceRules` activity did: how many runs it signalled, and how many it could not. */
export interface AnnounceRulesResult {
  signalled: number;
  failed: number;
}

/** The rules entity's activity. */
export interface RulesActivities {
  announceRules(input: AnnounceRulesInput): Promise<AnnounceRulesResult>;
}

/** Visibility query of the running agent runs `agents` names (`DurableAgentName` holds the agent when search attributes are registered). */
export function runningRunsQuery(agents: RulePushTargets): string {
  const running = `WorkflowType = 'agentWorkflow' AND ExecutionStatus = 'Running'`;
  if (agents === 'all') return running;
  if (!agents.length) return '';
  const names = agents.map((a) => `'${a.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`).join(', ');
  return `${running} AND ${AGENT_NAME_ATTRIBUTE} IN (${names})`;
}
