/**
 * A worker process of the chaos campaign: `node --import tsx bench/chaos/worker.ts`, started by
 * bench/chaos/fleet.ts in a working directory of its own. Runs the chaos agent on a prebuilt workflow
 * bundle. Configured by environment variables: TEMPORAL_ADDRESS, CHAOS_TASK_QUEUE, CHAOS_WORKFLOW_BUNDLE,
 * CHAOS_STORE (any store setting: a directory, postgres://…, s3://…), CHAOS_LOG_DIR.
 * Prints `ready` once it polls; exits after SIGTERM/SIGINT, or dies on SIGKILL.
 */
import { createWorker } from '../../src/worker';
import { requiredEnv as env, workerProcessMain } from '../../test/fixtures/worker-process';
import { chaosAgent } from './agent';

workerProcessMain(async (connection) => {
  const { agent, provider } = chaosAgent(env('CHAOS_LOG_DIR'));
  return createWorker({
    agents: [agent],
    providers: { scripted: provider },
    store: env('CHAOS_STORE'),
    connection,
    taskQueue: env('CHAOS_TASK_QUEUE'),
    workflowBundle: { codePath: env('CHAOS_WORKFLOW_BUNDLE') },
    temporal: { identity: `chaos-worker-${process.pid}` },
  });
});
