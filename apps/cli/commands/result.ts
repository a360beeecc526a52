/** `durable-agent result <workflowId>`: print a run's result, waiting for it if it is still running. */
import { aborted, INTERRUPTED_EXIT, untilAborted } from '../abort';
import { exitCodeOf, printResult } from '../follow';
import { definitionLine } from '../format';
import { Output } from '../terminal-output';
import { ensureRunWorker, noWorkerLine } from '../run-worker';
import { servedAgents } from '../served';
import { Session } from '../session';
import type { ConnectionFlags } from '../target';
import { resolveTarget } from '../target';
import { findRun } from './existing';

/** Options of `result`. */
export interface ResultFlags extends ConnectionFlags {
  /** A module of the user's agents: the CLI may host a worker for runs of these. */
  agents?: string;
  json?: boolean;
}

/** Print the result and return the exit code. */
export async function resultCommand(workflowId: string, flags: ResultFlags, signal: AbortSignal): Promise<number> {
  const out = new Output(flags.json);
  const agents = await servedAgents(flags.agents);
  const session = await Session.open(resolveTarget(flags), { embed: 'if-state', agents, log: (l) => out.note(l) });
  try {
    const { run, description, running } = await findRun(session, workflowId);
    const definition = definitionLine(description.memo);
    if (definition) out.note(definition);
    if (running) {
      const worker = await untilAborted(ensureRunWorker(session, description), signal);
      if (worker.kind === 'hosted') out.note(`worker: started an in-process worker on task queue "${description.taskQueue}"`);
      if (worker.kind === 'none') {
        out.note(noWorkerLine(description.taskQueue, worker.reason));
        out.note(
          `run ${workflowId} is still running; the run continues when a worker for it runs. Meanwhile waiting for its result through the server (Ctrl-C stops waiting, not the run)...`,
        );
      } else {
        out.note(`run ${workflowId} is still running; waiting for it to end...`);
      }
    }
    const pending = run.result();
    pending.catch(() => undefined);
    const result = await Promise.race([pending, aborted(signal).then(() => undefined)]);
    if (!result) return INTERRUPTED_EXIT;
    printResult(out, result);
    return exitCodeOf(result);
  } finally {
    await session.close();
  }
}
