/** The agents of a consolidation, checked and made data (zod-free: the client uses it too). */
import { DefinitionError } from '../core/run/errors';
import type { ConsolidateMember } from '../core/sub-agents/consolidate-spec';
import type { BudgetOptions } from './budget-options';
import { budgetOptionsProblems, toBudget } from './budget-options';
import type { AnyAgent } from './types';

/** One agent of a consolidation: the agent, or the agent with its own prompt template and budget. */
export type ConsolidateAgent =
  | AnyAgent
  | {
      agent: AnyAgent;
      /** The child's prompt: a template where `{{input}}` stands for the call's input. Default: the input as it is. */
      input?: string;
      /** Lower the agent's budget for this child. */
      budget?: BudgetOptions;
    };

/** Whether `value` is an agent made by `defineAgent`. */
export function isAgent(value: unknown): value is AnyAgent {
  const a = value as AnyAgent | undefined;
  return !!a && typeof a === 'object' && a.kind === 'agent' && typeof a.name === 'string';
}

/**
 * The members (data) and agent definitions of `agents`.
 *
 * @throws {DefinitionError} (message starting with `where`) for no agents, an item that is not an agent, or a malformed template or budget.
 */
export function consolidateMembers(
  agents: readonly ConsolidateAgent[],
  where: string,
): { members: ConsolidateMember[]; definitions: AnyAgent[] } {
  if (!Array.isArray(agents) || agents.length === 0)
    throw new DefinitionError(`${where}: agents must list at least one agent made by defineAgent`);
  const definitions: AnyAgent[] = [];
  const members = agents.map((given: ConsolidateAgent, i): ConsolidateMember => {
    const entry = isAgent(given) ? { agent: given } : given;
    if (!entry || !isAgent(entry.agent)) throw new DefinitionError(`${where}: agents[${i}] is not an agent made by defineAgent`);
    if (entry.input !== undefined && typeof entry.input !== 'string')
      throw new DefinitionError(`${where}: agents[${i}].input must be a prompt template (a string)`);
    const problems = budgetOptionsProblems(entry.budget, `${where}: agents[${i}].budget`);
    if (problems.length) throw new DefinitionError(problems.join('; '));
    definitions.push(entry.agent);
    const budget = entry.budget ? toBudget(entry.budget) : undefined;
    return {
      agent: entry.agent.name,
      ...(entry.input !== undefined ? { input: entry.input } : {}),
      ...(budget && Object.keys(budget).length ? { budget } : {}),
    };
  });
  return { members, definitions };
}
