/**
 * A Temporal dev server a test controls (server/restartable-server.ts), run by the Temporal CLI the global
 * setup found. Only for the `restart` project (test/restart/): the shared dev server of the other
 * files must never go down under them.
 */
import { inject } from 'vitest';
import type { RestartableServer } from '../setup/restartable-server';
import { restartableServer as startRestartable } from '../setup/restartable-server';
import { installTestRuntime } from './harness';

export type { RestartableServer };

/** Start a file-backed dev server on a free port (see `restartableServer` in server/). */
export async function restartableServer(): Promise<RestartableServer> {
  // The server runs under this process's Temporal runtime: install the tests' one first.
  installTestRuntime();
  const cliPath = inject('temporalCliPath');
  return startRestartable(cliPath ? { cli: { path: cliPath, source: 'path' } } : {});
}
