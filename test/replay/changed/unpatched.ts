/**
 * The agent workflow with a change that is NOT versioned: it now waits a moment before resolving
 * the agent. Histories recorded before the change must fail to replay against it.
 */
import { sleep } from '@temporalio/workflow';
import type { AgentWorkflowInput } from '../../../src/core/run/contract';
import type { AgentRunResult } from '../../../src/core/run/result';
import { agentWorkflow as current } from '../../../src/workflows/agent';

/** The changed workflow, under the original workflow type name. */
export async function agentWorkflow(input: AgentWorkflowInput): Promise<AgentRunResult> {
  await sleep(10);
  return current(input);
}
