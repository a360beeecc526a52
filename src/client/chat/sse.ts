/** The UI message stream as server-sent events (`data: <chunk JSON>`, `id: <cursor>`, `data: [DONE]`). */
import type { CursoredChunk } from '../../core/chat/ui-message-chunks';

/** The response headers of a UI message stream (the AI SDK's `UI_MESSAGE_STREAM_HEADERS`). */
export const UI_MESSAGE_STREAM_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache',
  connection: 'keep-alive',
  'x-vercel-ai-ui-message-stream': 'v1',
  'x-accel-buffering': 'no',
};

/** How often an idle stream sends a comment, so proxies and clients see the connection is alive. */
export const CHAT_KEEP_ALIVE_MS = 15_000;

/** One chunk as an SSE event. */
export function sseEvent(c: CursoredChunk): string {
  return `id: ${c.cursor}\ndata: ${JSON.stringify(c.chunk)}\n\n`;
}

/**
 * A byte stream of SSE events from `chunks`, with keep-alive comments, ending `data: [DONE]`. Cancelling
 * it (the client went away) aborts `stop`.
 */
export function sseStream(
  chunks: AsyncIterable<CursoredChunk>,
  stop: AbortController,
  onError: (err: unknown) => string | undefined,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let keepAlive: ReturnType<typeof setInterval> | undefined;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      const write = (text: string) => {
        try {
          controller.enqueue(encoder.encode(text));
        } catch {
          stop.abort();
        }
      };
      write(': stream-open\n\n');
      keepAlive = setInterval(() => write(': keep-alive\n\n'), CHAT_KEEP_ALIVE_MS);
      (keepAlive as { unref?: () => void }).unref?.();
      void (async () => {
        try {
          for await (const c of chunks) {
            if (stop.signal.aborted) break;
            write(sseEvent(c));
          }
          if (!stop.signal.aborted) write('data: [DONE]\n\n');
        } catch (err) {
          const text = stop.signal.aborted ? undefined : onError(err);
          if (text !== undefined) write(`data: ${JSON.stringify({ type: 'error', errorText: text })}\n\n`);
        } finally {
          clearInterval(keepAlive);
          stop.abort();
          try {
            controller.close();
          } catch {
            // already closed or cancelled
          }
        }
      })();
    },
    cancel() {
      clearInterval(keepAlive);
      stop.abort();
    },
  });
}
