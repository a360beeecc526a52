/**
 * `durableAgents(...)`: durable-agent as a Temporal worker plugin. Added to a worker that runs your own
 * workflows and activities, it adds the agent workflows to its bundle, the agent activities (with the
 * registry, providers, store and MCP clients behind them), the payload codec, the search attributes and
 * the worker settings lost workers rely on. `createWorker` is built on it.
 */
import { NativeConnection } from '@temporalio/worker';
import type { BundleOptions, BundlerPlugin, ReplayWorkerOptions, Worker, WorkerOptions, WorkerPlugin } from '@temporalio/worker';
import type { ClientOptions, ClientPlugin } from '@temporalio/client';
import { SimplePlugin } from '@temporalio/plugin';
import type { Agent } from '../agents/define';
import { AgentRegistry } from '../agents/registry';
import { withCodec } from '../client/plugin';
import { createActivities } from '../activities';
import { withRedaction } from '../activities/redaction';
import { DurableAgentError } from '../core/run/errors';
import { KeyringCipher } from '../integrations/encryption/cipher';
import { EncryptionCodec } from '../integrations/encryption/payload-codec';
import type { EncryptionSetting } from '../integrations/encryption/setting';
import { resolveKeyring } from '../integrations/encryption/setting';
import { McpClientPool } from '../integrations/mcp/client-pool';
import { McpCatalog } from '../integrations/mcp/tools';
import { defaultProviders } from '../integrations/providers';
import type { ContextWindowTable } from '../integrations/providers/context-windows';
import { DEFAULT_CONTEXT_WINDOWS } from '../integrations/providers/context-windows';
import type { PriceTable } from '../integrations/providers/pricing';
import { DEFAULT_PRICES } from '../integrations/providers/pricing';
import type { ModelProvider } from '../integrations/providers/types';
import type { BlobStore } from '../integrations/store/blob-store';
import { FileBlobStore } from '../integrations/store/blob-store';
import { openStore, STORE_ENV } from '../integrations/store/open';
import { TranscriptStore } from '../integrations/store/transcript-store';
import type { DeltaPublisher } from '../integrations/streaming/transport';
import { withAgentMetrics } from '../integrations/telemetry/activity-metrics';
import type { TracingOptions } from '../integrations/telemetry/tracing';
import { WorkerTracing } from '../integrations/telemetry/worker-tracing';
import { stateDir } from './paths';
import { WorkerRedaction } from './secrets';
import type { NotificationsOptions } from '../integrations/webhooks/deliver';
import { notificationSecrets, notifySpecOf } from '../integrations/webhooks/deliver';
import { ensureSearchAttributes } from './search-attributes';
import { combinedWorkflowsEntry, resolveFrom, withAgentPreload, workflowModulesDir } from './workflows-entry';

/** Longest interval (ms) between two heartbeats a worker sends for a running call. */
export const HEARTBEAT_THROTTLE_MS = 1000;
/**
 * How long (ms) a workflow task waits for the worker that ran the run before (its sticky queue) before
 * any worker may take it: after a worker dies, its runs move on after this (Temporal's default is 10 s).
 * A busy worker that misses it costs a replay elsewhere, never a lost task.
 */
export const STICKY_TIMEOUT_MS = 1000;
/** Default interval (ms) at which a streaming model call's heartbeat carries its newest deltas. */
export const DEFAULT_LIVE_INTERVAL_MS = 100;

/** Name of the plugin (Temporal lists plugins by name). */
export const PLUGIN_NAME = 'durable-agent';

/** Options of {@link durableAgents}: what the agents need on the worker. */
export interface DurableAgentsOptions {
  /** The agents this worker runs. */
  agents: readonly Agent[];
  /** Extra or replacement model providers by name (defaults: `anthropic` and `openai`, keys from the environment). */
  providers?: Record<string, ModelProvider>;
  /**
   * Where conversation content and at-most-once claims are stored: a store object, or a setting — a
   * directory, `postgres://…`, `s3://…`. Default: `DURABLE_AGENT_STORE`, else files under `blobs/` of the
   * state folder (one machine only). A store opened from a setting is sealed with the `encryption` keys
   * and closed when the last worker using the plugin stops (or by {@link DurableAgentsPlugin.close}).
   */
  store?: BlobStore | string;
  /** Payload and store encryption keys. Default: `DURABLE_AGENT_KEYS` when set; `false`: none. Clients need the same keys. */
  encryption?: EncryptionSetting;
  /** Prices (USD per million tokens) merged over the built-in table. */
  prices?: PriceTable;
  /** Context windows (tokens) merged over the built-in table. */
  contextWindows?: ContextWindowTable;
  /** Live deltas of streaming model calls (see `createWorker`'s option); `false`: none. */
  streaming?: false | { heartbeat?: boolean; intervalMs?: number; publisher?: DeltaPublisher };
  /**
   * Register durable-agent's search attributes in the worker's namespace if missing (through the
   * worker's connection) and keep them current in runs. Default true; false where the worker may not
   * change the namespace (the approval inbox then finds no run).
   */
  searchAttributes?: boolean;
  /** Where warnings go (search attributes not registered). Default `console.warn`. */
  warn?: (message: string) => void;
  /**
   * OpenTelemetry tracing (off by default): Temporal's interceptors (one trace from the client's start
   * through the workflow to every activity) and the GenAI spans `invoke_agent`, `chat`, `execute_tool`
   * and `approval`. A prebuilt `workflowBundle` must be built with this plugin
   * (`bundleWorkflowCode({ workflowsPath, plugins: [plugin] })`) to hold the workflow interceptors.
   */
  tracing?: TracingOptions;
  /**
   * More secret values to redact from everything leaving the agent activities (failures, results, spans),
   * beside those the worker finds itself: providers' keys, MCP `headers` and `env` values, the store
   * URL's password, `DURABLE_AGENT_KEYS`, credential-named environment variables (`*_API_KEY`,
   * `*_TOKEN`, `*SECRET*`, `*PASSWORD*`…). Give credentials the worker cannot see, e.g. one a tool's own
   * client holds.
   */
  secrets?: readonly string[];
  /**
   * Signed webhooks (Standard Webhooks) notified when a run asks for approval, escalates, gets a
   * decision or lets a request expire. URLs and secrets stay in the worker (redacted like its other
   * secrets); runs record only the targets' names and events. See the approvals guide's "Notifications (webhooks)".
   */
  notifications?: NotificationsOptions;
}

/**
 * durable-agent as a Temporal plugin (worker, bundler, replay worker and client). Make it with
 * {@link durableAgents}.
 */
export class DurableAgentsPlugin implements WorkerPlugin, BundlerPlugin, ClientPlugin {
  readonly name = PLUGIN_NAME;
  /** @internal The agents, by name. */
  readonly registry: AgentRegistry;
  /** The conversation store the activities use. */
  readonly transcripts: TranscriptStore;
  /** The blob store behind {@link transcripts}. */
  readonly store: BlobStore;
  /** The payload codec (encrypts only when keys are set). */
  readonly codec: EncryptionCodec;
  private readonly providers: Map<string, ModelProvider>;
  private readonly mcpClients = new McpClientPool();
  private readonly ownedStore: { close(): Promise<void> } | undefined;
  /** Temporal's own merging of the codec (workers, replayers, clients) and of the workflows path (worker, bundler). */
  private readonly base: SimplePlugin;
  /** Tracing, when the option is set. */
  private readonly tracing: WorkerTracing | undefined;
  /** The secrets redacted at every activity's exit. */
  private readonly redaction: WorkerRedaction;
  private running = 0;
  private closing: Promise<void> | undefined;

  constructor(private readonly settings: DurableAgentsOptions) {
    this.registry = new AgentRegistry(settings.agents);
    notifySpecOf(settings.notifications); // a webhook without a name, URL or secret fails here, not at the first run
    this.tracing = settings.tracing ? new WorkerTracing(settings.tracing) : undefined;
    const keyring = resolveKeyring(settings.encryption);
    const codec = new EncryptionCodec(keyring);
    this.codec = codec;
    this.base = new SimplePlugin({
      name: PLUGIN_NAME,
      dataConverter: (existing) => withCodec(existing, codec),
      workflowsPath: (path) => combinedWorkflowsEntry(path),
    });
    this.providers = new Map(Object.entries({ ...defaultProviders(), ...settings.providers }));
    const sealed = keyring ? { cipher: new KeyringCipher(keyring) } : {};
    const setting = typeof settings.store === 'string' ? settings.store : settings.store ? undefined : process.env[STORE_ENV];
    const opened = setting !== undefined ? openStore(setting, sealed) : undefined;
    this.store = opened ?? (settings.store as BlobStore | undefined) ?? new FileBlobStore(stateDir('blobs'), sealed);
    this.ownedStore = opened;
    this.transcripts = new TranscriptStore(this.store);
    this.redaction = new WorkerRedaction({
      providers: [...this.providers.values()],
      registry: this.registry,
      ...(setting !== undefined ? { storeSetting: setting } : {}),
      ...(keyring ? { keyring } : {}),
      ...(settings.secrets || settings.notifications
        ? { extra: [...(settings.secrets ?? []), ...notificationSecrets(settings.notifications)] }
        : {}),
    });
  }

  /**
   * Adds the agent activities, the codec, the agent workflows (a `workflowsPath` becomes an entry that
   * exports your workflows and the agents'; a prebuilt `workflowBundle` must already hold them, see
   * {@link durableAgents}), registers the search attributes, and sets the heartbeat throttle and sticky
   * timeout lost workers rely on unless you set them.
   *
   * @throws {DurableAgentError} code `invalid_config` when one of your activities has the name of an agent activity.
   */
  async configureWorker(options: WorkerOptions): Promise<WorkerOptions> {
    const based = this.keepBundle(options, this.base.configureWorker(options));
    const configured = this.tracing ? this.tracing.configureWorker(based) : based;
    const searchAttributes = this.settings.searchAttributes !== false && (await this.registerSearchAttributes(options));
    const streaming =
      this.settings.streaming === false
        ? undefined
        : {
            heartbeat: this.settings.streaming?.heartbeat ?? true,
            intervalMs: this.settings.streaming?.intervalMs ?? DEFAULT_LIVE_INTERVAL_MS,
            publisher: this.settings.streaming?.publisher,
          };
    const plain = createActivities({
      registry: this.registry,
      providers: this.providers,
      store: this.transcripts,
      searchAttributes,
      prices: { ...DEFAULT_PRICES, ...this.settings.prices },
      contextWindows: { ...DEFAULT_CONTEXT_WINDOWS, ...this.settings.contextWindows },
      live: { heartbeat: streaming?.heartbeat ?? false, ...(streaming?.publisher ? { publisher: streaming.publisher } : {}) },
      mcp: new McpCatalog(this.mcpClients),
      redact: () => this.redaction.current(),
      ...(this.settings.notifications ? { notifications: this.settings.notifications } : {}),
    });
    // Redacted first: metrics, spans and Temporal only ever see what is left.
    const metered = withAgentMetrics(withRedaction(plain, () => this.redaction.current()));
    const activities = this.tracing ? this.tracing.wrapActivities(metered, this.transcripts) : metered;
    const clash = Object.keys(options.activities ?? {}).filter((name) => name in activities);
    if (clash.length) {
      throw new DurableAgentError(
        'invalid_config',
        `durable-agent: your worker's activities ${clash.map((n) => `"${n}"`).join(', ')} have the names of agent activities; rename them (durable-agent adds ${Object.keys(activities).join(', ')})`,
      );
    }
    return {
      // Heartbeats reach Temporal at least every second (the default throttle is 80% of the heartbeat
      // timeout, too close to the short timeouts that let a lost worker's call move on within seconds).
      maxHeartbeatThrottleInterval: streaming?.heartbeat ? Math.min(streaming.intervalMs, HEARTBEAT_THROTTLE_MS) : HEARTBEAT_THROTTLE_MS,
      // A run whose worker died waits this long on the dead worker's sticky queue before any worker takes it.
      stickyQueueScheduleToStartTimeout: STICKY_TIMEOUT_MS,
      ...configured,
      activities: { ...configured.activities, ...activities },
    };
  }

  /** Adds the codec and the agent workflows to a replay worker (as {@link configureWorker}). */
  configureReplayWorker(options: ReplayWorkerOptions): ReplayWorkerOptions {
    const configured = this.keepBundle(options, this.base.configureReplayWorker(options));
    return this.tracing ? this.tracing.configureReplayWorker(configured) : configured;
  }

  /** Adds the codec to a client: `new Client({ plugins: [plugin] })`. */
  configureClient(options: Omit<ClientOptions, 'plugins'>): Omit<ClientOptions, 'plugins'> {
    const configured = this.base.configureClient(options);
    return this.tracing ? this.tracing.configureClient(configured) : configured;
  }

  /** Bundles the agent workflows with yours (`bundleWorkflowCode({ workflowsPath, plugins: [durableAgents(…)] })` too). */
  configureBundler(options: BundleOptions): BundleOptions {
    const based = this.base.configureBundler(options);
    const configured = this.tracing ? this.tracing.configureBundler(based) : based;
    return {
      ...configured,
      // Traced bundles load the agent workflows per run: with the OpenTelemetry API they import evaluated
      // once and shared, Temporal's OpenTelemetry workflow interceptors make no spans (tracing.test.ts).
      ...(this.tracing ? {} : { preloadModules: withAgentPreload(configured.preloadModules) }),
      webpackConfigHook: resolveFrom(workflowModulesDir(options.workflowsPath), options.webpackConfigHook),
    };
  }

  /** Runs the worker; when the last worker using this plugin stops, closes what the plugin opened. */
  async runWorker(worker: Worker, next: (w: Worker) => Promise<void>): Promise<void> {
    this.running++;
    try {
      await next(worker);
    } finally {
      if (--this.running === 0) await this.close();
    }
  }

  /** Close what the plugin opened: the MCP clients, a store opened from a setting. Safe to call twice. */
  close(): Promise<void> {
    this.closing ??= Promise.all([this.mcpClients.close(), this.ownedStore?.close().catch(() => undefined)]).then(() => undefined);
    return this.closing;
  }

  /** With a prebuilt bundle, the worker bundles nothing: drop the path the plugin would have added. */
  private keepBundle<O extends { workflowBundle?: unknown; workflowsPath?: string }>(given: O, configured: O): O {
    if (!given.workflowBundle) return configured;
    const { workflowsPath: _dropped, ...rest } = configured;
    return (given.workflowsPath !== undefined ? { ...rest, workflowsPath: given.workflowsPath } : rest) as O;
  }

  private async registerSearchAttributes(options: WorkerOptions): Promise<boolean> {
    const warn = this.settings.warn ?? ((m: string) => console.warn(m));
    const namespace = options.namespace ?? 'default';
    // Worker.create without a connection connects to localhost with the defaults: do the same here.
    const own = options.connection ? undefined : await NativeConnection.connect({}).catch(() => undefined);
    const connection = options.connection ?? own;
    if (!connection) {
      warn('durable-agent: could not connect to register search attributes; runs will not be findable by approval state');
      return false;
    }
    try {
      return await ensureSearchAttributes(connection, namespace, warn);
    } finally {
      await own?.close().catch(() => undefined);
    }
  }
}

/**
 * durable-agent as a Temporal plugin: add it to a worker that runs your own workflows and activities,
 * and the same worker runs agents (the agent workflows, their activities, the codec, the search
 * attributes). Also a client plugin: `new Client({ plugins: [plugin] })` gets the codec (a client-only
 * process can use `durableAgentsClient` from `durable-agent/client`, which loads no worker code).
 *
 * With `workflowsPath`, your workflows and the agents' are bundled together. With a prebuilt
 * `workflowBundle`, build it with the plugin (`bundleWorkflowCode({ workflowsPath, plugins: [plugin] })`),
 * or export the agent workflows from your workflows file: `export { agentWorkflow, chainWorkflow } from
 * 'durable-agent/workflows'`.
 *
 * @throws {DefinitionError} two agents with the same name (or another invalid definition).
 * @throws {DurableAgentError} code `invalid_config` when `DURABLE_AGENT_KEYS` is set but unusable, or the store setting is.
 * @example
 * ```ts
 * import { NativeConnection, Worker } from '@temporalio/worker';
 * import { durableAgents } from 'durable-agent/worker';
 * import * as activities from './activities';
 * import { support } from './agents';
 *
 * const worker = await Worker.create({
 *   connection: await NativeConnection.connect({ address: 'localhost:7233' }),
 *   taskQueue: 'orders',
 *   workflowsPath: require.resolve('./workflows'), // your workflows; runAgent() in them
 *   activities,
 *   plugins: [durableAgents({ agents: [support] })],
 * });
 * await worker.run();
 * ```
 */
export function durableAgents(options: DurableAgentsOptions): DurableAgentsPlugin {
  return new DurableAgentsPlugin(options);
}
