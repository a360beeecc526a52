/** Reading a run's events in tests: every page, across continue-as-new boundaries. */
import type { AgentRun } from '../../client';
import type { AgentEvent } from '../../core/events';
import type { AgentRunResult } from '../../core/result';

/** Every event the run has logged so far, page after page. */
export async function allEvents(run: AgentRun): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  for (let cursor = 0; ; ) {
    const page = await run.readEvents(cursor);
    events.push(...page.events);
    if (page.events.length === 0) return events;
    cursor = page.next;
  }
}

/** The calls waiting for a person, once at least one waits (polls up to 10 s). */
export async function waitForPending(run: AgentRun): Promise<Awaited<ReturnType<AgentRun['pendingApprovals']>>> {
  for (let i = 0; i < 200; i++) {
    const pending = await run.pendingApprovals();
    if (pending.length) return pending;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${run.workflowId}: no call waits for a person`);
}

/**
 * The run's result, or (after `ms`) a failure that says where the run stands: its status, pending
 * activities and last history events — so a stalled run in CI explains itself.
 */
export async function resultWithin(run: AgentRun, ms = 40_000): Promise<AgentRunResult> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), ms)));
  try {
    const first = await Promise.race([run.result(), late]);
    if (first !== 'late') return first;
  } finally {
    clearTimeout(timer);
  }
  const d = await run.handle.describe();
  const history = await run.handle.fetchHistory();
  const last = (history.events ?? []).slice(-12).map((e) => `${e.eventId} ${String(e.eventType)}`);
  const pending = (d.raw.pendingActivities ?? []).map((a) => `${a.activityType?.name} attempt ${a.attempt} state ${String(a.state)}${a.lastFailure?.message ? ` (${a.lastFailure.message})` : ''}`);
  throw new Error(`${run.workflowId}: no result within ${ms} ms; status ${d.status.name}, ${d.historyLength} events; pending: ${pending.join('; ') || 'none'}; last events: ${last.join(', ')}`);
}
