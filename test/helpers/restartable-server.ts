/**
 * A Temporal dev server a test controls: file-backed (SQLite in a temporary directory), on a fixed port,
 * so the test can stop it and start it again with the state it had. Only for the `server-restart` test
 * group (test/restart/): the shared dev server of the other files must never go down under them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { startDevServer } from '../../server/dev-server';
import { freePort } from './cli-run';
import { installTestRuntime } from './harness';

/** A dev server that can be stopped and started again on the same port and database file. */
export interface RestartableServer {
  /** `host:port` of its frontend: the same across restarts. */
  readonly address: string;
  /** The SQLite file holding its state across restarts. */
  readonly dbFile: string;
  /** Whether it is up. */
  readonly running: boolean;
  /** How many times it has been started (1 after {@link restartableServer}). */
  readonly starts: number;
  /**
   * Stop the server process (its state stays in `dbFile`). Resolves once the process is gone.
   * @throws {Error} it is not running.
   */
  stop(): Promise<void>;
  /**
   * Start it again on the same port and file; resolves once it serves.
   * @throws {Error} it is already running, or the server did not start (e.g. the port was taken meanwhile).
   */
  start(): Promise<void>;
  /** Stop it if it runs and delete its files. Safe to call twice. */
  close(): Promise<void>;
}

/**
 * Start a file-backed dev server on a free port.
 *
 * @example
 * ```ts
 * const server = await restartableServer();
 * // ... connect a worker and a client to server.address ...
 * await server.stop();
 * await server.start();
 * await server.close();
 * ```
 */
export async function restartableServer(): Promise<RestartableServer> {
  // The server runs under this process's Temporal runtime: install the tests' one first.
  installTestRuntime();
  const dir = mkdtempSync(join(tmpdir(), 'durable-agent-restartable-'));
  const dbFile = join(dir, 'temporal.sqlite');
  const port = await freePort();
  const cliPath = inject('temporalCliPath');
  const cli = cliPath ? { path: cliPath, source: 'path' as const } : undefined;
  let env: TestWorkflowEnvironment | undefined;
  let starts = 0;

  const server: RestartableServer = {
    address: `127.0.0.1:${port}`,
    dbFile,
    get running() {
      return env !== undefined;
    },
    get starts() {
      return starts;
    },
    async start() {
      if (env) throw new Error(`the Temporal server on port ${port} is already running: stop() it before start()`);
      env = await startDevServer({ dbFile, port, ...(cli ? { cli } : {}) });
      starts++;
    },
    async stop() {
      if (!env) throw new Error(`the Temporal server on port ${port} is not running: start() it before stop()`);
      const running = env;
      env = undefined;
      await running.teardown();
    },
    async close() {
      if (env) await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  try {
    await server.start();
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  return server;
}
