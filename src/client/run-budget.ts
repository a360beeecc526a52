/**
 * The budget a client passes when it starts a run (`start`, or `send` starting a session): checked before
 * anything starts, so a malformed budget is refused in the caller's process, and turned into the
 * workflow's form (milliseconds).
 */
import { budgetOptionsProblems, toBudget } from '../agents/budget-options';
import type { Budget } from '../core/budget/budget';
import { DurableAgentError } from '../core/run/errors';

export type { BudgetOptions } from '../agents/budget-options';

/**
 * The run input's `budget` for the `budget` a caller gave (`where` names the option in messages, e.g.
 * `start("a", options): options.budget`): undefined when none or no limit is set.
 *
 * @throws {DurableAgentError} code `invalid_input` naming each wrong field, for a malformed budget.
 */
export function runBudget(budget: unknown, where: string): Budget | undefined {
  const problems = budgetOptionsProblems(budget, where);
  if (problems.length) throw new DurableAgentError('invalid_input', problems.join('; '));
  if (budget === undefined) return undefined;
  const converted = toBudget(budget as Parameters<typeof toBudget>[0]);
  return Object.keys(converted).length ? converted : undefined;
}
