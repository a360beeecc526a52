/** A worker and client on the shared dev server, one per test file, on a task queue of its own. */
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Runtime } from '@temporalio/worker';
import type { Agent } from '../../src/agents/define';
import { AgentClient } from '../../src/client';
import type { AgentWorker, AgentWorkerOptions } from '../../src/worker';
import { createWorker } from '../../src/worker';
import type { PriceTable } from '../../src/integrations/providers/pricing';
import type { ModelProvider } from '../../src/integrations/providers/types';
import type { BlobStore } from '../../src/integrations/store/blob-store';
import { FileBlobStore } from '../../src/integrations/store/blob-store';
import { KeyringCipher } from '../../src/integrations/encryption/cipher';
import type { Keyring } from '../../src/integrations/encryption/keyring';
import { EncryptionCodec } from '../../src/integrations/encryption/payload-codec';
import { testLogs } from './test-logs';

let runtimeInstalled = false;

/**
 * Install the Temporal runtime of this test process, once: its log (the SDK's and, forwarded, the core's)
 * goes to `testLogs`, which keeps warnings and errors per test and prints them only for a test that fails
 * (test/helpers/test-logs.ts; `DURABLE_AGENT_TEST_LOGS=1` prints them all as they come).
 */
export function installTestRuntime(): void {
  if (runtimeInstalled) return;
  Runtime.install({ logger: testLogs, telemetryOptions: { logging: { forward: {}, filter: { core: testLogs.level, other: 'ERROR' } } } });
  // The runtime of the moment: one that shut down (its last worker and connection closed) flushed its log,
  // and the next one (`Runtime.instance()`, with these same options) holds entries of its own.
  testLogs.flushBeforeFinish = () => Runtime._instance?.flushLogs();
  runtimeInstalled = true;
}

/** Everything a test needs. */
export interface Harness {
  client: AgentClient;
  temporal: Client;
  worker: AgentWorker;
  taskQueue: string;
  storeDir: string;
  /** Stop the worker and close connections. */
  stop(): Promise<void>;
}

/** Start a worker for `agents` on the shared server (or on the server at `address`). */
export async function startHarness(options: {
  agents: Agent[];
  /** `host:port` of the Temporal server; default the shared dev server. */
  address?: string;
  providers?: Record<string, ModelProvider>;
  storeDir?: string;
  /** The worker's store (a PostgreSQL or S3 one, say), instead of files in `storeDir`; its owner closes it. */
  store?: BlobStore;
  /** Reuse a task queue (e.g. to start a new worker for runs of an earlier one). */
  taskQueue?: string;
  /** Prices merged over the built-in table. */
  prices?: PriceTable;
  /** Encrypt payloads (worker and client) and the store with these keys. Default: no encryption, whatever the environment holds. */
  encryption?: Keyring;
  /** A workflow bundle of the test's own (its workflows and the agents'), instead of the shared one. */
  workflowBundlePath?: string;
  /** Temporal worker options passed through to `createWorker` (a small `maxCachedWorkflows`, say). */
  temporal?: AgentWorkerOptions['temporal'];
  /** Live deltas' transports (`createWorker`'s `streaming`); default the heartbeat transport alone. */
  streaming?: AgentWorkerOptions['streaming'];
  /** Approval notifications (`createWorker`'s `notifications`). */
  notifications?: AgentWorkerOptions['notifications'];
  /**
   * The rules entity (`createWorker`'s `approvalRules`). Default false: test workers do not poll the
   * namespace's one rules queue (workers of other test files, with other bundles or keys, would take its tasks).
   */
  approvalRules?: AgentWorkerOptions['approvalRules'];
  /** The namespace of the worker and client (default `default`; tests that change standing rules use one of `RULES_TEST_NAMESPACES`). */
  namespace?: string;
}): Promise<Harness> {
  installTestRuntime();
  const address = options.address ?? inject('temporalAddress');
  const taskQueue = options.taskQueue ?? `test-${randomUUID()}`;
  const storeDir = options.storeDir ?? mkdtempSync(join(tmpdir(), 'durable-agent-store-'));
  const nativeConnection = await NativeConnection.connect({ address });
  const worker = await createWorker({
    agents: options.agents,
    ...(options.providers ? { providers: options.providers } : {}),
    store: options.store ?? new FileBlobStore(storeDir, options.encryption ? { cipher: new KeyringCipher(options.encryption) } : {}),
    encryption: options.encryption ?? false,
    ...(options.prices ? { prices: options.prices } : {}),
    connection: nativeConnection,
    ...(options.namespace ? { namespace: options.namespace } : {}),
    taskQueue,
    workflowBundle: { codePath: options.workflowBundlePath ?? inject('workflowBundlePath') },
    ...(options.temporal ? { temporal: options.temporal } : {}),
    ...(options.streaming !== undefined ? { streaming: options.streaming } : {}),
    ...(options.notifications ? { notifications: options.notifications } : {}),
    approvalRules: options.approvalRules ?? false,
  });
  const running = worker.run();
  const connection = await Connection.connect({ address });
  const temporal = new Client({
    connection,
    ...(options.namespace ? { namespace: options.namespace } : {}),
    dataConverter: { payloadCodecs: [new EncryptionCodec(options.encryption)] },
  });
  return {
    client: new AgentClient(temporal, taskQueue),
    temporal,
    worker,
    taskQueue,
    storeDir,
    async stop() {
      worker.shutdown();
      await running;
      await connection.close();
      await nativeConnection.close();
    },
  };
}

/** A unique workflow id for a test. */
export function testId(name: string): string {
  return `${name}-${randomUUID().slice(0, 8)}`;
}
