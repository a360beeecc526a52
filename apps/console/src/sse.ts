/**
 * Server-sent events read with `fetch` (an `EventSource` cannot send the `Authorization` header), parsed
 * by eventsource-parser, reconnected with backoff.
 */
import { createParser } from 'eventsource-parser';
import { apiBase, errorOf } from './api';

/** One server-sent event. */
export interface SseMessage {
  id?: string;
  event?: string;
  data: string;
}

/**
 * Read `path`'s events until the response ends (resolves) or `signal` aborts (resolves too).
 * @throws {ApiError} when the server refuses the request; a network failure as is.
 */
export async function readSse(
  token: string,
  path: string,
  onMessage: (m: SseMessage) => void,
  signal: AbortSignal,
  lastEventId?: string,
  onOpen?: () => void,
): Promise<void> {
  const headers: Record<string, string> = { Authorization: `Bearer ${token}`, Accept: 'text/event-stream' };
  if (lastEventId !== undefined) headers['Last-Event-ID'] = lastEventId;
  let res: Response;
  try {
    res = await fetch(`${apiBase()}${path}`, { headers, signal, cache: 'no-store' });
  } catch (err) {
    if (signal.aborted) return;
    throw err;
  }
  if (!res.ok || !res.body) throw await errorOf(res);
  onOpen?.();
  const parser = createParser({
    onEvent: (e) =>
      onMessage({ data: e.data, ...(e.id !== undefined ? { id: e.id } : {}), ...(e.event !== undefined ? { event: e.event } : {}) }),
  });
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      parser.feed(value);
    }
  } catch (err) {
    if (signal.aborted) return;
    throw err;
  } finally {
    reader.releaseLock();
  }
}

/** Options of {@link followSse}. */
export interface FollowOptions {
  /** Each event. */
  onMessage(m: SseMessage): void;
  /** The connection state: connected, or waiting `retryInMs` to reconnect after `error`. */
  onState?(state: { connected: true } | { connected: false; error: string; retryInMs: number }): void;
  /** The `Last-Event-ID` to reconnect with (read at each connection). */
  lastEventId?(): string | undefined;
  /** Whether to reconnect after the stream ended normally (default true). */
  reconnectAfterEnd?(): boolean;
  /** Errors that must not be retried (e.g. 401: the token is not valid); default: 4xx except 408 and 429. */
  fatal?(err: unknown): boolean;
  onFatal?(err: unknown): void;
}

const BACKOFF_MS = [500, 1000, 2000, 5000, 10000];

/** Follow `path`'s events until `signal` aborts, reconnecting with backoff. */
export async function followSse(token: string, path: string, signal: AbortSignal, options: FollowOptions): Promise<void> {
  let failures = 0;
  const fatal =
    options.fatal ??
    ((err: unknown) =>
      typeof err === 'object' &&
      err !== null &&
      'status' in err &&
      typeof err.status === 'number' &&
      err.status >= 400 &&
      err.status < 500 &&
      err.status !== 408 &&
      err.status !== 429);
  while (!signal.aborted) {
    let error: string;
    try {
      await readSse(token, path, options.onMessage, signal, options.lastEventId?.(), () => {
        failures = 0;
        options.onState?.({ connected: true });
      });
      if (signal.aborted) return;
      if (options.reconnectAfterEnd && !options.reconnectAfterEnd()) return;
      error = 'the stream ended';
    } catch (err) {
      if (signal.aborted) return;
      if (fatal(err)) {
        options.onFatal?.(err);
        return;
      }
      error = err instanceof Error ? err.message : String(err);
    }
    const retryInMs = BACKOFF_MS[Math.min(failures, BACKOFF_MS.length - 1)]!;
    failures++;
    options.onState?.({ connected: false, error, retryInMs });
    await new Promise<void>((resolve) => {
      const t = setTimeout(resolve, retryInMs);
      signal.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
    });
  }
}
