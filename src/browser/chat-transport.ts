/**
 * `DurableChatTransport`: the AI SDK's `ChatTransport` for a durable chat (the handler of
 * `durable-agent/chat`). Runs in the browser: `fetch` and streams only.
 *
 * - `sendMessages` POSTs only what the server needs (the last message: the user's new text, or the
 *   approvals just answered) and returns the answer's chunks. If the connection drops mid-turn it
 *   reconnects by itself after the last chunk it got (`?after=<cursor>`): nothing twice, nothing missing.
 * - `reconnectToStream` (a page load, `resumeStream()`) gets the turn in progress from its start (a replay:
 *   `resumeStreamIsReplay`), or `null` when none is. With `body: { waitForDecision: true }` it waits
 *   while the turn waits for a person, and returns the continuation once someone decided (anywhere).
 */
import type { ChatTransport, UIMessage, UIMessageChunk } from 'ai' with { 'resolution-mode': 'import' };
import type { CursoredChunk } from '../core/chat/ui-message-chunks';
import { SseChunkParser } from './sse-chunks';

/** Headers, or a function giving them per request (e.g. a fresh token). */
export type ChatHeaders =
  Record<string, string> | Headers | (() => Record<string, string> | Headers | Promise<Record<string, string> | Headers>);

/** Options of a {@link DurableChatTransport}. */
export interface DurableChatTransportOptions {
  /** Where the chat handler is mounted. Default `/api/chat`. */
  api?: string;
  /** Headers sent with every request (e.g. `authorization`). */
  headers?: ChatHeaders;
  /** `fetch`'s credentials mode (cookies). Default the browser's (`same-origin`). */
  credentials?: NonNullable<RequestInit['credentials']>;
  /** The `fetch` to use. Default the global one. */
  fetch?: typeof fetch;
  /** How many times a dropped answer is reconnected in a row before the chat shows an error. Default 20. */
  maxReconnects?: number;
  /** Wait before a reconnect (doubling, at most 5 s). Default 250 ms. */
  reconnectDelayMs?: number;
}

/** The options `sendMessages` gets (as the AI SDK passes them). */
type SendOptions<M extends UIMessage> = Parameters<ChatTransport<M>['sendMessages']>[0];
/** The options `reconnectToStream` gets. */
type ReconnectOptions<M extends UIMessage> = Parameters<ChatTransport<M>['reconnectToStream']>[0];

/** A refusal or failure of the chat handler, with its HTTP status and error code. */
export class ChatHttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string | undefined,
    message: string,
  ) {
    super(message);
    this.name = 'ChatHttpError';
  }
}

/** The AI SDK `ChatTransport` of a durable chat (see the module comment). */
export class DurableChatTransport<M extends UIMessage = UIMessage> implements ChatTransport<M> {
  /** Reconnects (page loads) replay the turn from its start. */
  readonly resumeStreamIsReplay = true;
  private readonly api: string;
  /** Waits for a decision, by chat: a message sent in the chat ends them (its own answer streams instead). */
  private readonly waits = new Map<string, AbortController>();

  constructor(private readonly options: DurableChatTransportOptions = {}) {
    this.api = (options.api ?? '/api/chat').replace(/\/+$/, '');
  }

  /** Send the last message (a user message, or approval answers) and stream the answer. */
  async sendMessages(options: SendOptions<M>): Promise<ReadableStream<UIMessageChunk>> {
    this.waits.get(options.chatId)?.abort();
    const last = options.messages[options.messages.length - 1];
    const response = await this.request(this.api, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(await this.headersOf(options.headers)) },
      body: JSON.stringify({
        ...(options.body ?? {}),
        id: options.chatId,
        messages: last ? [last] : [],
        trigger: options.trigger,
        messageId: options.messageId,
      }),
      ...(options.abortSignal ? { signal: options.abortSignal } : {}),
    });
    if (!response.body) throw new ChatHttpError(response.status, undefined, 'the chat answered with no body');
    return this.chunks(options.chatId, response, options.abortSignal, options.headers);
  }

  /** The turn in progress from its start, or null when none is (see the module comment for `waitForDecision`). */
  async reconnectToStream(options: ReconnectOptions<M>): Promise<ReadableStream<UIMessageChunk> | null> {
    const wait = Boolean((options.body as { waitForDecision?: unknown } | undefined)?.waitForDecision);
    const url = `${this.api}/${encodeURIComponent(options.chatId)}/stream${wait ? '?wait=decision' : ''}`;
    const stop = new AbortController();
    const onAbort = () => stop.abort();
    options.abortSignal?.addEventListener('abort', onAbort, { once: true });
    if (wait) {
      this.waits.get(options.chatId)?.abort();
      this.waits.set(options.chatId, stop);
    }
    try {
      for (;;) {
        const response = await this.request(url, { method: 'GET', headers: await this.headersOf(options.headers), signal: stop.signal });
        if (response.status === 204) {
          // Still waiting for a person after the server's long poll: ask again.
          if (wait && !stop.signal.aborted && response.headers.get('x-durable-chat-waiting') === '1') continue;
          return null;
        }
        if (!response.body) return null;
        return this.chunks(options.chatId, response, options.abortSignal, options.headers);
      }
    } catch (err) {
      if (stop.signal.aborted && !options.abortSignal?.aborted) return null;
      throw err;
    } finally {
      options.abortSignal?.removeEventListener('abort', onAbort);
      if (this.waits.get(options.chatId) === stop) this.waits.delete(options.chatId);
    }
  }

  private async headersOf(extra: Record<string, string> | Headers | undefined): Promise<Record<string, string>> {
    const own = typeof this.options.headers === 'function' ? await this.options.headers() : this.options.headers;
    return { ...plain(own), ...plain(extra) };
  }

  private async request(url: string, init: RequestInit): Promise<Response> {
    const f = this.options.fetch ?? globalThis.fetch.bind(globalThis);
    const response = await f(url, { ...init, ...(this.options.credentials ? { credentials: this.options.credentials } : {}) });
    if (response.ok) return response;
    let code: string | undefined;
    let message = `${response.status} ${response.statusText}`.trim();
    try {
      const body = (await response.json()) as { error?: unknown; message?: unknown };
      if (typeof body.error === 'string') code = body.error;
      if (typeof body.message === 'string') message = body.message;
    } catch {
      // not JSON
    }
    throw new ChatHttpError(response.status, code, message);
  }

  /** The chunks of a response, reconnected after the last cursor whenever the connection drops before `finish`. */
  private chunks(
    chatId: string,
    first: Response,
    signal: AbortSignal | undefined,
    headers: Record<string, string> | Headers | undefined,
  ): ReadableStream<UIMessageChunk> {
    let response: Response | undefined = first;
    let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
    let parser = new SseChunkParser();
    let cursor: string | undefined;
    let finished = false;
    let reconnects = 0;
    let reconnecting = false;
    const stop = new AbortController();
    signal?.addEventListener('abort', () => stop.abort(), { once: true });
    const max = this.options.maxReconnects ?? 20;
    const baseDelay = this.options.reconnectDelayMs ?? 250;

    const reconnect = async (): Promise<boolean> => {
      if (!cursor || finished || stop.signal.aborted || reconnects >= max) return false;
      const delay = Math.min(5000, baseDelay * 2 ** reconnects++);
      await new Promise((resolve) => setTimeout(resolve, delay));
      if (stop.signal.aborted) return false;
      try {
        const url = `${this.api}/${encodeURIComponent(chatId)}/stream?after=${encodeURIComponent(cursor)}`;
        const r = await this.request(url, { method: 'GET', headers: await this.headersOf(headers), signal: stop.signal });
        if (r.status === 204 || !r.body) return false;
        response = r;
        reader = undefined;
        parser = new SseChunkParser();
        reconnecting = true;
        return true;
      } catch (err) {
        if (err instanceof ChatHttpError && err.status < 500) throw err;
        return reconnect();
      }
    };

    return new ReadableStream<UIMessageChunk>({
      pull: async (controller) => {
        for (;;) {
          if (stop.signal.aborted) {
            controller.close();
            return;
          }
          reader ??= response!.body!.getReader();
          let result: Awaited<ReturnType<ReadableStreamDefaultReader<Uint8Array>['read']>>;
          try {
            result = await reader.read();
          } catch (err) {
            // Aborted, or the connection dropped after the turn's `finish`: the answer is complete.
            if (stop.signal.aborted || finished) {
              controller.close();
              return;
            }
            if (await reconnect()) continue;
            throw err;
          }
          if (result.done) {
            if (!finished && !parser.done && (await reconnect())) continue;
            controller.close();
            return;
          }
          const chunks: CursoredChunk[] = parser.push(result.value);
          let delivered = false;
          for (const c of chunks) {
            if (c.cursor) cursor = c.cursor;
            // A reconnect's `start` announces the message the page already holds.
            if (reconnecting && c.chunk.type === 'start') continue;
            if (c.chunk.type === 'finish') finished = true;
            reconnects = 0;
            controller.enqueue(c.chunk as UIMessageChunk);
            delivered = true;
          }
          if (chunks.length) reconnecting = false;
          if (delivered) return;
        }
      },
      cancel: async () => {
        stop.abort();
        await reader?.cancel().catch(() => undefined);
      },
    });
  }
}

function plain(h: Record<string, string> | Headers | undefined): Record<string, string> {
  if (!h) return {};
  if (typeof (h as Headers).forEach === 'function' && typeof (h as Headers).get === 'function') {
    const out: Record<string, string> = {};
    (h as Headers).forEach((v, k) => (out[k] = v));
    return out;
  }
  return { ...(h as Record<string, string>) };
}
