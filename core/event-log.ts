import type { AgentEvent, AgentEventBody, EventPage } from './events';

/** Default and maximum page size of event reads. */
export const EVENT_PAGE_MAX = 500;

/** An append-only log of run events, read by cursor. */
export class EventLog {
  private readonly events: AgentEvent[] = [];

  /**
   * @param now returns the current time (in a workflow, the deterministic workflow clock).
   * @param earlier where the events before this log's first are (a run that continued as new): their
   * count, and the execution that holds them.
   */
  constructor(
    private readonly now: () => Date,
    private readonly earlier?: { count: number; runId: string },
  ) {}

  /** Append events, numbering and stamping them (numbers go on from the earlier executions'). */
  push(...bodies: AgentEventBody[]): void {
    const at = this.now().toISOString();
    for (const body of bodies) this.events.push({ ...body, seq: this.offset + this.events.length, at });
  }

  /** The number of the first event in this log. */
  get offset(): number {
    return this.earlier?.count ?? 0;
  }

  /** Number of events so far, the earlier executions' included. */
  get size(): number {
    return this.offset + this.events.length;
  }

  /** Events from `cursor` on, at most `limit` of them. */
  page(cursor = 0, limit = EVENT_PAGE_MAX): EventPage {
    const from = Math.max(0, Math.floor(Number.isFinite(cursor) ? cursor : 0));
    if (this.earlier && from < this.earlier.count) return { events: [], next: from, done: false, earlier: { runId: this.earlier.runId, before: this.earlier.count } };
    const size = Math.max(1, Math.min(EVENT_PAGE_MAX, Math.floor(Number.isFinite(limit) ? limit : EVENT_PAGE_MAX)));
    const events = this.events.slice(from - this.offset, from - this.offset + size);
    const next = from + events.length;
    const done = next >= this.size && this.events.some((e) => e.type === 'done');
    return { events, next, done };
  }
}
