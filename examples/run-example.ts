/**
 * Runs an example by hand: connects to Temporal (`TEMPORAL_ADDRESS`, else localhost on port 7233 or
 * `DURABLE_AGENT_DEV_PORT`; when nothing answers there, the embedded dev server the CLI starts, state
 * in `~/.durable-agent`), hosts a worker for the example's agents in this process on a task queue of
 * its own, runs the example's `main`, then stops what it started. This is the CLI's own session code
 * (the one `durable-agent run` uses), not a copy.
 */
import type { AgentClient } from '../src/entry/client';
import type { AnyAgent, ModelProvider } from '../src/entry/worker';
import { errorMessage } from '../apps/cli/errors';
import { Session } from '../apps/cli/session';
import { resolveTarget } from '../apps/cli/target';

/** What an example is: the worker side (agents and the providers they call) and the client side (`main`). */
export interface Example<T> {
  agents: AnyAgent[];
  providers: Record<string, ModelProvider>;
  main: (client: AgentClient, log: (line: string) => void) => Promise<T>;
}

/** Task queue of the examples' worker, apart from `durable-agent dev`'s (which serves the demo agents). */
export const EXAMPLES_TASK_QUEUE = 'durable-agent-examples';

/** Run `example` against a server and an in-process worker; `main` prints what happens. Sets the exit code on failure. */
export async function runExample<T>(example: Example<T>): Promise<void> {
  const log = (line: string) => console.log(line);
  const { TEMPORAL_ADDRESS: address, DURABLE_AGENT_DEV_PORT: port } = process.env;
  const target = resolveTarget({
    ...(address ? { address } : {}),
    ...(port ? { port: Number(port) } : {}),
    taskQueue: EXAMPLES_TASK_QUEUE,
  });
  const agents = {
    label: 'the example agents',
    names: example.agents.map((a) => a.name),
    load: () => ({ agents: example.agents, providers: example.providers }),
  };
  let session: Session | undefined;
  try {
    session = await Session.open(target, { embed: 'auto', agents, log: (l) => console.error(l) });
    console.error(`starting a worker on task queue "${target.taskQueue}" (bundling the workflow code)...`);
    await session.hostWorker();
    await example.main(session.agentClient(target.taskQueue), log);
  } catch (err) {
    console.error(`error: ${errorMessage(err)}`);
    process.exitCode = 1;
  } finally {
    await session?.close();
  }
}
