/**
 * A worker process of the chaos campaign: `node --import tsx bench/chaos/worker.ts`, started by
 * bench/chaos/fleet.ts in a working directory of its own. Runs the chaos agent on a prebuilt workflow
 * bundle. Configured by environment variables: TEMPORAL_ADDRESS, CHAOS_TASK_QUEUE, CHAOS_WORKFLOW_BUNDLE,
 * CHAOS_STORE (any store setting: a directory, postgres://…, s3://…), CHAOS_LOG_DIR.
 * Prints `ready` once it polls; exits after SIGTERM/SIGINT, or dies on SIGKILL.
 */
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { createWorker } from '../../worker';
import { chaosAgent } from './agent';

function env(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
}

/** Connect, retrying for a minute: the campaign may be restarting the Temporal server right now. */
async function connect(address: string): Promise<NativeConnection> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      return await NativeConnection.connect({ address });
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const { agent, provider } = chaosAgent(env('CHAOS_LOG_DIR'));
  const connection = await connect(env('TEMPORAL_ADDRESS'));
  const worker = await createWorker({
    agents: [agent],
    providers: { scripted: provider },
    store: env('CHAOS_STORE'),
    connection,
    taskQueue: env('CHAOS_TASK_QUEUE'),
    workflowBundle: { codePath: env('CHAOS_WORKFLOW_BUNDLE') },
    temporal: { identity: `chaos-worker-${process.pid}` },
  });
  const running = worker.run();
  console.log('ready');
  await running;
  await worker.close();
  await connection.close();
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
