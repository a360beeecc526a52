/**
 * Transports of live deltas from workers to clients. Deltas never go through workflow history: a
 * publisher (worker side) gets every delta as a model streams and every progress update of a running
 * tool; a feed (client side) follows one run's.
 * Durable step-level events still come from the workflow (the `events` query).
 */
import type { LiveDelta } from '../../core/events/stream';

/**
 * Worker side: receives each delta of every streaming model call, and each progress update of every
 * running tool call (`callId` set; a few per second per call at most). Must never throw or block the call.
 */
export interface DeltaPublisher {
  /** Take one delta (buffered or sent at once). */
  publish(delta: LiveDelta): void;
  /** Send what is buffered and release connections. */
  close(): Promise<void>;
}

/** Options of a feed subscription. */
export interface FollowOptions {
  /** Stop following (the iteration ends promptly). */
  signal?: AbortSignal;
}

/** Client side: the live deltas of one run, as they come (possibly with gaps: numbers tell). */
export interface DeltaFeed {
  /** The run's deltas from now on, until `options.signal` aborts. */
  follow(workflowId: string, options?: FollowOptions): AsyncIterable<LiveDelta>;
}
