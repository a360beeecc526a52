/**
 * A run's stream as server-sent events. Each event's `data` is the stream event as JSON (its `type` says
 * which); durable events carry `id: <seq>`, so a client that reconnects with `Last-Event-ID` (as
 * `EventSource` does) gets every later durable event exactly once; live deltas, running tools'
 * `tool_progress` and `attempt_voided` carry no id (they are not replayed). The response ends after
 * `done`; the connection closing stops reading the run at once.
 */
import type { Context } from 'hono';
import type { SSEStreamingApi } from 'hono/streaming';
import { streamSSE } from 'hono/streaming';
import type { AgentRun } from '../../src/entry/client';
import type { StreamEvent } from '../../src/entry/client';
import { toHttpError } from './errors';

/** How often an idle stream sends a comment, so proxies and clients see the connection is alive. */
export const KEEP_ALIVE_MS = 15_000;

/** Counts the event streams being served (for shutdown and for tests). */
export class StreamTracker {
  private count = 0;
  private readonly stops = new Set<AbortController>();

  /** Streams open now. */
  get open(): number {
    return this.count;
  }

  /** @internal a stream began; returns what ends it. */
  began(stop: AbortController): () => void {
    this.count++;
    this.stops.add(stop);
    return () => {
      this.count--;
      this.stops.delete(stop);
    };
  }

  /** End every open stream (server shutdown). */
  stopAll(): void {
    for (const stop of this.stops) stop.abort();
  }
}

/** A served event stream's lifetime (see {@link beginStream}). */
export interface StreamLifetime {
  /** Aborts when the client goes away, the server stops ({@link StreamTracker.stopAll}) or {@link abort} is called. */
  signal: AbortSignal;
  /** Stop the stream (e.g. a write failed: the connection is gone). */
  abort(): void;
  /** The stream is over: no longer counted, no longer listening. Call once, last. */
  close(): void;
}

/** A stream began: counted by `tracker` and stopped when the client disconnects or the server stops. */
export function beginStream(c: Context, sse: SSEStreamingApi, tracker: StreamTracker): StreamLifetime {
  const stop = new AbortController();
  const ended = tracker.began(stop);
  const abort = () => stop.abort();
  sse.onAbort(abort);
  c.req.raw.signal.addEventListener('abort', abort, { once: true });
  return {
    signal: stop.signal,
    abort,
    close: () => {
      c.req.raw.signal.removeEventListener('abort', abort);
      stop.abort();
      ended();
    },
  };
}

/** The SSE fields of one stream event: durable events (with a `seq`) get their seq as id. */
export function sseMessage(e: StreamEvent): { data: string; id?: string } {
  return 'seq' in e ? { data: JSON.stringify(e), id: String(e.seq) } : { data: JSON.stringify(e) };
}

/**
 * Respond with `run`'s stream from durable event `from` (a seq) on, as server-sent events. A failure
 * while streaming is sent as an `event: error` whose data is the API's error JSON, then the stream ends
 * (`report` gets the failures that are the server's own).
 */
export function streamRun(c: Context, run: AgentRun, from: number, tracker: StreamTracker, report: (err: unknown) => void): Response {
  return streamSSE(c, async (sse) => {
    const stop = beginStream(c, sse, tracker);
    const keepAlive = setInterval(() => void sse.write(': keep-alive\n\n'), KEEP_ALIVE_MS);
    keepAlive.unref();
    try {
      for await (const e of run.stream({ after: from, signal: stop.signal })) {
        if (stop.signal.aborted) break;
        await sse.writeSSE(sseMessage(e));
      }
    } catch (err) {
      if (!stop.signal.aborted) {
        const error = toHttpError(err);
        if (error.code === 'internal') report(err);
        await sse.writeSSE({ event: 'error', data: JSON.stringify(error.body()) });
      }
    } finally {
      clearInterval(keepAlive);
      stop.close();
    }
  });
}
