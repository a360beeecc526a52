import { ApplicationFailure } from '@temporalio/common';
import type { DescribeAgentInput } from '../core/contract';
import type { AgentSpec } from '../core/spec';
import type { AgentRegistry } from '../agents/registry';
import { agentSpec, promptSpec } from '../agents/registry';
import type { TranscriptStore } from '../store/transcript-store';

/** Resolve an agent into the data the workflow runs on; the prompt and tool schemas are stored as one blob. */
export function describeAgentActivity(registry: AgentRegistry, store: TranscriptStore, searchAttributes: boolean) {
  return async function describeAgent(input: DescribeAgentInput): Promise<AgentSpec> {
    let agent;
    try {
      agent = registry.get(input.agent);
    } catch (err) {
      throw ApplicationFailure.nonRetryable((err as Error).message, 'UnknownAgent');
    }
    const promptRef = await store.putJson(promptSpec(agent));
    return agentSpec(agent, promptRef, searchAttributes);
  };
}
