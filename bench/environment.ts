/**
 * Everything the benchmark runs on, set up once: one Temporal server, one workflow bundle per side,
 * and two workers with identical settings on one connection: the durable-agent worker and the
 * baseline worker, each on a task queue of its own.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker, bundleWorkflowCode } from '@temporalio/worker';
import type { WorkerOptions } from '@temporalio/worker';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { AgentClient } from '../src/client';
import { startDevServer } from '../apps/cli/dev-server/dev-server';
import { ensureTemporalCli } from '../apps/cli/dev-server/temporal-cli';
import type { BlobStore } from '../src/integrations/store/blob-store';
import { FileBlobStore } from '../src/integrations/store/blob-store';
import { WORKFLOWS_PATH, createWorker } from '../src/worker';
import { withAgentPreload } from '../src/worker/workflows-entry';
import type { BenchAgentOptions } from './agents';
import { benchAgents } from './agents';
import { baselineActivities } from './baseline/activities';
import { naiveActivities } from './naive/activities';
import type { StepMeter } from './step-meter';
import type { ScriptedProvider } from '../src/integrations/providers/scripted';

/** Worker settings both workers get, pinned (these are the SDK defaults, plus a cache holding every run). */
export const WORKER_SETTINGS = {
  maxConcurrentWorkflowTaskExecutions: 40,
  maxConcurrentActivityTaskExecutions: 100,
  maxCachedWorkflows: 1000,
} as const satisfies Partial<WorkerOptions>;

/** The running benchmark environment. */
export interface BenchEnvironment {
  /** Where the server is, and whether it was started here. */
  server: string;
  temporal: Client;
  agents: AgentClient;
  baselineQueue: string;
  /** Task queue of the naive loop's worker (`bench/naive/`), when it was asked for. */
  naiveQueue?: string;
  /** The scripted model the agent worker serves (it records the largest request each script was sent). */
  provider: ScriptedProvider;
  /** The blob store the agent worker keeps conversations in. */
  store: BlobStore;
  /** Stop the workers, close connections, stop the server if started here, delete the blob store. */
  close(): Promise<void>;
}

const noop = () => undefined;
const quietLogger = { log: noop, trace: noop, debug: noop, info: noop, warn: noop, error: (m: string) => console.error(m) };

/**
 * Start the server (unless `TEMPORAL_ADDRESS` names one), bundle both sides once and start both workers;
 * with `naive`, also a worker for the naive loop (`bench/naive/`); with `meter`, the agent worker's model
 * provider and blob store are metered by it.
 */
/**
 * The Temporal server a bench uses: `TEMPORAL_ADDRESS` when set, else an in-memory dev server started
 * here (its teardown added to `cleanups`). Returns its address and how to describe it.
 */
export async function benchServer(
  log: (line: string) => void,
  cleanups: Array<() => Promise<unknown> | unknown>,
): Promise<{ address: string; server: string }> {
  const given = process.env.TEMPORAL_ADDRESS;
  if (given) return { address: given, server: `${given} (TEMPORAL_ADDRESS)` };
  const env: TestWorkflowEnvironment = await startDevServer({ cli: ensureTemporalCli(log) });
  cleanups.push(() => env.teardown());
  return { address: env.address, server: `dev server started here, in-memory, at ${env.address}` };
}

export async function startBenchEnvironment(
  options: BenchAgentOptions & { naive?: boolean; meter?: StepMeter },
  log: (line: string) => void,
): Promise<BenchEnvironment> {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const cleanups: Array<() => Promise<void> | void> = [];
  const close = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  };
  try {
    const { address, server } = await benchServer(log, cleanups);
    log('bundling workflows…');
    const [agentBundle, baselineBundle, naiveBundle] = await Promise.all([
      bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, preloadModules: withAgentPreload(), logger: quietLogger }),
      bundleWorkflowCode({ workflowsPath: join(__dirname, 'baseline', 'workflows.ts'), logger: quietLogger }),
      options.naive ? bundleWorkflowCode({ workflowsPath: join(__dirname, 'naive', 'workflows.ts'), logger: quietLogger }) : undefined,
    ]);

    const storeDir = mkdtempSync(join(tmpdir(), 'durable-agent-bench-'));
    cleanups.push(() => rmSync(storeDir, { recursive: true, force: true }));
    const native = await NativeConnection.connect({ address });
    cleanups.push(() => native.close());
    // Large enough to read back the naive loop's history, whose pages hold megabyte payloads.
    const connection = await Connection.connect({ address, channelArgs: { 'grpc.max_receive_message_length': 256 * 1024 * 1024 } });
    cleanups.push(() => connection.close());
    const temporal = new Client({ connection });

    const id = randomUUID().slice(0, 8);
    const { agents, provider } = benchAgents(options);
    const store = new FileBlobStore(storeDir);
    const agentWorker = await createWorker({
      agents,
      providers: { scripted: options.meter ? options.meter.provider(provider) : provider },
      store: options.meter ? options.meter.store(store) : store,
      connection: native,
      taskQueue: `bench-agent-${id}`,
      workflowBundle: { code: agentBundle.code },
      temporal: { ...WORKER_SETTINGS },
    });
    const baselineQueue = `bench-baseline-${id}`;
    const baselineWorker = await Worker.create({
      ...WORKER_SETTINGS,
      connection: native,
      taskQueue: baselineQueue,
      activities: baselineActivities,
      workflowBundle: { code: baselineBundle.code },
    });
    const naiveQueue = naiveBundle ? `bench-naive-${id}` : undefined;
    const naiveWorker = naiveBundle
      ? await Worker.create({
          ...WORKER_SETTINGS,
          connection: native,
          taskQueue: naiveQueue!,
          activities: naiveActivities,
          workflowBundle: { code: naiveBundle.code },
        })
      : undefined;
    for (const worker of [agentWorker.worker, baselineWorker, ...(naiveWorker ? [naiveWorker] : [])]) {
      const running = worker.run();
      cleanups.push(async () => {
        if (worker.getState() === 'RUNNING') worker.shutdown();
        await running;
      });
    }
    return {
      server,
      temporal,
      store,
      provider,
      agents: new AgentClient(temporal, agentWorker.taskQueue),
      baselineQueue,
      ...(naiveQueue ? { naiveQueue } : {}),
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}
