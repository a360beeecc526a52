/**
 * What is known of a run's report: the report of its result once it has ended, else what its snapshot
 * says now. Used by `durable-agent report` and the HTTP API's `GET /runs/:id/report`.
 */
import type { WorkflowExecutionDescription } from '@temporalio/client';
import { WorkflowFailedError, WorkflowNotFoundError } from '@temporalio/client';
import { RunNotFoundError } from './errors';
import type { AgentRun } from './run';
import type { EndedRunReport, FailedRunReport, RunningRunReport, RunReportView } from '../core/run/run-views';

export type { EndedRunReport, FailedRunReport, RunningRunReport, RunReportView };

/** Options of {@link readRunReport}. */
export interface ReadRunReportOptions {
  /** Is a worker polling this task queue (so the snapshot can be asked)? Default: ask, waiting at most `snapshotWaitMs`. */
  hasWorker?: (taskQueue: string) => Promise<boolean>;
  /** How long to wait for a running run's snapshot. Default 3 s. */
  snapshotWaitMs?: number;
}

/**
 * The report of `run` if it has ended, else what is known of it now (never waits for it to end).
 * @throws {RunNotFoundError} no run has this workflow id.
 * @example
 * ```ts
 * const view = await readRunReport(client.get(id));
 * if (view.ended && 'report' in view) console.log(view.report.costUsd);
 * ```
 */
export async function readRunReport(run: AgentRun, options: ReadRunReportOptions = {}): Promise<RunReportView> {
  let d: WorkflowExecutionDescription;
  try {
    d = await run.handle.describe();
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) throw new RunNotFoundError(run.workflowId, { cause: err });
    throw err;
  }
  const common = {
    workflowId: run.workflowId,
    runId: d.runId,
    startedAt: d.startTime.toISOString(),
    ...(d.closeTime ? { closedAt: d.closeTime.toISOString() } : {}),
  };
  if (d.status.name === 'RUNNING') {
    const view: RunningRunReport = { ended: false, ...common, status: 'running', taskQueue: d.taskQueue };
    if (options.hasWorker && !(await options.hasWorker(d.taskQueue).catch(() => false))) return view;
    const snapshot = run.snapshot();
    snapshot.catch(() => undefined);
    let timer: NodeJS.Timeout | undefined;
    try {
      const answered = await Promise.race([
        snapshot,
        new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), options.snapshotWaitMs ?? 3_000))),
      ]);
      if (answered) Object.assign(view, { status: answered.status, step: answered.step, usage: answered.usage, snapshot: answered });
    } catch {
      // the run ended meanwhile, or its worker could not answer: nothing more is known
    } finally {
      clearTimeout(timer);
    }
    return view;
  }
  const status = d.status.name.toLowerCase();
  if (d.status.name !== 'COMPLETED')
    return { ended: true, ...common, status, failure: `the run ended ${status} without a result, so it has no report` };
  try {
    const result = await run.result();
    return {
      ended: true,
      ...common,
      status: result.status,
      report: result.report,
      steps: result.steps,
      ...(result.finalText ? { finalText: result.finalText } : {}),
    };
  } catch (err) {
    if (!(err instanceof WorkflowFailedError)) throw err;
    return { ended: true, ...common, status, failure: err.cause?.message ?? err.message };
  }
}
