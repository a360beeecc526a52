import type { AgentEvent, AgentEventBody, EventPage } from './events';

/** Default and maximum page size of event reads. */
export const EVENT_PAGE_MAX = 500;

/** An append-only log of run events, read by cursor. */
export class EventLog {
  private readonly events: AgentEvent[] = [];

  /** @param now returns the current time (in a workflow, the deterministic workflow clock). */
  constructor(private readonly now: () => Date) {}

  /** Append events, numbering and stamping them. */
  push(...bodies: AgentEventBody[]): void {
    const at = this.now().toISOString();
    for (const body of bodies) this.events.push({ ...body, seq: this.events.length, at });
  }

  /** Number of events so far. */
  get size(): number {
    return this.events.length;
  }

  /** Events from `cursor` on, at most `limit` of them. */
  page(cursor = 0, limit = EVENT_PAGE_MAX): EventPage {
    const from = Math.max(0, Math.floor(Number.isFinite(cursor) ? cursor : 0));
    const size = Math.max(1, Math.min(EVENT_PAGE_MAX, Math.floor(Number.isFinite(limit) ? limit : EVENT_PAGE_MAX)));
    const events = this.events.slice(from, from + size);
    const next = from + events.length;
    const done = next >= this.events.length && this.events.some((e) => e.type === 'done');
    return { events, next, done };
  }
}
