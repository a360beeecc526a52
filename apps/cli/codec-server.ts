/**
 * The codec server: lets people who hold the keys read encrypted runs in the Temporal Web UI ("Codec
 * Server" setting) and CLI (`temporal --codec-endpoint http://host:port …`). Temporal's codec protocol:
 * `POST /encode` and `POST /decode` (also under `/<namespace>/…`) take and return `{ payloads: [...] }`,
 * payloads in protobuf JSON (base64 `data` and metadata values). The UI calls it from the browser, so it
 * answers CORS preflights for the origins it is given.
 */
import { timingSafeEqual } from 'node:crypto';
import { Hono } from 'hono';
import type { Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { cors } from 'hono/cors';
import type { Payload } from '@temporalio/common';
// Deep imports: the proto3-JSON form of payloads (the codec server protocol) is not exported from @temporalio/common's root.
import type { JSONPayload } from '@temporalio/common/lib/proto-utils';
import { JSONToPayload, payloadToJSON } from '@temporalio/common/lib/proto-utils';
import { isDurableAgentError } from '../../src/entry/client';
import { listen } from '../http/server';
import { EncryptionCodec } from '../../src/entry/client';
import type { Keyring } from '../../src/entry/client';

/** The largest request body accepted (Temporal caps one payload at 2 MiB; the UI sends many at once). */
const MAX_BODY_BYTES = 64 * 1024 * 1024;

/** Default port of `durable-agent codec-server`. */
export const DEFAULT_CODEC_PORT = 8888;

/** Options of {@link createCodecApp}. */
export interface CodecServerOptions {
  /** The keys: the first encrypts (`/encode`), all decrypt. */
  keyring: Keyring;
  /**
   * Browser origins allowed to call (the Temporal UI's, e.g. `http://localhost:8233`); `*` for any.
   * Default: none (the CLI needs no CORS).
   */
  corsOrigins?: readonly string[];
  /** When set, every request but a preflight needs `Authorization: Bearer <token>`. */
  token?: string;
  /** Failures that are not the caller's (answered 500). Default: `console.error`. */
  onError?: (err: unknown) => void;
}

function bearerMatches(header: string | undefined, token: string): boolean {
  const match = /^Bearer\s+(.+)$/i.exec(header ?? '');
  if (!match) return false;
  const given = Buffer.from(match[1]!.trim());
  const expected = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** The `payloads` of a codec request, checked. */
function requestPayloads(body: unknown): Payload[] {
  const payloads = (body as { payloads?: unknown } | null)?.payloads;
  if (typeof body !== 'object' || body === null || !Array.isArray(payloads))
    throw new BadRequest('the body must be JSON {"payloads": [...]} (Temporal payloads in protobuf JSON)');
  return payloads.map((p, i) => {
    try {
      return JSONToPayload(p as JSONPayload);
    } catch (err) {
      throw new BadRequest(
        `payloads[${i}] is not a Temporal payload in protobuf JSON ({ metadata: { key: base64 }, data: base64 }): ${(err as Error).message}`,
      );
    }
  });
}

class BadRequest extends Error {}

/**
 * The codec server's Hono app (serve it with {@link serveCodec}, or mount it).
 *
 * @example
 * ```ts
 * const app = createCodecApp({ keyring: Keyring.fromEnv()!, corsOrigins: ['http://localhost:8233'] });
 * const server = await serveCodec(app, { port: 8888 });
 * // temporal workflow show --workflow-id … --codec-endpoint http://127.0.0.1:8888
 * ```
 */
export function createCodecApp(options: CodecServerOptions): Hono {
  const codec = new EncryptionCodec(options.keyring);
  const onError = options.onError ?? ((err: unknown) => console.error(err));
  const app = new Hono();
  const origins = [...(options.corsOrigins ?? [])];
  if (origins.length) {
    app.use(
      '*',
      cors({
        origin: origins.includes('*') ? '*' : origins,
        allowMethods: ['POST', 'OPTIONS'],
        allowHeaders: ['Content-Type', 'X-Namespace', 'Authorization'],
        // The UI may send its login token ("include cross-origin credentials"); not allowed with '*'.
        credentials: !origins.includes('*'),
        maxAge: 600,
      }),
    );
  }
  if (options.token !== undefined) {
    const token = options.token;
    app.use('*', async (c, next) => {
      if (c.req.method === 'OPTIONS') return next();
      if (!bearerMatches(c.req.header('Authorization'), token))
        return c.json(
          { error: 'missing or wrong bearer token: send Authorization: Bearer <token> (temporal --codec-auth "Bearer <token>")' },
          401,
        );
      return next();
    });
  }
  app.use('*', bodyLimit({ maxSize: MAX_BODY_BYTES, onError: (c) => c.json({ error: `request body over ${MAX_BODY_BYTES} bytes` }, 413) }));

  const handle = (direction: 'encode' | 'decode') => async (c: Context) => {
    let body: unknown;
    try {
      body = await c.req.json();
    } catch {
      return c.json({ error: 'the body is not JSON: send {"payloads": [...]}' }, 400);
    }
    try {
      const payloads = requestPayloads(body);
      const out = direction === 'encode' ? await codec.encode(payloads) : await codec.decode(payloads);
      return c.json({ payloads: out.map((p) => payloadToJSON(p)) });
    } catch (err) {
      if (err instanceof BadRequest) return c.json({ error: err.message }, 400);
      // A payload this server cannot open: say why (key id, never key material).
      if (isDurableAgentError(err)) return c.json({ error: err.message, code: err.code }, 422);
      onError(err);
      return c.json({ error: `internal error while running /${direction}` }, 500);
    }
  };
  for (const direction of ['encode', 'decode'] as const) {
    app.post(`/${direction}`, handle(direction));
    app.post(`/:namespace/${direction}`, handle(direction));
  }
  app.notFound((c) =>
    c.json({ error: `no route ${c.req.method} ${c.req.path}: the codec server answers POST /encode and POST /decode` }, 404),
  );
  return app;
}

/** Is `host` a loopback address (only this machine can connect)? `0.0.0.0` and `::` are every interface: no. */
export function isLoopbackHost(host: string): boolean {
  const h = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1');
  return h === 'localhost' || h === '::1' || /^127(\.\d{1,3}){3}$/.test(h) || /^::ffff:127(\.\d{1,3}){3}$/.test(h);
}

/**
 * The warning for a codec server listening on `host` without a bearer token, when `host` is not loopback:
 * anyone who reaches it can decrypt (and encrypt) payloads with its keys. Undefined when there is nothing to say.
 */
export function exposedCodecWarning(host: string, hasToken: boolean): string | undefined {
  if (hasToken || isLoopbackHost(host)) return undefined;
  return `warning: the codec server listens on ${host} without a bearer token: anyone who can reach it can decrypt your payloads with its keys. Set DURABLE_AGENT_CODEC_TOKEN (temporal --codec-auth "Bearer <token>"), or listen on 127.0.0.1.`;
}

/** A listening codec server. */
export interface CodecServer {
  port: number;
  /** Its base URL, for `--codec-endpoint` and the UI's codec server setting. */
  url: string;
  close(): Promise<void>;
}

/**
 * Listen on `port` (0: a free one) of `hostname` (default `127.0.0.1`) and serve `app`.
 * @throws the listen error (e.g. `EADDRINUSE`).
 */
export function serveCodec(app: Hono, options: { port?: number; hostname?: string } = {}): Promise<CodecServer> {
  return listen(app.fetch, options, DEFAULT_CODEC_PORT);
}
