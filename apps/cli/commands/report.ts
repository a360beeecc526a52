/**
 * `durable-agent report <workflowId>`: the run report of a finished run as tables (steps, tool calls,
 * totals). A run still running has no report yet: the command says so, with what its snapshot knows,
 * instead of waiting.
 */
import { readRunReport, RunNotFoundError } from '../../../src/entry/client';
import { CliError, errorMessage } from '../errors';
import { Output } from '../terminal-output';
import { formatReport, formatSnapshot } from '../report-format';
import { Session } from '../session';
import type { ConnectionFlags } from '../target';
import { resolveTarget } from '../target';

/** Options of `report`. */
export interface ReportFlags extends Omit<ConnectionFlags, 'taskQueue'> {
  json?: boolean;
}

/** Print the report and return the exit code (0, or 2 when the run has not ended yet). */
export async function reportCommand(workflowId: string, flags: ReportFlags): Promise<number> {
  if (!workflowId.trim()) throw new CliError('the workflow id is empty');
  const out = new Output(Boolean(flags.json));
  const session = await Session.open(resolveTarget(flags), { embed: 'if-state', log: (l) => out.note(l) });
  try {
    let view;
    try {
      view = await readRunReport(session.agentClient().get(workflowId), { hasWorker: (taskQueue) => session.hasWorker(taskQueue) });
    } catch (err) {
      if (err instanceof RunNotFoundError) throw new CliError(err.message);
      throw new CliError(`cannot read the result of run "${workflowId}": ${errorMessage(err)}`);
    }
    if (!view.ended) {
      const { snapshot } = view;
      if (flags.json) out.json({ workflowId, running: true, startedAt: view.startedAt, ...(snapshot ? { snapshot } : {}) });
      else if (snapshot) out.line(...formatSnapshot(workflowId, snapshot, out.styles));
      else {
        out.line(
          `run ${workflowId} is still running (started ${view.startedAt}); no worker polls its task queue "${view.taskQueue}" to tell more. ` +
            `Its report exists once it ends (durable-agent result ${workflowId} waits for it).`,
        );
      }
      return 2;
    }
    if (!('report' in view)) throw new CliError(`run "${workflowId}" ended ${view.status} without a result, so it has no report`);
    if (flags.json) out.json(view.report);
    else out.line(...formatReport(view, out.styles));
    return 0;
  } finally {
    await session.close();
  }
}
