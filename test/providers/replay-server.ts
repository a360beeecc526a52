/**
 * A local HTTP server on 127.0.0.1 that replays recorded model API responses (server-sent-event streams,
 * error bodies, dropped connections) so the real SDKs parse them. It records every request it gets —
 * headers, JSON body, and whether the client closed the connection before the reply was finished.
 */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the server answers to one request. */
export type Reply =
  /** A `text/event-stream` 200 (or `status`): the frames, one write each, `frameDelayMs` apart; `cut` drops the connection after them. */
  | { sse: string | string[]; frameDelayMs?: number; status?: number; headers?: Record<string, string>; cut?: boolean }
  /** A JSON response, e.g. an error body. */
  | { status: number; json: unknown; headers?: Record<string, string> }
  /** Drop the connection without answering. */
  | { reset: true }
  /** Never answer (until the client gives up). */
  | { hang: true };

/** A request the server received. */
export interface RecordedRequest {
  seq: number;
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** Parsed JSON body (undefined when not JSON). */
  body: { model?: string; messages?: unknown[]; [key: string]: unknown };
  receivedAt: number;
  /** SSE frames written so far. */
  framesSent: number;
  framesTotal: number;
  /** Set when the reply finished normally. */
  finishedAt?: number;
  /** Set when the client closed the connection before the reply finished. */
  abortedAt?: number;
}

/** Picks the reply to a request; return undefined to fall through to a 500. */
export type Handler = (req: RecordedRequest) => Reply | undefined;

/** Split an SSE document into frames (blank-line separated), each ending in a blank line. */
export function sseFrames(text: string): string[] {
  return text
    .replace(/\r\n/g, '\n')
    .split(/\n\n+/)
    .filter((f) => f.trim())
    .map((f) => `${f}\n\n`);
}

/** The replay server. */
export class ReplayServer {
  readonly requests: RecordedRequest[] = [];
  private handler: Handler = () => undefined;
  private readonly queue: Reply[] = [];

  private constructor(
    private readonly server: ReturnType<typeof createServer>,
    readonly origin: string,
  ) {}

  /** Start on a free port of 127.0.0.1. */
  static async start(handler?: Handler): Promise<ReplayServer> {
    const ref: { self?: ReplayServer } = {};
    const server = createServer((req, res) => {
      ref.self?.serve(req, res).catch(() => res.destroy());
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const self = new ReplayServer(server, `http://127.0.0.1:${port}`);
    ref.self = self;
    if (handler) self.handler = handler;
    return self;
  }

  /** Replace the handler used when the queue is empty. */
  handle(handler: Handler): this {
    this.handler = handler;
    return this;
  }

  /** Answer the next requests with these replies, in order, before falling back to the handler. */
  enqueue(...replies: Reply[]): this {
    this.queue.push(...replies);
    return this;
  }

  /** Requests whose body names `model`. */
  requestsFor(model: string): RecordedRequest[] {
    return this.requests.filter((r) => r.body.model === model);
  }

  /** Stop the server, dropping open connections. */
  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    let body: RecordedRequest['body'] = {};
    try {
      body = raw ? (JSON.parse(raw) as RecordedRequest['body']) : {};
    } catch {
      // not JSON
    }
    const rec: RecordedRequest = {
      seq: this.requests.length,
      method: req.method ?? '',
      path: req.url ?? '',
      headers: req.headers,
      body,
      receivedAt: Date.now(),
      framesSent: 0,
      framesTotal: 0,
    };
    this.requests.push(rec);
    res.on('close', () => {
      if (res.writableFinished) rec.finishedAt ??= Date.now();
      else rec.abortedAt ??= Date.now();
    });
    const reply = this.queue.shift() ?? this.handler(rec);
    if (!reply) {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ type: 'error', error: { type: 'api_error', message: `replay server: no reply for ${rec.method} ${rec.path}` } }),
      );
      return;
    }
    if ('reset' in reply) {
      req.socket.destroy();
      return;
    }
    if ('hang' in reply) return;
    if ('json' in reply) {
      res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
      res.end(JSON.stringify(reply.json));
      return;
    }
    const frames = typeof reply.sse === 'string' ? sseFrames(reply.sse) : reply.sse;
    rec.framesTotal = frames.length;
    res.writeHead(reply.status ?? 200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...reply.headers });
    res.flushHeaders();
    for (const frame of frames) {
      if (reply.frameDelayMs) await new Promise((r) => setTimeout(r, reply.frameDelayMs));
      if (res.destroyed) return;
      res.write(frame);
      rec.framesSent++;
    }
    if (reply.cut) {
      // Let the frames reach the client, then drop the connection mid-stream.
      await new Promise((r) => setTimeout(r, 20));
      req.socket.destroy();
      return;
    }
    res.end();
  }
}
