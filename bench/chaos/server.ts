/**
 * The chaos bench's own Temporal dev server: file-backed (SQLite) on a fixed port, so the campaign can
 * stop it and start it again with the state it had (test/helpers/restartable-server.ts is the same for
 * vitest files, which get the Temporal CLI's path from the global setup).
 */
import { join } from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { startDevServer } from '../../server/dev-server';
import { freePort } from '../../server/processes';
import type { FoundCli } from '../../server/temporal-cli';
import type { ServerControl } from './campaign';

/** A started file-backed dev server whose database lives in `dir`; `close()` stops it for good. */
export async function restartableDevServer(dir: string, cli: FoundCli | undefined): Promise<ServerControl & { close(): Promise<void> }> {
  const dbFile = join(dir, 'temporal.sqlite');
  const port = await freePort();
  let env: TestWorkflowEnvironment | undefined;
  const control = {
    address: `127.0.0.1:${port}`,
    async start() {
      if (env) throw new Error(`the Temporal server on port ${port} is already running`);
      env = await startDevServer({ dbFile, port, ...(cli ? { cli } : {}) });
    },
    async stop() {
      if (!env) throw new Error(`the Temporal server on port ${port} is not running`);
      const running = env;
      env = undefined;
      await running.teardown();
    },
    async close() {
      if (env) await control.stop();
    },
  };
  await control.start();
  return control;
}
