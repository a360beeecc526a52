/** Starting the embedded Temporal dev server (SQLite, single process) and checking reachability. */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import type { EphemeralServerExecutable } from '@temporalio/testing';
import type { SearchAttributeType, defineSearchAttributeKey } from '@temporalio/common';

type SearchAttributeKey<T extends SearchAttributeType> = ReturnType<typeof defineSearchAttributeKey<T>>;
import { SEARCH_ATTRIBUTE_KEYS } from '../../../src/entry/client';
import type { FoundCli } from './temporal-cli';
import { ensureTemporalCli } from './temporal-cli';

/** Options of {@link startDevServer}. */
export interface DevServerOptions {
  /** SQLite file keeping the server's state across restarts; in-memory when omitted. */
  dbFile?: string;
  ip?: string;
  /** Frontend port; random free port when omitted. */
  port?: number;
  /** Serve the Temporal UI on this port. */
  uiPort?: number;
  namespace?: string;
  /** More namespaces to create at start (each with the same search attributes). */
  extraNamespaces?: string[];
  searchAttributes?: SearchAttributeKey<SearchAttributeType>[];
  /** Log lines about provisioning. */
  log?: (line: string) => void;
  /** Binary to use; found (or installed) when omitted. */
  cli?: FoundCli;
}

/** The executable for `@temporalio/testing`: the CLI found or installed here, else the SDK's download. */
export function serverExecutable(cli: FoundCli | undefined): EphemeralServerExecutable {
  return cli ? { type: 'existing-path', path: cli.path } : { type: 'cached-download' };
}

/** Start a dev server. Tear it down with `env.teardown()`. */
export async function startDevServer(options: DevServerOptions = {}): Promise<TestWorkflowEnvironment> {
  const cli = options.cli ?? ensureTemporalCli(options.log);
  if (options.dbFile) mkdirSync(dirname(options.dbFile), { recursive: true });
  return TestWorkflowEnvironment.createLocal({
    server: {
      executable: serverExecutable(cli),
      ...(options.dbFile ? { dbFilename: options.dbFile } : {}),
      ip: options.ip ?? '127.0.0.1',
      ...(options.port !== undefined ? { port: options.port } : {}),
      ...(options.uiPort !== undefined ? { ui: true, uiPort: options.uiPort } : { ui: false }),
      ...(options.namespace ? { namespace: options.namespace } : {}),
      // durable-agent's own search attributes are always registered (approval state, status, agent).
      searchAttributes: [...SEARCH_ATTRIBUTE_KEYS, ...(options.searchAttributes ?? [])],
      log: { format: 'pretty', level: 'error' },
      ...(options.extraNamespaces?.length ? { extraArgs: options.extraNamespaces.flatMap((n) => ['--namespace', n]) } : {}),
    },
  });
}

export { isReachable } from './reachable';
