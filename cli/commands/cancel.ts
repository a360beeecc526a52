/** `durable-agent cancel <workflowId>`: cancel a run; it ends `cancelled` with its partial transcript. */
import type { AgentRunResult } from '../../core/result';
import { CliError } from '../errors';
import { aborted, untilAborted } from '../abort';
import { Output } from '../output';
import { Session } from '../session';
import type { ConnectionFlags } from '../target';
import { resolveTarget } from '../target';
import { findRun } from './existing';

/** How long `cancel` waits for the run to end before leaving it to its worker. */
const WAIT_MS = 30_000;

/** Cancel the run and return the exit code. */
export async function cancelCommand(workflowId: string, flags: Omit<ConnectionFlags, 'taskQueue'>, signal: AbortSignal): Promise<number> {
  const out = new Output();
  const session = await Session.open(resolveTarget(flags), { embed: 'if-state', log: (l) => out.note(l) });
  try {
    const { run, description, running } = await findRun(session, workflowId);
    if (!running) throw new CliError(`run "${workflowId}" has already ended (${description.status.name.toLowerCase()})`);
    await run.cancel();
    out.line(`cancellation requested for run ${workflowId}`);
    // The run handles the cancellation in its worker: make sure there is one, and wait a little.
    await untilAborted(session.ensureWorker(description.taskQueue), signal);
    const pending = run.result();
    pending.catch(() => undefined);
    const timeout = new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), WAIT_MS).unref());
    const result: AgentRunResult | undefined = await Promise.race([pending, timeout, aborted(signal).then(() => undefined)]);
    if (result) out.line(`run ${workflowId} ended: ${result.status} after ${result.steps} step${result.steps === 1 ? '' : 's'}`);
    else out.line(`the run ends as soon as its worker processes the cancellation (durable-agent result ${workflowId})`);
    return 0;
  } finally {
    await session.close();
  }
}
