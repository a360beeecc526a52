/**
 * `GET /approvals/events`: the live approval inbox as server-sent events. An `inbox` event carries the
 * whole inbox as the caller sees it (`{ runs }`, as `GET /approvals` answers) at connect and whenever it
 * changes; a comment every 15 s keeps the connection alive. Every stream shares the API's one poller.
 */
import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { Caller } from './auth';
import type { InboxPoller } from './approval-inbox';
import { inboxFor } from './approval-inbox';
import type { StreamTracker } from './sse';
import { beginStream, KEEP_ALIVE_MS } from './sse';

/** Respond with the inbox of `caller` as server-sent events until the client goes away or the server stops. */
export function streamInbox(c: Context, caller: Caller, poller: InboxPoller, tracker: StreamTracker): Response {
  return streamSSE(c, async (sse) => {
    const stop = beginStream(c, sse, tracker);
    let last = '';
    let writing = Promise.resolve();
    const write = (send: () => Promise<unknown>) => {
      writing = writing.then(send).then(
        () => undefined,
        () => stop.abort(), // the connection is gone
      );
    };
    const unsubscribe = poller.subscribe((runs) => {
      const data = JSON.stringify(inboxFor(runs, caller));
      if (data === last) return;
      last = data;
      write(() => sse.writeSSE({ event: 'inbox', data }));
    });
    const keepAlive = setInterval(() => write(() => sse.write(': keep-alive\n\n')), KEEP_ALIVE_MS);
    keepAlive.unref();
    try {
      if (!stop.signal.aborted)
        await new Promise<void>((resolve) => stop.signal.addEventListener('abort', () => resolve(), { once: true }));
    } finally {
      clearInterval(keepAlive);
      unsubscribe();
      stop.close();
    }
  });
}
