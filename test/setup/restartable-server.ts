/**
 * A Temporal dev server that can be stopped and started again with the state it had: file-backed (SQLite
 * in a temporary directory) on a fixed port. For tests and benches that restart the server under runs.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { startDevServer } from '../../apps/cli/dev-server/dev-server';
import { freePort } from '../../apps/cli/dev-server/processes';
import type { FoundCli } from '../../apps/cli/dev-server/temporal-cli';

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
  /** Stop it if it runs and delete its files (unless they are in a directory the caller gave). Safe to call twice. */
  close(): Promise<void>;
}

/**
 * Start a file-backed dev server on a free port, its database in `options.dir` (default: a temporary
 * directory, deleted by `close()`), run by `options.cli` (default: found or installed).
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
export async function restartableServer(options: { dir?: string; cli?: FoundCli } = {}): Promise<RestartableServer> {
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'durable-agent-restartable-'));
  const owned = options.dir === undefined;
  const dbFile = join(dir, 'temporal.sqlite');
  const port = await freePort();
  let env: TestWorkflowEnvironment | undefined;
  let starts = 0;
  const cleanUp = () => {
    if (owned) rmSync(dir, { recursive: true, force: true });
  };

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
      env = await startDevServer({ dbFile, port, ...(options.cli ? { cli: options.cli } : {}) });
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
      cleanUp();
    },
  };
  try {
    await server.start();
  } catch (err) {
    cleanUp();
    throw err;
  }
  return server;
}
