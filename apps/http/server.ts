/** Serving the HTTP API on a port with `@hono/node-server`. */
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import type { ServerType } from '@hono/node-server';
import type { HttpApi } from './app';

/** Where to listen. */
export interface ListenOptions {
  /** Port; 0 picks a free one. Default 8080. */
  port?: number;
  /** Interface. Default `127.0.0.1` (this machine only). */
  hostname?: string;
}

/** A listening API server. */
export interface HttpApiServer {
  /** The port it listens on (the one picked when asked for 0). */
  port: number;
  /** Its base URL, e.g. `http://127.0.0.1:8080`. */
  url: string;
  /** End open event streams, stop accepting connections and wait until the server has closed. */
  close(): Promise<void>;
}

/** A listening HTTP server. */
export interface Listening {
  /** The port it listens on (the one picked when asked for 0). */
  port: number;
  /** Its base URL, e.g. `http://127.0.0.1:8080`. */
  url: string;
  /** Stop accepting connections, close open ones, and wait until the server has closed. */
  close(): Promise<void>;
}

/**
 * Serve `fetch` (a Hono app's) on `options.port` (0: a free one; else `defaultPort`) of `options.hostname`
 * (default `127.0.0.1`); `beforeClose` runs first when it closes (e.g. to end open event streams).
 * @throws the listen error (e.g. `EADDRINUSE`).
 */
export function listen(
  fetch: (request: Request) => Response | Promise<Response>,
  options: ListenOptions,
  defaultPort: number,
  beforeClose?: () => void,
): Promise<Listening> {
  const hostname = options.hostname ?? '127.0.0.1';
  return new Promise((resolve, reject) => {
    let server: ServerType | undefined = undefined;
    const failed = (err: Error) => reject(err);
    server = serve({ fetch, port: options.port ?? defaultPort, hostname }, (info: AddressInfo) => {
      server?.off('error', failed);
      const host = hostname.includes(':') ? `[${hostname}]` : hostname;
      resolve({
        port: info.port,
        url: `http://${host}:${info.port}`,
        close: () =>
          new Promise<void>((done, fail) => {
            beforeClose?.();
            server?.close((err) => (err ? fail(err) : done()));
            if (server && 'closeAllConnections' in server) server.closeAllConnections();
          }),
      });
    });
    server.once('error', failed);
  });
}

/**
 * Listen on `options.port` (default 8080) and serve `api`.
 * @throws the listen error (e.g. `EADDRINUSE`).
 */
export function serveHttpApi(api: HttpApi, options: ListenOptions = {}): Promise<HttpApiServer> {
  return listen(api.app.fetch, options, 8080, () => api.streams.stopAll());
}
