/** Reading a run's events in tests: every page, across continue-as-new boundaries. */
import type { AgentRun } from '../../client';
import type { AgentEvent } from '../../core/events';

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
