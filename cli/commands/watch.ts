/** `durable-agent watch <workflowId>`: follow a run's events until it ends, then print its result. */
import { INTERRUPTED_EXIT, untilAborted } from '../abort';
import { exitCodeOf, followRun, printResult } from '../follow';
import { Output } from '../output';
import { Session } from '../session';
import type { ConnectionFlags } from '../target';
import { resolveTarget } from '../target';
import { findRun } from './existing';

/** Options of `watch`. */
export interface WatchFlags extends Omit<ConnectionFlags, 'taskQueue'> {
  json?: boolean;
}

/** Follow the run and return the exit code. */
export async function watchCommand(workflowId: string, flags: WatchFlags, signal: AbortSignal): Promise<number> {
  const out = new Output(flags.json);
  const session = await Session.open(resolveTarget(flags), { embed: 'if-state', log: (l) => out.note(l) });
  try {
    const { run, description } = await findRun(session, workflowId);
    // Reading events is a query, which needs a worker for the run's task queue even after it ended.
    if (await untilAborted(session.ensureWorker(description.taskQueue), signal)) {
      out.note(`worker: started an in-process worker on task queue "${description.taskQueue}"`);
    }
    out.line(out.styles.bold(`run ${workflowId} (${description.status.name.toLowerCase()})`));
    const result = await followRun(run, out, { signal, check: () => session.checkWorker() });
    if (!result) return INTERRUPTED_EXIT;
    printResult(out, result);
    return exitCodeOf(result);
  } finally {
    await session.close();
  }
}
