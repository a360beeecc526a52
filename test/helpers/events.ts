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
