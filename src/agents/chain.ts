/** `chain(a, b, …)`: agents run one after the other, each on the previous one's answer, as one durable run. */
import { DefinitionError } from '../core/run/errors';
import type { AnyAgent } from './define';

/** A chain of agents, as `client.startChain` takes it. `L` is the last agent (its result is the chain's). */
export interface Chain<L extends AnyAgent = AnyAgent> {
  readonly kind: 'chain';
  /** The agents in order. */
  readonly agents: readonly AnyAgent[];
  /** The last agent (for types). */
  readonly last: L;
}

/**
 * A chain of agents: the first gets the run's input, each next one the previous one's final text. It runs
 * as one workflow (`chainWorkflow`) that starts each agent as a child workflow in turn; its result is the
 * last agent's result with the usage and cost of the whole chain (a child that does not succeed ends the
 * chain with its result). Workers must serve every agent of the chain (list them in `createWorker`).
 *
 * @throws {DefinitionError} when fewer than one agent is given, or an item is not an agent.
 * @example
 * ```ts
 * const run = await client.startChain(chain(researcher, writer), { input: 'Durable execution, in 200 words' });
 * const result = await run.result(); // the writer's answer; usage and costUsd of both
 * ```
 */
export function chain<const A extends readonly [AnyAgent, ...AnyAgent[]]>(
  ...agents: A
): Chain<A extends readonly [...AnyAgent[], infer L extends AnyAgent] ? L : AnyAgent> {
  if (agents.length === 0) throw new DefinitionError('chain(...agents): give at least one agent made by defineAgent');
  agents.forEach((a, i) => {
    if (!a || typeof a !== 'object' || a.kind !== 'agent' || typeof a.name !== 'string')
      throw new DefinitionError(`chain(...agents): item ${i} is not an agent made by defineAgent`);
  });
  return Object.freeze({ kind: 'chain' as const, agents: [...agents], last: agents[agents.length - 1] as never });
}
