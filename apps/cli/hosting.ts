/**
 * The worker side of the CLI: Temporal's native runtime and an in-process agent worker. Only commands
 * that host a worker load this module (it pulls in @temporalio/worker, its native core and the bundler).
 */
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import type { AgentWorker } from '../../src/entry/worker';
import type * as WorkerModule from '../../src/entry/worker';
import { prometheusMetrics } from './metrics-endpoint';
import type { TracingOptions } from '../../src/entry/client';
import type { DeltaPublisher } from '../../src/entry/index';
import { oneLine } from './errors';
import { workerIdentity } from './pollers';
import type { ServedAgents } from './served';

let runtimeInstalled = false;

/** Worker log messages the CLI already shows as run events. */
const SHOWN_AS_EVENTS = new Set(['Activity failed']);

/**
 * Temporal's logs at WARN and above, one line each on stderr (minus what the events already show).
 * The native core's own logs (connection retries and the like) are forwarded at ERROR only. With
 * `--metrics` (or `DURABLE_AGENT_METRICS`), a Prometheus endpoint serves Temporal's and the agents' metrics.
 */
export function installRuntime(): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  Runtime.install({
    logger: new DefaultLogger('WARN', (entry) => {
      if (!SHOWN_AS_EVENTS.has(entry.message)) process.stderr.write(`temporal ${entry.level.toLowerCase()}: ${oneLine(entry.message)}\n`);
    }),
    telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' }, forward: {} }, ...prometheusMetrics() },
  });
}

/** A worker the CLI started, and the connection it opened for it (if any). */
export interface StartedWorker {
  worker: AgentWorker;
  /** Closed after the worker stops. */
  connection?: NativeConnection;
}

/**
 * Start a worker for `agents` on `taskQueue`: over `connection` when given, else a new one to `address`.
 * A new connection is opened while the agents and the worker's own code load (it connects on Temporal's
 * native threads meanwhile).
 */
export async function startWorker(options: {
  agents: ServedAgents;
  /** Default: each agent's own queue (see `createWorker`). */
  taskQueue?: string;
  address: string;
  /** Default `default`. */
  namespace?: string;
  connection?: NativeConnection;
  tracing?: TracingOptions;
  /** Also publish live deltas here (`--redis-url`); the heartbeat transport stays on. */
  publisher?: DeltaPublisher;
}): Promise<StartedWorker> {
  installRuntime();
  const connecting = options.connection ? undefined : NativeConnection.connect({ address: options.address });
  let own: NativeConnection | undefined;
  try {
    const agents = options.agents.load();
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded while the connection is being opened
    const { createWorker } = require('../../src/entry/worker') as typeof WorkerModule;
    own = await connecting;
    const worker = await createWorker({
      agents: agents.agents,
      providers: agents.providers,
      connection: options.connection ?? (own as NativeConnection),
      ...(options.taskQueue !== undefined ? { taskQueue: options.taskQueue } : {}),
      ...(options.namespace !== undefined ? { namespace: options.namespace } : {}),
      temporal: { identity: workerIdentity() },
      ...(options.tracing ? { tracing: options.tracing } : {}),
      ...(options.publisher ? { streaming: { publisher: options.publisher } } : {}),
    });
    return { worker, ...(own ? { connection: own } : {}) };
  } catch (err) {
    const opened = own ?? (await connecting?.catch(() => undefined));
    await opened?.close().catch(() => undefined);
    throw err;
  }
}
