/**
 * The `aggregateResults` activity: a consolidate tool's aggregate function (`consolidateTool`'s
 * `aggregate: { fn }`), run on the worker that holds the tool's code; its answer is the activity's
 * result, recorded in history (a replay never runs the function again).
 */
import { ApplicationFailure } from '@temporalio/common';
import type { AgentRegistry } from '../agents/registry';
import type { AggregateResultsInput, AggregateResultsOutput } from '../core/sub-agents/consolidate';

/** The activity, finding the function by the agent and tool named in its input. */
export function aggregateResultsActivity(registry: AgentRegistry) {
  return async function aggregateResults(input: AggregateResultsInput): Promise<AggregateResultsOutput> {
    const fn = registry.tool(input.agent, input.tool)?.consolidate?.aggregate;
    if (!fn)
      throw ApplicationFailure.create({
        message: `Agent "${input.agent}" on this worker has no consolidate tool "${input.tool}" with an aggregate function`,
        type: 'UnknownTool',
        nonRetryable: true,
      });
    const answer: unknown = await fn(input.children, input.input);
    return { text: typeof answer === 'string' ? answer : JSON.stringify(answer ?? null) };
  };
}
