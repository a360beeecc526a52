/**
 * The rules entity's `announceRules` activity: lists the running agent runs a change concerns (through
 * visibility, with the worker's client) and signals each one `rulesChanged(set)`. A run that has
 * ended meanwhile is skipped; runs ignore versions they have seen, so a second push is harmless.
 */
import { Context } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/client';
import type { AnnounceRulesInput, AnnounceRulesResult, RulesActivities } from '../core/approvals/rule-push';
import { RULES_CHANGED_SIGNAL, runningRunsQuery } from '../core/approvals/rule-push';

/** Signals sent at once. */
const CONCURRENCY = 16;

/** The activity, using the client of the worker that runs it. */
export function createRulesActivities(): RulesActivities {
  return {
    announceRules: async (input) => announce(Context.current().client, input),
  };
}

async function announce(client: Client, { set, agents }: AnnounceRulesInput): Promise<AnnounceRulesResult> {
  const query = runningRunsQuery(agents);
  if (!query) return { signalled: 0, failed: 0 };
  const runs: Array<{ workflowId: string; runId: string }> = [];
  try {
    for await (const w of client.workflow.list({ query })) runs.push({ workflowId: w.workflowId, runId: w.runId });
  } catch (err) {
    if (agents === 'all') throw err;
    // No DurableAgentName in this namespace (search attributes off): tell every running run.
    for await (const w of client.workflow.list({ query: runningRunsQuery('all') })) {
      runs.push({ workflowId: w.workflowId, runId: w.runId });
    }
  }
  let signalled = 0;
  let failed = 0;
  for (let i = 0; i < runs.length; i += CONCURRENCY) {
    Context.current().heartbeat({ done: i });
    const results = await Promise.allSettled(
      runs.slice(i, i + CONCURRENCY).map((r) => client.workflow.getHandle(r.workflowId, r.runId).signal(RULES_CHANGED_SIGNAL, set)),
    );
    for (const r of results) {
      if (r.status === 'fulfilled') signalled++;
      else if (!(r.reason instanceof WorkflowNotFoundError)) failed++;
    }
  }
  return { signalled, failed };
}
