/**
 * The same change as ./unpatched.ts, versioned with `patched()`: histories recorded before the
 * change have no patch marker, so replay takes the old path and they keep replaying.
 */
import { patched, sleep } from '@temporalio/workflow';
import type { AgentWorkflowInput } from '../../../core/contract';
import type { AgentRunResult } from '../../../core/result';
import { agentWorkflow as current } from '../../../workflows/agent';

/** The changed workflow, under the original workflow type name. */
export async function agentWorkflow(input: AgentWorkflowInput): Promise<AgentRunResult> {
  if (patched('wait-before-describe')) await sleep(10);
  return current(input);
}
