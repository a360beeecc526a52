/** The embedded Temporal dev server as the CLI runs it: state in a SQLite file, output in a log file. */
import { chmodSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { FoundCli } from './temporal-cli';
import { ensureTemporalCli } from './temporal-cli';
import { stateDir } from '../state-dir';
import type * as DevServerModule from './dev-server';
import type * as HostingModule from '../hosting';

/** SQLite file holding the embedded server's state, so runs survive restarts. */
export function serverDbFile(): string {
  return stateDir('temporal.db');
}

/** Where the embedded server's own output goes. */
export function serverLogFile(): string {
  return stateDir('temporal.log');
}

function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/**
 * A launcher that execs the real binary with its output appended to the log file, so the server's
 * banner and logs never mix with the CLI's output (JSON mode included). POSIX only; elsewhere the
 * binary is used as is.
 */
function quietCli(cli: FoundCli): FoundCli {
  if (process.platform === 'win32') return cli;
  const dir = stateDir();
  mkdirSync(dir, { recursive: true });
  const path = join(dir, 'temporal-server.sh');
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, `#!/bin/sh\nexec ${shellQuote(cli.path)} "$@" >>${shellQuote(serverLogFile())} 2>&1\n`);
  chmodSync(tmp, 0o755);
  renameSync(tmp, path);
  return { ...cli, path };
}

/** Options of {@link startEmbeddedServer}. */
export interface EmbeddedServerOptions {
  port: number;
  ip: string;
  /** Serve the Temporal UI on this port. */
  uiPort?: number;
  /** A namespace to create and use (besides `default`). */
  namespace?: string;
  log: (line: string) => void;
}

/** Start the dev server on `ip:port` with the state folder's SQLite file. Tear it down with `teardown()`. */
export async function startEmbeddedServer(options: EmbeddedServerOptions): Promise<TestWorkflowEnvironment> {
  const found = ensureTemporalCli(options.log);
  // Loaded here: the dev server module pulls in @temporalio/testing (and the worker runtime).
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- only commands that start a server need it
  const { startDevServer } = require('./dev-server') as typeof DevServerModule;
  // The server shares Temporal's native runtime with any worker this process hosts: install it first.
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- as above
  (require('../hosting') as typeof HostingModule).installRuntime();
  return startDevServer({
    dbFile: serverDbFile(),
    ip: options.ip,
    port: options.port,
    ...(options.uiPort !== undefined ? { uiPort: options.uiPort } : {}),
    ...(options.namespace ? { namespace: options.namespace } : {}),
    log: options.log,
    ...(found ? { cli: quietCli(found) } : {}),
  });
}
