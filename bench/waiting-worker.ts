/**
 * The worker process of `bench/waiting-runs.ts` (one per measured configuration, so each one's memory
 * starts clean): `node --expose-gc --import tsx bench/waiting-worker.ts`, with an IPC channel to its parent.
 * Environment: TEMPORAL_ADDRESS, WAIT_TASK_QUEUE, WAIT_STORE_DIR, WAIT_STEPS (page reads before the
 * approval), WAIT_BYTES (bytes per page), WAIT_CACHE (maxCachedWorkflows), WAIT_WORKFLOW_BUNDLE (the
 * prebuilt workflow bundle); optional WAIT_MAIN_THREAD=1 (Temporal's `debugMode`: workflows run on the
 * main thread, so the heap figures include them) and WAIT_REUSE_V8=0 (`reuseV8Context: false`).
 * Tells its parent `{ type: 'asked' }` when a run's model asks for the approval and
 * `{ type: 'executed', workflowId, at }` when the approved tool runs; answers `{ type: 'memory' }`
 * with its memory after a forced GC (of the main thread's heap: with workflows on their own thread,
 * that thread's heap is only in the RSS).
 */
import { readFileSync } from 'node:fs';
import { createWorker } from '../src/worker';
import { FileBlobStore } from '../src/integrations/store/blob-store';
import { requiredEnv as env, workerProcessMain } from '../test/fixtures/worker-process';
import { waitingAgent } from './waiting-agents';

const send = (message: object) => process.send?.(message);
const gc = (globalThis as { gc?: () => void }).gc;

/** Anonymous (heap-like) resident memory of this process, from the kernel's rollup, in bytes. */
function anonymousBytes(): number {
  try {
    const match = /^Anonymous:\s+(\d+) kB/m.exec(readFileSync('/proc/self/smaps_rollup', 'utf8'));
    return match ? Number(match[1]) * 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

process.on('message', (m: { type?: string }) => {
  if (m?.type !== 'memory') return;
  gc?.();
  const { rss, heapUsed, heapTotal, external } = process.memoryUsage();
  send({ type: 'memory', rss, heapUsed, heapTotal, external, anonymous: anonymousBytes(), peakRss: process.resourceUsage().maxRSS * 1024 });
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
    temporal: {
      maxCachedWorkflows: Number(env('WAIT_CACHE')),
      identity: `waiting-worker-${process.pid}`,
      ...(process.env.WAIT_MAIN_THREAD === '1' ? { debugMode: true } : {}),
      ...(process.env.WAIT_REUSE_V8 === '0' ? { reuseV8Context: false } : {}),
    },
  });
});
