/**
 * A test's HTTP API: a worker and client on the shared dev server (a {@link Harness}) behind
 * `createHttpApi`, listening on a free port.
 */
import type { HttpApi } from '../../apps/http/app';
import { createHttpApi } from '../../apps/http/app';
import type { TokenAuth } from '../../apps/http/auth';
import type { HttpApiServer } from '../../apps/http/server';
import { serveHttpApi } from '../../apps/http/server';
import type { Harness } from './harness';
import { startHarness } from './harness';

/** A served API and what it runs on. */
export interface ServedApi {
  h: Harness;
  api: HttpApi;
  server: HttpApiServer;
  /** Closes the server, then stops the worker and client. */
  stop(): Promise<void>;
}

/** Starts a harness with `options` and serves its client's API with `auth`. */
export async function serveTestApi(options: Parameters<typeof startHarness>[0], auth: TokenAuth): Promise<ServedApi> {
  const h = await startHarness(options);
  const api = createHttpApi({ client: h.client, auth });
  const server = await serveHttpApi(api, { port: 0 });
  return {
    h,
    api,
    server,
    stop: async () => {
      await server.close();
      await h.stop();
    },
  };
}
