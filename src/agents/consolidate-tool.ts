/** `consolidateTool`: N agents given to another agent as one tool; each call runs them in parallel and makes one answer of theirs. */
import { DefinitionError } from '../core/run/errors';
import type { ChildErrorPolicy, ConsolidateSpec } from '../core/sub-agents/consolidate';
import type { AgentToolInput } from './agent-tool';
import { agentToolInput } from './agent-tool';
import type { ConsolidateAgent } from './consolidate-members';
import { consolidateMembers, isAgent } from './consolidate-members';
import type { AnyAgent, Tool } from './define';
import { defineTool, ToolError } from './define';
import type { AggregateFn, ConsolidateToolData } from './types';
import { NAME } from './validate';

export type { AggregateFn, ConsolidateToolData } from './types';
export type { ConsolidateAgent } from './consolidate-members';

/** How a consolidate tool makes one answer: a summarising agent, or a function run on the worker. */
export type ConsolidateAggregate = { agent: AnyAgent } | { fn: AggregateFn };

/** Options of {@link consolidateTool}. */
export interface ConsolidateToolOptions {
  /** What the parent's model reads about the tool. */
  description: string;
  /** The agents each call runs in parallel, each as its own child workflow (at least one). */
  agents: readonly ConsolidateAgent[];
  /** How their answers become one. */
  aggregate: ConsolidateAggregate;
  /**
   * A child that does not succeed: `include` it (the aggregator is told which failed and why; default),
   * or `fail` the call (an error result naming the children that failed; no aggregation).
   */
  onChildError?: ChildErrorPolicy;
  /** Calls may run in parallel with other read-only calls of the step. Default false. */
  readOnly?: boolean;
}

/**
 * N agents as one tool of another agent ("consolidate"). When the model calls it (`{ input: "the task" }`),
 * the parent run starts every agent as a **child workflow** at once (workflow ids
 * `<parent workflow id>--<call id>-<n>`), each with its own history, budget, events and approvals (listed
 * and decided through the parent, as a sub-agent's), then makes one answer of theirs: by a summarising
 * agent (one more child, `…-aggregate`, prompted with every answer and every failure) or by a function the
 * worker runs in an activity (its result recorded). The answer is the call's result; every child's usage
 * and cost count in the parent's; cancelling the parent cancels them all. A worker serving the parent
 * serves these agents too.
 *
 * @throws {DefinitionError} when an agent is not made by `defineAgent`, a budget is malformed, or a name is invalid.
 * @example
 * ```ts
 * const review = consolidateTool('review', {
 *   description: 'Three reviewers read the text; one editor merges their reviews',
 *   agents: [style, facts, { agent: legal, input: 'Legal risks only: {{input}}', budget: { maxCostUsd: 0.5 } }],
 *   aggregate: { agent: editor },
 * });
 * ```
 */
export function consolidateTool<const N extends string>(name: N, options: ConsolidateToolOptions): Tool<N, AgentToolInput, never> {
  const where = `consolidateTool("${String(name)}")`;
  if (typeof name !== 'string' || !NAME.test(name)) throw new DefinitionError(`${where}: the name must be 1-64 letters, digits, _ or -`);
  if (!options || typeof options.description !== 'string' || !options.description)
    throw new DefinitionError(`${where}: options.description must say what the tool does`);
  const { members, definitions } = consolidateMembers(options.agents, `${where}: options`);
  const agg = options.aggregate as Partial<{ agent: AnyAgent; fn: AggregateFn }> | undefined;
  let aggregate: ConsolidateSpec['aggregate'];
  if (agg && isAgent(agg.agent)) {
    aggregate = { kind: 'agent', agent: agg.agent.name };
    definitions.push(agg.agent);
  } else if (agg && typeof agg.fn === 'function') {
    aggregate = { kind: 'fn', name: agg.fn.name || 'aggregate' };
  } else {
    throw new DefinitionError(`${where}: options.aggregate must be { agent } (an agent made by defineAgent) or { fn } (a function)`);
  }
  const onChildError = options.onChildError ?? 'include';
  if (onChildError !== 'include' && onChildError !== 'fail')
    throw new DefinitionError(`${where}: options.onChildError must be 'include' or 'fail'`);
  const tool = defineTool({
    name,
    description: options.description,
    input: agentToolInput,
    ...(options.readOnly !== undefined ? { readOnly: options.readOnly } : {}),
    execute: (): never => {
      // The parent's workflow runs the agents as child workflows; a worker never executes this tool.
      throw new ToolError(`the consolidate tool "${name}" runs as child workflows, not in a worker`, { retryable: false });
    },
  });
  const consolidate: ConsolidateToolData = {
    spec: { agents: members, aggregate, onChildError },
    definitions,
    ...(typeof agg.fn === 'function' ? { aggregate: agg.fn } : {}),
  };
  return Object.freeze({ ...tool, consolidate });
}
