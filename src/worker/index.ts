import { bundleWorkflowCode, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { WORKFLOWS_PATH, withAgentPreload } from './workflows-entry';
import type { WorkerOptions as TemporalWorkerOptions } from '@temporalio/worker';
import { agentTaskQueue } from '../core/run/contract';
import { RULES_TASK_QUEUE } from '../core/approvals/rules';
import { DurableAgentError } from '../core/run/errors';
import type { Agent } from '../agents/define';
import type { AgentRegistry } from '../agents/registry';
import type { ContextWindowTable } from '../integrations/providers/context-windows';
import type { PriceTable } from '../integrations/providers/pricing';
import type { DeltaPublisher } from '../integrations/streaming/transport';
import type { ModelProvider } from '../integrations/providers/types';
import type { BlobStore } from '../integrations/store/blob-store';
import { localStoreWarning } from './store-warning';
import type { TranscriptStore } from '../integrations/store/transcript-store';
import type { ConnectionSettings } from '../client/connection-settings';
import { resolveConnectionSettings } from '../client/connection-settings';
import type { EncryptionSetting } from '../integrations/encryption/setting';
import type { TracingOptions } from '../integrations/telemetry/tracing';
import { durableAgents } from './plugin';
import type { DurableAgentsPlugin } from './plugin';
import type { WorkflowCodeSource } from './prebuilt-bundle';
import { agentWorkflowCode } from './prebuilt-bundle';
import { connectWithRetries, DEFAULT_CONNECT_TIMEOUT_MS } from './connect';
import type { NotificationsOptions } from '../integrations/webhooks/deliver';
import type { ApprovalRulesWorkerOptions } from './rules-entity';
import { ensureRulesEntity } from './rules-entity';
import { claimRulesQueue, releaseRulesQueue } from './rules-queue-slot';

export type { ApprovalRulesWorkerOptions } from './rules-entity';

export { DEFAULT_LIVE_INTERVAL_MS, HEARTBEAT_THROTTLE_MS, STICKY_TIMEOUT_MS, DurableAgentsPlugin, durableAgents } from './plugin';
export type { DurableAgentsOptions } from './plugin';
export { WORKFLOWS_PATH, combinedWorkflowsEntry } from './workflows-entry';
export { WORKFLOW_BUNDLE_ENV, agentWorkflowCode, defaultBundlePath, staleReason } from './prebuilt-bundle';
export type { WorkflowCodeSource } from './prebuilt-bundle';
export { buildAgentBundle } from './build-bundle';
export { DEFAULT_CONNECT_TIMEOUT_MS } from './connect';

/**
 * Options of {@link createWorker}. Connection settings not given here (`address`, `namespace`, `apiKey`,
 * `tls`, `profile`, `configFile`) come from Temporal's environment configuration (`TEMPORAL_ADDRESS`,
 * `TEMPORAL_NAMESPACE`, `TEMPORAL_API_KEY`, `TEMPORAL_TLS*`, `TEMPORAL_PROFILE`, the Temporal config
 * file), then the defaults `localhost:7233` / `default`.
 */
export interface AgentWorkerOptions extends ConnectionSettings {
  /** The agents this worker runs. */
  agents: readonly Agent[];
  /** Extra or replacement model providers by name (defaults: `anthropic` and `openai`, keys from the environment). */
  providers?: Record<string, ModelProvider>;
  /**
   * Where conversation content and at-most-once claims are stored: a store object, or a setting —
   * a directory, `postgres://user:pass@host/db`, `s3://bucket/prefix?endpoint=…` (see `openStore`).
   * Default: `DURABLE_AGENT_STORE` when set, else files under `blobs/` of the state folder
   * (`DURABLE_AGENT_HOME`, else `~/.durable-agent`), which serves one machine only: workers on several
   * machines need a shared store (PostgreSQL or S3), or a run moving between them ends `storage_error`.
   * A store opened from a setting (or the default) is encrypted with the `encryption` keys and closed by
   * {@link AgentWorker.close}; a store object is its owner's, sealed only with the cipher you give it:
   * `new FileBlobStore(dir, { cipher: new KeyringCipher(keys) })`, `openStore(url, { cipher })`.
   */
  store?: BlobStore | string;
  /**
   * Encryption (AES-256-GCM) of every payload this worker sends to Temporal (activity and workflow inputs,
   * results, heartbeats, queries…) and of the store's content. Default: the keys of
   * `DURABLE_AGENT_KEYS` when set (`k2:<base64>,k1:<base64>`: the first encrypts, all decrypt); `false`:
   * none. Clients need the same keys.
   */
  encryption?: EncryptionSetting;
  /** An existing connection to Temporal, left open by {@link AgentWorker.close} (its owner closes it). Default: open one from the connection settings. */
  connection?: NativeConnection;
  /**
   * The one task queue this worker polls, for all its agents (clients must then start runs there:
   * `AgentClient.connect({ taskQueue })`). Default: one queue per agent it serves (sub-agents of agent
   * tools included), `durable-agent.<agent>` (`agentTaskQueue`), each polled by a Temporal worker of its
   * own on one connection, where clients without a task queue start that agent's runs: a worker never
   * takes a run of an agent it does not have.
   */
  taskQueue?: string;
  /**
   * How long (ms) the first connection to Temporal is retried when the server cannot be reached (e.g.
   * during its restart): attempts back off exponentially (0.5 s, 1 s, 2 s, … at most 10 s apart), each
   * failure logged as a warning in Temporal's log naming the address. Default 60000; `0`: one attempt.
   * Once connected, the worker rides out later outages by itself. Unused with `connection`.
   */
  connectTimeoutMs?: number;
  /**
   * A prebuilt workflow bundle (tests and deployments reuse one). Default: the agent workflow bundle
   * `npm run build` writes (`dist/workflow-bundle.js`, or the file `DURABLE_AGENT_WORKFLOW_BUNDLE` names)
   * when it is current and tracing is off; else the agent workflows are bundled at start (seconds), and
   * the worker says why once per process (Temporal's log, info; and {@link AgentWorker.workflowCode}).
   * `DURABLE_AGENT_WORKFLOW_BUNDLE=off` always bundles at start.
   */
  workflowBundle?: TemporalWorkerOptions['workflowBundle'];
  /** Prices (USD per million tokens) by model id or prefix, merged over the built-in table; used for run costs. */
  prices?: PriceTable;
  /**
   * Context windows (tokens) by model id or prefix, merged over the built-in table: agents that do not
   * name their window (`context.windowTokens`) compact by it.
   */
  contextWindows?: ContextWindowTable;
  /**
   * Live deltas of streaming model calls. By default they travel in the model activity's heartbeat
   * details (Temporal-native: no history events; clients read them with `describe`), sent at most every
   * `intervalMs` (default 100; lowers the worker's heartbeat throttle). `publisher` also hands every delta
   * to another transport (e.g. `RedisDeltaPublisher`). `false`: no live deltas.
   */
  streaming?: false | { heartbeat?: boolean; intervalMs?: number; publisher?: DeltaPublisher };
  /**
   * Register durable-agent's search attributes (approval state, status, agent name) if missing, and keep
   * them current in runs. Default true; set false where the worker may not change the namespace.
   */
  searchAttributes?: boolean;
  /**
   * OpenTelemetry tracing (off by default): a span processor (e.g. `new BatchSpanProcessor(new
   * OTLPTraceExporter())`), the resource, and `captureContent` for prompts and outputs. See the README's
   * "Tracing and metrics".
   */
  tracing?: TracingOptions;
  /** More secret values to redact from everything leaving the agent activities (see `durableAgents`' option). */
  secrets?: readonly string[];
  /** Signed webhooks notified of approvals (see `durableAgents`' option and the approvals guide). */
  notifications?: NotificationsOptions;
  /**
   * The namespace's standing approval rules (the rules entity): by default every worker also polls its
   * task queue (`durable-agent.rules`, one more small Temporal worker on the same bundle) so the entity
   * runs wherever agents run (one worker per connection: a second `createWorker` given the same `connection`
   * leaves it to the first); `false` turns that off (some other worker must poll it). `editors` are the
   * first identities allowed to change rules — trusted configuration: the worker starts the entity
   * with them when absent, and gives them to an entity that has no editors yet (after that, editors
   * change them with `client.rules.setEditors`).
   */
  approvalRules?: false | ApprovalRulesWorkerOptions;
  /**
   * Anything else for Temporal's Worker.create (concurrency, tuning, interceptors…). `maxCachedWorkflows`
   * bounds the worker's memory: each cached run costs about 420 KB of RSS while it waits early in its
   * conversation (more with a longer history), over about 250 MB at rest; the SDK's default (about 2,400 with
   * a 4 GiB heap) is too many for a 1 GB worker; Node's `--optimize-for-size` flag lowers the per-run cost
   * to about 0.76×. Runs past the cache wait evicted and replay their history when woken. See the README's
   * "Many waiting runs on one worker: the workflow cache".
   */
  temporal?: Partial<
    Omit<TemporalWorkerOptions, 'connection' | 'namespace' | 'taskQueue' | 'activities' | 'workflowBundle' | 'workflowsPath'>
  >;
}

/**
 * An agent worker. Start it with {@link run} (or {@link runUntil}); stop it with {@link close}, which
 * also closes the connection `createWorker` opened. When `run`/`runUntil` ends, that connection is
 * closed too (a connection passed in as `connection` is never closed).
 */
export interface AgentWorker {
  /** The Temporal worker (the first one when it polls several queues: see {@link workers}). */
  readonly worker: Worker;
  /** Its task queue (the first one when it polls several: see {@link taskQueues}). */
  readonly taskQueue: string;
  /** Every Temporal worker it runs: one per task queue, then the rules entity's (unless `approvalRules: false`). */
  readonly workers: readonly Worker[];
  /** Every task queue it polls: the one given, else one per agent it serves (`durable-agent.<agent>`). */
  readonly taskQueues: readonly string[];
  /** Namespace the worker polls. */
  readonly namespace: string;
  /** Where its workflow code came from: the prebuilt bundle, bundled at start (and why), or the bundle given. */
  readonly workflowCode: WorkflowCodeSource;
  /** @internal The agents it serves, by name. */
  readonly registry: AgentRegistry;
  readonly transcripts: TranscriptStore;
  /**
   * Poll until shut down ({@link shutdown}, {@link close}, SIGINT/SIGTERM), then close the connection
   * the worker opened.
   *
   * @throws the worker's fatal error, if it failed.
   */
  run(): Promise<void>;
  /** Run until `promise` settles, then shut down and close the connection the worker opened. */
  runUntil<T>(promise: Promise<T> | (() => Promise<T>)): Promise<T>;
  /** Ask the worker to stop polling (returns at once; `run()` resolves when it has drained). */
  shutdown(): void;
  /**
   * Shut the worker down, wait until it has stopped (running activities finish or are cancelled by
   * Temporal's shutdown rules), and close the connection `createWorker` opened. Safe to call twice,
   * and on a worker that never ran.
   */
  close(): Promise<void>;
}

/**
 * Create a worker that runs the agent workflow and its activities for `agents`: the tools' code, the
 * model providers (and their credentials) and the blob store live here. Call `run()` to start polling
 * and `close()` to stop and release the connection.
 *
 * @throws {DefinitionError} two agents with the same name (or another invalid definition).
 * @throws {DurableAgentError} code `invalid_input` when the Temporal config file or profile cannot be loaded.
 * @throws {DurableAgentError} code `invalid_config` when `DURABLE_AGENT_KEYS` is set but unusable.
 * @throws the last connection error when Temporal cannot be reached within `connectTimeoutMs` (retried
 * with backoff meanwhile), or Temporal's error when the worker
 * cannot be created (e.g. the workflow bundle fails to build).
 * @example
 * ```ts
 * import { createWorker } from 'durable-agent/worker';
 * import { assistant } from './agents';
 *
 * const worker = await createWorker({ agents: [assistant] }); // TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, profiles…
 * process.once('SIGTERM', () => void worker.close());
 * await worker.run(); // until shut down; closes the connection it opened
 * ```
 */
export async function createWorker(options: AgentWorkerOptions): Promise<AgentWorker> {
  const plugin = durableAgents({
    agents: options.agents,
    ...(options.providers ? { providers: options.providers } : {}),
    ...(options.store !== undefined ? { store: options.store } : {}),
    encryption: options.encryption,
    ...(options.prices ? { prices: options.prices } : {}),
    ...(options.contextWindows ? { contextWindows: options.contextWindows } : {}),
    ...(options.streaming !== undefined ? { streaming: options.streaming } : {}),
    ...(options.searchAttributes !== undefined ? { searchAttributes: options.searchAttributes } : {}),
    ...(options.tracing ? { tracing: options.tracing } : {}),
    ...(options.secrets ? { secrets: options.secrets } : {}),
    ...(options.notifications ? { notifications: options.notifications } : {}),
  });
  const taskQueues = options.taskQueue !== undefined ? [options.taskQueue] : plugin.registry.names().map(agentTaskQueue);
  if (taskQueues.length === 0) {
    await plugin.close();
    throw new DurableAgentError(
      'invalid_input',
      'createWorker: no agents to serve: give agents (each gets its own task queue), or a taskQueue',
    );
  }
  const settings = resolveConnectionSettings(options);
  const namespace = settings.namespace;
  const warning = localStoreWarning(plugin.store, settings.address);
  if (warning) console.warn(warning);
  const workflowCode: WorkflowCodeSource = options.workflowBundle
    ? { kind: 'given' }
    : agentWorkflowCode({ tracing: options.tracing !== undefined, stackTraceSources: options.temporal?.showStackTraceSources === true });
  if (workflowCode.kind === 'bundled') noteBundling(workflowCode.reason);
  let ownedConnection: NativeConnection | undefined;
  const workers: Worker[] = [];
  let pollsRules = false;
  try {
    ownedConnection = options.connection
      ? undefined
      : await connectWithRetries(
          () =>
            NativeConnection.connect({
              address: settings.address,
              ...(settings.apiKey !== undefined ? { apiKey: settings.apiKey } : {}),
              ...(settings.tls !== undefined ? { tls: settings.tls } : {}),
              ...(settings.metadata ? { metadata: settings.metadata } : {}),
            }),
          settings.address,
          options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
        );
    // The rules entity's queue last: `worker` and `taskQueue` stay the agents' first. One worker per process polls it.
    pollsRules = options.approvalRules !== false && claimRulesQueue(options.connection, namespace);
    const polled = pollsRules ? [...taskQueues, RULES_TASK_QUEUE] : taskQueues;
    const bundle =
      options.workflowBundle ??
      (workflowCode.kind === 'prebuilt' ? { codePath: workflowCode.path } : await sharedBundle(polled.length, options));
    for (const taskQueue of polled) {
      workers.push(
        await Worker.create({
          ...options.temporal,
          connection: options.connection ?? (ownedConnection as NativeConnection),
          namespace,
          taskQueue,
          // No workflowsPath: the plugin bundles durable-agent's workflows unless a bundle is given or prebuilt.
          ...(bundle ? { workflowBundle: bundle } : {}),
          plugins: [...(options.temporal?.plugins ?? []), plugin],
        }),
      );
    }
  } catch (err) {
    await Promise.all(workers.map((w) => closeUnrun(w)));
    if (pollsRules) releaseRulesQueue(options.connection, namespace);
    await ownedConnection?.close().catch(() => undefined);
    await plugin.close();
    throw err;
  }
  if (options.approvalRules && options.approvalRules.editors?.length) {
    await ensureRulesEntity(
      options.connection ?? (ownedConnection as NativeConnection),
      namespace,
      plugin.codec,
      options.approvalRules.editors,
    );
  }
  const released = pollsRules ? () => releaseRulesQueue(options.connection, namespace) : () => undefined;
  return new WorkerLifecycle(
    workers,
    taskQueues,
    namespace,
    workflowCode,
    plugin.registry,
    plugin.transcripts,
    ownedConnection,
    plugin,
    released,
  );
}

/**
 * The agent workflows bundled once for several Temporal workers (one per task queue), as the prebuilt
 * bundle is built; undefined (each worker bundles, with the plugin) for one worker, or with tracing or
 * stack-trace sources, whose bundles the plugin makes differently.
 */
async function sharedBundle(workers: number, options: AgentWorkerOptions): Promise<{ code: string } | undefined> {
  if (workers < 2 || options.tracing || options.temporal?.showStackTraceSources) return undefined;
  const { code } = await bundleWorkflowCode({
    workflowsPath: WORKFLOWS_PATH,
    preloadModules: withAgentPreload(),
    logger: Runtime.instance().logger,
  });
  return { code };
}

let bundlingNoted = false;

/** Say once per process, in Temporal's log (info), that workers bundle the agent workflows at start, and why. */
function noteBundling(reason: string): void {
  if (bundlingNoted) return;
  bundlingNoted = true;
  Runtime.instance().logger.info(`durable-agent: bundling the agent workflows at start (takes seconds): ${reason}`);
}

/** Release a Temporal worker that never ran (it holds native resources until it has run and stopped). */
async function closeUnrun(worker: Worker): Promise<void> {
  const running = worker.run().catch(() => undefined);
  if (worker.getState() === 'RUNNING') worker.shutdown();
  await running;
}

/** Runs Temporal workers (one per task queue) and closes the connection it owns once they have all stopped. */
class WorkerLifecycle implements AgentWorker {
  private running: Promise<unknown> | undefined;
  private connectionClosed: Promise<void> | undefined;

  constructor(
    readonly workers: readonly Worker[],
    readonly taskQueues: readonly string[],
    readonly namespace: string,
    readonly workflowCode: WorkflowCodeSource,
    readonly registry: AgentRegistry,
    readonly transcripts: TranscriptStore,
    private readonly ownedConnection: NativeConnection | undefined,
    private readonly plugin: DurableAgentsPlugin,
    /** Called once its workers have stopped (frees the process's rules queue when this worker polled it). */
    private readonly onStopped: () => void = () => undefined,
  ) {}

  get worker(): Worker {
    return this.workers[0] as Worker;
  }

  get taskQueue(): string {
    return this.taskQueues[0] as string;
  }

  run(): Promise<void> {
    return this.track(this.runAll());
  }

  async runUntil<T>(promise: Promise<T> | (() => Promise<T>)): Promise<T> {
    if (this.workers.length === 1) return this.track(this.worker.runUntil(promise));
    const all = this.track(this.runAll());
    try {
      const value = await Promise.race([
        typeof promise === 'function' ? promise() : promise,
        all.then(() => Promise.reject(new Error('the worker stopped before the promise settled'))),
      ]);
      return value;
    } finally {
      this.shutdown();
      await all.catch(() => undefined);
    }
  }

  /** Run every worker; when one fails, shut the others down, then throw its error. */
  private async runAll(): Promise<void> {
    if (this.workers.length === 1) return this.worker.run();
    const results = await Promise.allSettled(
      this.workers.map((w) =>
        w.run().catch((err: unknown) => {
          this.shutdown();
          throw err;
        }),
      ),
    );
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
  }

  shutdown(): void {
    for (const w of this.workers) if (w.getState() === 'RUNNING') w.shutdown();
  }

  async close(): Promise<void> {
    // A worker that never ran still holds the connection: run it only to shut it down at once.
    if (!this.running && this.workers.every((w) => w.getState() === 'INITIALIZED')) void this.run().catch(() => undefined);
    this.shutdown();
    await this.running?.catch(() => undefined);
    await this.closeConnection();
  }

  private track<T>(promise: Promise<T>): Promise<T> {
    const done = promise.finally(() => this.closeConnectionIfStopped());
    this.running ??= done; // a second run() fails in Temporal's Worker; the first one is what close() waits for
    return done;
  }

  private closeConnectionIfStopped(): Promise<void> {
    const stopped = this.workers.every((w) => {
      const state = w.getState();
      return state === 'STOPPED' || state === 'FAILED';
    });
    return stopped ? this.closeConnection() : Promise.resolve();
  }

  /** Close what createWorker opened: the connection, and what the plugin opened (a store opened from a setting, the MCP clients). */
  private closeConnection(): Promise<void> {
    if (!this.connectionClosed) this.onStopped();
    this.connectionClosed ??= Promise.all([this.ownedConnection?.close(), this.plugin.close()]).then(() => undefined);
    return this.connectionClosed;
  }
}
