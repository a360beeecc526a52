/** `durable-agent cancel <workflowId>`: cancel a run; it ends `cancelled` with its partial transcript. */
import type { AgentRunResult } from '../../../src/entry/client';
import { CliError } from '../errors';
import { aborted, untilAborted } from '../abort';
import { Output } from '../terminal-output';
import { ensureRunWorker, noWorkerLine } from '../run-worker';
import { servedAgents } from '../served';
import { Session } from '../session';
import type { ConnectionFlags } from '../target';
import { resolveTarget } from '../target';
import { findRun } from './existing';

/** How long `cancel` waits for the run to end before leaving it to its worker. */
const WAIT_MS = 30_000;

/** Options of `cancel`. */
export interface CancelFlags extends ConnectionFlags {
  /** A module of the user's agents: the CLI may host a worker for runs of these. */
  agents?: string;
}

/** Cancel the run and return the exit code. */
export async function cancelCommand(workflowId: string, flags: CancelFlags, signal: AbortSignal): Promise<number> {
  const out = new Output();
  const agents = await servedAgents(flags.agents);
  const session = await Session.open(resolveTarget(flags), { embed: 'if-state', agents, log: (l) => out.note(l) });
  try {
    const { run, description, running } = await findRun(session, workflowId);
    if (!running) throw new CliError(`run "${workflowId}" has already ended (${description.status.name.toLowerCase()})`);
    await run.cancel();
    out.line(`cancellation requested for run ${workflowId}`);
    // The run handles the cancellation in its worker: make sure there is one (when that is safe), and wait a little.
    const worker = await untilAborted(ensureRunWorker(session, description), signal);
    if (worker.kind === 'none') {
      out.line(
        noWorkerLine(description.taskQueue, worker.reason),
        `The cancellation is recorded; the run ends when its worker processes the cancellation (see: durable-agent result ${workflowId}).`,
      );
      return 0;
    }
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
