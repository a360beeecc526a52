/** Finding an existing run by workflow id. */
import type { WorkflowExecutionDescription } from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/client';
import type { AgentRun } from '../../../src/entry/client';
import { CliError } from '../errors';
import type { Session } from '../session';

/** A run and its description. */
export interface ExistingRun {
  run: AgentRun;
  description: WorkflowExecutionDescription;
  /** True while the run has not ended. */
  running: boolean;
}

/** The run with `workflowId`; a one-line error if there is none. */
export async function findRun(session: Session, workflowId: string): Promise<ExistingRun> {
  if (!workflowId.trim()) throw new CliError('the workflow id is empty');
  const run = session.agentClient().get(workflowId);
  let description: WorkflowExecutionDescription;
  try {
    description = await run.handle.describe();
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) throw new CliError(`no run with workflow id "${workflowId}"`);
    throw err;
  }
  return { run, description, running: description.status.name === 'RUNNING' };
}
