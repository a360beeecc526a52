/** `durable-agent result <workflowId>`: print a run's result, waiting for it if it is still running. */
import { aborted, INTERRUPTED_EXIT, untilAborted } from '../abort';
import { exitCodeOf, printResult } from '../follow';
import { Output } from '../output';
import { Session } from '../session';
import type { ConnectionFlags } from '../target';
import { resolveTarget } from '../target';
import { findRun } from './existing';

/** Options of `result`. */
export interface ResultFlags extends Omit<ConnectionFlags, 'taskQueue'> {
  json?: boolean;
}

/** Print the result and return the exit code. */
export async function resultCommand(workflowId: string, flags: ResultFlags, signal: AbortSignal): Promise<number> {
  const out = new Output(flags.json);
  const session = await Session.open(resolveTarget(flags), { embed: 'if-state', log: (l) => out.note(l) });
  try {
    const { run, description, running } = await findRun(session, workflowId);
    if (running) {
      if (await untilAborted(session.ensureWorker(description.taskQueue), signal)) {
        out.note(`worker: started an in-process worker on task queue "${description.taskQueue}"`);
      }
      out.note(`run ${workflowId} is still running; waiting for it to end...`);
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
