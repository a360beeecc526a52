import type { AgentEvent, AgentEventBody, EventPage } from './events';

import { jsonBytes } from '../messages/json';

/** Default page size of event reads. */
export const EVENT_PAGE_MAX = 500;

/**
 * Largest page a read may ask for: reading a closed execution (a run that continued as new) makes a
 * worker replay it, so such reads ask for all of it at once, within {@link EVENT_PAGE_BYTES}.
 */
export const EVENT_PAGE_LIMIT = 10_000;

/** A page holds at most this many bytes of events (at least one event), well under Temporal's payload limit. */
export const EVENT_PAGE_BYTES = 1.5 * 1024 * 1024;

/** Earlier executions the log can point a reader to directly: the most recent ones are kept. */
export const EXECUTION_CHAIN_MAX = 1_000;

/** Events an execution hands the next one (the newest), at most this many… */
export const TAIL_EVENTS = 500;
/** …and this many bytes. */
export const TAIL_BYTES = 128 * 1024;

/** An earlier execution of a run: its run id and the number of its first event. */
export interface ExecutionStart {
  runId: string;
  from: number;
}

/** An append-only log of run events, read by cursor. */
export class EventLog {
  private readonly events: AgentEvent[] = [];

  /**
   * @param now returns the current time (in a workflow, the deterministic workflow clock).
   * @param earlier where the events before this log's first are (a run that continued as new): their
   * count, the execution that holds the last of them, and (when known) where every earlier execution
   * starts, so a reader goes straight to the one holding its cursor.
   */
  constructor(
    private readonly now: () => Date,
    private readonly earlier?: { count: number; runId: string; chain?: readonly ExecutionStart[]; tail?: readonly AgentEvent[] },
  ) {
    // The newest events of the previous execution, carried over: a reader slightly behind at the switch
    // reads them here instead of making a worker replay the closed execution.
    const tail = earlier?.tail ?? [];
    if (tail.length && tail.every((e, i) => e.seq === earlier!.count - tail.length + i)) this.events.push(...tail);
  }

  /** The newest events (at most {@link TAIL_EVENTS} and {@link TAIL_BYTES}) for the next execution to carry. */
  tail(): AgentEvent[] {
    const out: AgentEvent[] = [];
    let bytes = 0;
    for (let i = this.events.length - 1; i >= 0 && out.length < TAIL_EVENTS; i--) {
      bytes += jsonBytes(this.events[i]);
      if (bytes > TAIL_BYTES) break;
      out.push(this.events[i]!);
    }
    return out.reverse();
  }

  /** The earlier executions as the next execution should know them (this one, `runId`, included). */
  chain(runId: string): ExecutionStart[] {
    const known = this.earlier?.chain ?? [];
    return [...known, { runId, from: this.offset }].slice(-EXECUTION_CHAIN_MAX);
  }

  /** Append events, numbering and stamping them (numbers go on from the earlier executions'). */
  push(...bodies: AgentEventBody[]): void {
    const at = this.now().toISOString();
    for (const body of bodies) this.events.push({ ...body, seq: this.offset + this.events.length, at });
  }

  /** The number of the first event in this log (carried tail included). */
  get offset(): number {
    return (this.earlier?.count ?? 0) - this.carried;
  }

  private get carried(): number {
    const tail = this.earlier?.tail ?? [];
    return tail.length && this.events[0] === tail[0] ? tail.length : 0;
  }

  /** Number of events so far, the earlier executions' included. */
  get size(): number {
    return this.offset + this.events.length;
  }

  /**
   * Events from `cursor` on: at most `limit` of them (up to {@link EVENT_PAGE_LIMIT}) and
   * {@link EVENT_PAGE_BYTES}. A cursor before this execution's first event gets the execution that holds it.
   */
  page(cursor = 0, limit = EVENT_PAGE_MAX): EventPage {
    const from = Math.max(0, Math.floor(Number.isFinite(cursor) ? cursor : 0));
    if (this.earlier && from < this.offset) return { events: [], next: from, done: false, earlier: this.holder(from) };
    const size = Math.max(1, Math.min(EVENT_PAGE_LIMIT, Math.floor(Number.isFinite(limit) ? limit : EVENT_PAGE_MAX)));
    const events: AgentEvent[] = [];
    let bytes = 0;
    for (const e of this.events.slice(from - this.offset, from - this.offset + size)) {
      bytes += jsonBytes(e);
      if (events.length > 0 && bytes > EVENT_PAGE_BYTES) break;
      events.push(e);
    }
    const next = from + events.length;
    const done = next >= this.size && this.events.some((e) => e.type === 'done');
    return { events, next, done };
  }

  /** The earlier execution holding event `seq`: from the chain when known, else the previous one. */
  private holder(seq: number): { runId: string; before: number } {
    return earlierHolder(this.earlier!, seq);
  }

  /**
   * This execution's events as the `recordEvents` activity records them in history when the execution
   * closes (so they can be read with no worker): chunks of at most {@link EVENT_PAGE_BYTES} (at least one
   * event each); the first says where earlier events are.
   */
  record(): RecordedEvents[] {
    const earlier = this.earlier
      ? { count: this.earlier.count, runId: this.earlier.runId, ...(this.earlier.chain ? { chain: [...this.earlier.chain] } : {}) }
      : undefined;
    const chunks: RecordedEvents[] = [];
    let current: AgentEvent[] = [];
    let bytes = 0;
    let first = this.offset;
    const flush = () => {
      chunks.push({ recordedEvents: chunks.length, first, events: current, ...(chunks.length === 0 && earlier ? { earlier } : {}) });
      first += current.length;
      current = [];
      bytes = 0;
    };
    for (const e of this.events) {
      const size = jsonBytes(e);
      if (current.length > 0 && bytes + size > EVENT_PAGE_BYTES) flush();
      current.push(e);
      bytes += size;
    }
    flush();
    return chunks;
  }
}

/** What an execution that closed recorded of its event log (the input of one `recordEvents` activity). */
export interface RecordedEvents {
  /** The chunk's number (0 first). */
  recordedEvents: number;
  /** The `seq` of the first of `events`. */
  first: number;
  events: AgentEvent[];
  /** The first chunk of an execution that continued another: where the events before `first` are. */
  earlier?: { count: number; runId: string; chain?: ExecutionStart[] };
}

/** The earlier execution holding event `seq`: from the chain when known, else the previous one. */
function earlierHolder(
  earlier: { count: number; runId: string; chain?: readonly ExecutionStart[] },
  seq: number,
): { runId: string; before: number } {
  const chain = earlier.chain ?? [];
  for (let i = chain.length - 1; i >= 0; i--) {
    const start = chain[i]!;
    if (start.from <= seq) return { runId: start.runId, before: chain[i + 1]?.from ?? earlier.count };
  }
  // Older than the chain remembers: its oldest execution points further back.
  return chain.length
    ? { runId: chain[0]!.runId, before: chain[1]?.from ?? earlier.count }
    : { runId: earlier.runId, before: earlier.count };
}

/**
 * A page of a closed execution's events from what it recorded (its `recordEvents` chunks, in order), as
 * {@link EventLog.page} would have answered it.
 */
export function recordedPage(chunks: readonly RecordedEvents[], cursor = 0, limit = EVENT_PAGE_MAX): EventPage {
  const from = Math.max(0, Math.floor(Number.isFinite(cursor) ? cursor : 0));
  const start = chunks[0]?.first ?? 0;
  const earlier = chunks[0]?.earlier;
  if (earlier && from < start) return { events: [], next: from, done: false, earlier: earlierHolder(earlier, from) };
  const all = chunks.flatMap((c) => c.events);
  const size = Math.max(1, Math.min(EVENT_PAGE_LIMIT, Math.floor(Number.isFinite(limit) ? limit : EVENT_PAGE_MAX)));
  const events: AgentEvent[] = [];
  let bytes = 0;
  for (const e of all.slice(Math.max(0, from - start), Math.max(0, from - start) + size)) {
    bytes += jsonBytes(e);
    if (events.length > 0 && bytes > EVENT_PAGE_BYTES) break;
    events.push(e);
  }
  const next = Math.max(from, start) + events.length;
  const done = next >= start + all.length && all.some((e) => e.type === 'done');
  return { events, next, done };
}
