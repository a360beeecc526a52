/**
 * The same change as ./unpatched.ts, versioned with `patched()`: histories recorded before the
 * change have no patch marker, so replay takes the old path and they keep replaying.
 */
import { patched, sleep } from '@temporalio/workflow';
import type { AgentWorkflowInput } from '../../../src/core/run/contract';
import type { AgentRunResult } from '../../../src/core/run/result';
import { agentWorkflow as current } from '../../../src/workflows/agent';

/** The changed workflow, under the original workflow type name. */
export async function agentWorkflow(input: AgentWorkflowInput): Promise<AgentRunResult> {
  if (patched('wait-before-describe')) await sleep(10);
  return current(input);
}
