/**
 * `durable-agent report <workflowId>`: the run report of a finished run as tables (steps, tool calls,
 * totals). A run still running has no report yet: the command says so, with what its snapshot knows,
 * instead of waiting.
 */
import { CliError, errorMessage } from '../errors';
import { Output } from '../output';
import { formatReport, formatSnapshot } from '../report-format';
import { Session } from '../session';
import type { ConnectionFlags } from '../target';
import { resolveTarget } from '../target';
import { findRun } from './existing';

/** Options of `report`. */
export interface ReportFlags extends Omit<ConnectionFlags, 'taskQueue'> {
  json?: boolean;
}

/** Print the report and return the exit code (0, or 2 when the run has not ended yet). */
export async function reportCommand(workflowId: string, flags: ReportFlags): Promise<number> {
  const out = new Output(Boolean(flags.json));
  const session = await Session.open(resolveTarget(flags), { embed: 'if-state', log: (l) => out.note(l) });
  try {
    const { run, description, running } = await findRun(session, workflowId);
    if (running) {
      const snapshot = (await session.hasWorker(description.taskQueue)) ? await run.snapshot() : undefined;
      if (flags.json) out.json({ workflowId, running: true, startedAt: description.startTime.toISOString(), ...(snapshot ? { snapshot } : {}) });
      else if (snapshot) out.line(...formatSnapshot(workflowId, snapshot, out.styles));
      else {
        out.line(
          `run ${workflowId} is still running (started ${description.startTime.toISOString()}); no worker polls its task queue "${description.taskQueue}" to tell more. ` +
            `Its report exists once it ends (durable-agent result ${workflowId} waits for it).`,
        );
      }
      return 2;
    }
    if (description.status.name !== 'COMPLETED') {
      throw new CliError(`run "${workflowId}" ended ${description.status.name.toLowerCase()} without a result, so it has no report`);
    }
    let result;
    try {
      result = await run.result();
    } catch (err) {
      throw new CliError(`cannot read the result of run "${workflowId}": ${errorMessage(err)}`);
    }
    if (flags.json) out.json(result.report);
    else out.line(...formatReport(result, out.styles));
    return 0;
  } finally {
    await session.close();
  }
}
