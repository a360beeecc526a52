import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { NativeConnection, Worker } from '@temporalio/worker';
import type { WorkerOptions as TemporalWorkerOptions } from '@temporalio/worker';
import { DEFAULT_TASK_QUEUE } from '../core/contract';
import type { Agent } from '../agents/define';
import { AgentRegistry } from '../agents/registry';
import { createActivities } from '../activities';
import type { PriceTable } from '../providers/pricing';
import { DEFAULT_PRICES } from '../providers/pricing';
import type { ModelProvider } from '../providers/types';
import { defaultProviders } from '../providers';
import type { BlobStore } from '../store/blob-store';
import { FileBlobStore } from '../store/blob-store';
import { TranscriptStore } from '../store/transcript-store';
import { stateDir } from './paths';
import { ensureSearchAttributes } from './search-attributes';

/** Options of {@link createWorker}. */
export interface AgentWorkerOptions {
  /** The agents this worker runs. */
  agents: readonly Agent[];
  /** Extra or replacement model providers by name (defaults: `anthropic` and `openai`, keys from the environment). */
  providers?: Record<string, ModelProvider>;
  /** Where conversation content is stored. Default: files under `.durable-agent/blobs`. */
  store?: BlobStore;
  /** Connection to Temporal. Default: connect to `address`. */
  connection?: NativeConnection;
  /** Default `TEMPORAL_ADDRESS` or `localhost:7233`. */
  address?: string;
  namespace?: string;
  /** Default `durable-agent`. */
  taskQueue?: string;
  /** A prebuilt workflow bundle (tests and deployments reuse one); default: bundle `workflows/` now. */
  workflowBundle?: TemporalWorkerOptions['workflowBundle'];
  /** Prices (USD per million tokens) by model id or prefix, merged over the built-in table; used for run costs. */
  prices?: PriceTable;
  /**
   * Register durable-agent's search attributes (approval state, status, agent name) if missing, and keep
   * them current in runs. Default true; set false where the worker may not change the namespace.
   */
  searchAttributes?: boolean;
  /** Anything else for Temporal's Worker.create (concurrency, tuning, interceptors…). */
  temporal?: Partial<Omit<TemporalWorkerOptions, 'connection' | 'namespace' | 'taskQueue' | 'activities' | 'workflowBundle' | 'workflowsPath'>>;
}

/** A running agent worker. */
export interface AgentWorker {
  readonly worker: Worker;
  readonly taskQueue: string;
  readonly registry: AgentRegistry;
  readonly transcripts: TranscriptStore;
  /** Poll until shut down. */
  run(): Promise<void>;
  /** Run until `promise` settles, then shut down. */
  runUntil<T>(promise: Promise<T> | (() => Promise<T>)): Promise<T>;
  shutdown(): void;
}

/** Path of the workflow entry point, for bundling (compiled `.js` when running from `dist/`, else `.ts`). */
export const WORKFLOWS_PATH = ['.js', '.ts'].map((ext) => join(__dirname, '..', 'workflows', `index${ext}`)).find((p) => existsSync(p)) ?? join(__dirname, '..', 'workflows');

/** Create a worker that runs the agent workflow and its activities for `agents`. */
export async function createWorker(options: AgentWorkerOptions): Promise<AgentWorker> {
  const registry = new AgentRegistry(options.agents);
  const providers = new Map<string, ModelProvider>(Object.entries({ ...defaultProviders(), ...options.providers }));
  const transcripts = new TranscriptStore(options.store ?? new FileBlobStore(stateDir('blobs')));
  const taskQueue = options.taskQueue ?? DEFAULT_TASK_QUEUE;
  const connection =
    options.connection ?? (await NativeConnection.connect({ address: options.address ?? process.env.TEMPORAL_ADDRESS ?? 'localhost:7233' }));
  const namespace = options.namespace ?? 'default';
  const searchAttributes = options.searchAttributes !== false && (await ensureSearchAttributes(connection, namespace, (m) => console.warn(m)));
  const worker = await Worker.create({
    ...options.temporal,
    connection,
    namespace,
    taskQueue,
    activities: createActivities({ registry, providers, store: transcripts, searchAttributes, prices: { ...DEFAULT_PRICES, ...options.prices } }),
    ...(options.workflowBundle ? { workflowBundle: options.workflowBundle } : { workflowsPath: WORKFLOWS_PATH }),
  });
  return {
    worker,
    taskQueue,
    registry,
    transcripts,
    run: () => worker.run(),
    runUntil: (p) => worker.runUntil(p),
    shutdown: () => {
      if (worker.getState() === 'RUNNING') worker.shutdown();
    },
  };
}
