/**
 * The worker process of `bench/waiting-runs.ts` (one per phase, so each phase's memory starts clean):
 * `node --expose-gc --import tsx bench/waiting-worker.ts`, with an IPC channel to its parent.
 * Environment: TEMPORAL_ADDRESS, WAIT_TASK_QUEUE, WAIT_STORE_DIR, WAIT_STEPS (page reads before the
 * approval), WAIT_BYTES (bytes per page), WAIT_CACHE (maxCachedWorkflows), WAIT_WORKFLOW_BUNDLE (the prebuilt workflow bundle).
 * Tells its parent `{ type: 'asked' }` when a run's model asks for the approval and
 * `{ type: 'executed', workflowId, at }` when the approved tool runs; answers `{ type: 'memory' }`
 * with its RSS and heap after a forced GC.
 */
import { createWorker } from '../worker';
import { FileBlobStore } from '../store/blob-store';
import { requiredEnv as env, workerProcessMain } from '../test/fixtures/worker-process';
import { waitingAgent } from './waiting-agents';

const send = (message: object) => process.send?.(message);
const gc = (globalThis as { gc?: () => void }).gc;

process.on('message', (m: { type?: string }) => {
  if (m?.type !== 'memory') return;
  gc?.();
  const { rss, heapUsed } = process.memoryUsage();
  send({ type: 'memory', rss, heapUsed });
});

workerProcessMain(async (connection) => {
  const steps = Number(env('WAIT_STEPS'));
  const { agent, provider } = waitingAgent(steps, Number(env('WAIT_BYTES')), {
    asked: () => send({ type: 'asked' }),
    executed: (workflowId) => send({ type: 'executed', workflowId, at: Date.now() }),
  });
  return createWorker({
    agents: [agent],
    providers: { scripted: provider },
    store: new FileBlobStore(env('WAIT_STORE_DIR')),
    connection,
    taskQueue: env('WAIT_TASK_QUEUE'),
    workflowBundle: { codePath: env('WAIT_WORKFLOW_BUNDLE') },
    temporal: { maxCachedWorkflows: Number(env('WAIT_CACHE')), identity: `waiting-worker-${process.pid}` },
  });
});
