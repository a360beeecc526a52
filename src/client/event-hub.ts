/**
 * One poller of a run's durable events for all the readers of a process: a hundred readers of one run
 * (an HTTP server's SSE clients, say) cost Temporal one `events` query per poll, not a hundred. Readers
 * at or after where the shared poller started read from its window of recent events; a reader further
 * back reads on its own.
 */
import type { AgentEvent } from '../core/events/events';
import { ABORTED, untilAborted } from './abortable';

/** What the hub needs of a run: its identity and a private follower of its events. */
export interface FollowedRun {
  /** Runs with one key read the same events (the workflow id, and the execution when one is pinned). */
  readonly followKey: string;
  ownEvents(options: { from?: number; pollMs?: number; signal?: AbortSignal }): AsyncIterable<AgentEvent>;
}

/** Events kept in a shared window: readers behind it read on their own. */
export const SHARED_WINDOW_EVENTS = 10_000;

/** Shares followers of runs' durable events among readers (one hub per client). */
export class EventHub {
  private readonly tails = new Map<string, SharedTail>();

  /** The run's events from `from`, through the run's shared follower when one covers `from`. */
  async *follow(run: FollowedRun, options: { from?: number; pollMs?: number; signal?: AbortSignal }): AsyncGenerator<AgentEvent> {
    const key = run.followKey;
    const from = options.from ?? 0;
    let tail = this.tails.get(key);
    if (tail && !tail.covers(from)) {
      yield* run.ownEvents(options);
      return;
    }
    if (!tail) {
      const created = new SharedTail(run, from, options.pollMs ?? 200, () => {
        if (this.tails.get(key) === created) this.tails.delete(key);
      });
      tail = created;
      this.tails.set(key, tail);
    }
    yield* tail.read(from, options.signal);
  }
}

/** One run's shared follower: a window of its newest events, polled while someone reads. */
class SharedTail {
  private readonly events: AgentEvent[] = [];
  private base: number;
  private next: number;
  private ended = false;
  private failure: unknown;
  private readers = 0;
  private readonly waiting = new Set<() => void>();
  private readonly stop = new AbortController();
  private polling: Promise<void> | undefined;

  constructor(
    private readonly run: FollowedRun,
    from: number,
    private readonly pollMs: number,
    private readonly onIdle: () => void,
  ) {
    this.base = from;
    this.next = from;
  }

  /** Whether a reader at `cursor` can read from this window. */
  covers(cursor: number): boolean {
    return !this.stop.signal.aborted && cursor >= this.base && cursor <= this.next;
  }

  async *read(from: number, signal?: AbortSignal): AsyncGenerator<AgentEvent> {
    this.readers++;
    this.polling ??= this.poll();
    let cursor = from;
    try {
      for (;;) {
        if (signal?.aborted) return;
        if (cursor < this.base) {
          // Fell behind the window: read on privately.
          yield* this.run.ownEvents({ from: cursor, pollMs: this.pollMs, ...(signal ? { signal } : {}) });
          return;
        }
        while (cursor < this.next) {
          const e = this.events[cursor - this.base]!;
          cursor++;
          yield e;
          if (signal?.aborted) return;
        }
        if (this.failure !== undefined) throw this.failure;
        if (this.ended) return;
        if ((await untilAborted(this.changed(), signal)) === ABORTED) return;
      }
    } finally {
      if (--this.readers === 0) {
        this.stop.abort();
        this.onIdle();
      }
    }
  }

  /** Resolves when events arrive, or the run ends, or polling fails. */
  private changed(): Promise<void> {
    return new Promise((resolve) => this.waiting.add(resolve));
  }

  private wake(): void {
    const waiting = [...this.waiting];
    this.waiting.clear();
    for (const resolve of waiting) resolve();
  }

  private async poll(): Promise<void> {
    try {
      for await (const e of this.run.ownEvents({ from: this.next, pollMs: this.pollMs, signal: this.stop.signal })) {
        this.events.push(e);
        this.next = e.seq + 1;
        if (this.events.length > SHARED_WINDOW_EVENTS) {
          const drop = this.events.length - SHARED_WINDOW_EVENTS;
          this.events.splice(0, drop);
          this.base += drop;
        }
        this.wake();
      }
      if (!this.stop.signal.aborted) this.ended = true;
    } catch (err) {
      this.failure = err;
    }
    this.wake();
  }
}
