/**
 * Budgets of a run: how many tokens, how many dollars, how much wall-clock time and how many user turns
 * it may spend. Pure rules only: the workflow counts what was spent, asks {@link exhaustedBudget}
 * before each model call (and each new turn), and runs the timeout as a durable timer.
 */
import type { Usage } from './usage';
import { totalTokens } from './usage';

/**
 * Limits of what a run may spend, each optional (absent: no limit). An agent declares its own; a run
 * may only lower them (`effectiveBudget`).
 */
export interface Budget {
  /**
   * Tokens in all across the run: input + output + cache read + cache write of every model call
   * (`totalTokens` of `core/usage.ts` over the run's usage). A positive integer.
   */
  maxTokens?: number;
  /**
   * US dollars across the run: the sum over priced steps, as the run report counts it (`runCost` in
   * `core/report.ts`). Steps of a model the price table does not know cost nothing here. A positive number.
   */
  maxCostUsd?: number;
  /** Wall-clock time of the whole run in milliseconds, from its start (a durable timer). A positive integer. */
  timeoutMs?: number;
  /**
   * User turns of a session: the first prompt is turn 1, each later user message the next turn. A turn
   * beyond this many is refused. A positive integer.
   */
  maxTurns?: number;
}

/** What a run has spent so far, in the units of {@link Budget}. */
export interface BudgetSpent {
  /** Tokens in all (input + output + cache read + cache write). */
  tokens: number;
  /** US dollars of the priced steps. */
  costUsd: number;
  /** User turns started, counting the one being asked for (the first prompt is turn 1). */
  turns: number;
}

/** The budgets that spending can exhaust (the timeout is a timer, not a count). */
export type BudgetName = 'maxTokens' | 'maxCostUsd' | 'maxTurns';

/** A budget that is spent: which, its limit, and what was spent. */
export interface BudgetExhausted {
  budget: BudgetName;
  limit: number;
  spent: number;
}

/** Every key of {@link Budget}, in the order budgets are checked and reported. */
export const BUDGET_KEYS = ['maxTokens', 'maxCostUsd', 'timeoutMs', 'maxTurns'] as const satisfies ReadonlyArray<keyof Budget>;

/**
 * The budget a run works with: the agent's limits, lowered by the run's. Where both set a limit the
 * smaller wins (a run can never raise what its agent allows); where one does, that one; where neither
 * does, there is none. Keys without a limit are left out.
 *
 * @example
 * ```ts
 * effectiveBudget({ maxTokens: 100_000, maxCostUsd: 2 }, { maxTokens: 5_000, timeoutMs: 60_000 });
 * // → { maxTokens: 5_000, maxCostUsd: 2, timeoutMs: 60_000 }
 * ```
 */
export function effectiveBudget(agent: Budget | undefined, run: Budget | undefined): Budget {
  const out: Budget = {};
  for (const key of BUDGET_KEYS) {
    const a = agent?.[key];
    const r = run?.[key];
    const limit = a === undefined ? r : r === undefined ? a : Math.min(a, r);
    if (limit !== undefined) out[key] = limit;
  }
  return out;
}

/**
 * The first spent budget, or undefined while every one has room. Checked in this fixed order:
 * `maxTokens`, `maxCostUsd`, `maxTurns`.
 *
 * - tokens and cost are spent once what was spent **reached** the limit (`spent >= limit`): no further
 *   model call may start;
 * - turns count the turn being asked for, so the budget is spent when that turn is **beyond** the limit
 *   (`turns > maxTurns`): with `maxTurns: 3`, turns 1–3 run and turn 4 is refused.
 *
 * The timeout is not checked here: the workflow runs it as a durable timer.
 */
export function exhaustedBudget(budget: Budget, spent: BudgetSpent): BudgetExhausted | undefined {
  if (budget.maxTokens !== undefined && spent.tokens >= budget.maxTokens) {
    return { budget: 'maxTokens', limit: budget.maxTokens, spent: spent.tokens };
  }
  if (budget.maxCostUsd !== undefined && spent.costUsd >= budget.maxCostUsd) {
    return { budget: 'maxCostUsd', limit: budget.maxCostUsd, spent: spent.costUsd };
  }
  if (budget.maxTurns !== undefined && spent.turns > budget.maxTurns) {
    return { budget: 'maxTurns', limit: budget.maxTurns, spent: spent.turns };
  }
  return undefined;
}

/**
 * What a run has spent: the tokens of its usage, the cost of its priced steps (the same sum, rounded the
 * same way, as `runCost` in `core/report.ts`; `steps` are the run report's steps, typed by the one
 * field read so that this module, which `spec.ts` imports, imports neither the report nor the result)
 * and its user turns (counting the one being asked for).
 */
export function budgetSpent(usage: Usage, steps: ReadonlyArray<{ costUsd?: number }>, turns: number): BudgetSpent {
  let cost = 0;
  for (const s of steps) cost += s.costUsd ?? 0;
  return { tokens: totalTokens(usage), costUsd: Math.round(cost * 1e8) / 1e8, turns };
}

/** An integer with thousands separators (`12,345`), the same everywhere (no locale). */
function grouped(n: number): string {
  const [int, frac] = String(n).split('.');
  return (int ?? '').replace(/\B(?=(\d{3})+(?!\d))/g, ',') + (frac ? `.${frac}` : '');
}

/**
 * The message of a spent budget, for the run's error and the model-free ending.
 *
 * @example
 * ```ts
 * budgetMessage({ budget: 'maxTokens', limit: 10_000, spent: 12_345 });
 * // "The run's token budget is spent: 12,345 of 10,000 tokens."
 * budgetMessage({ budget: 'maxCostUsd', limit: 0.5, spent: 0.51234 });
 * // "The run's cost budget is spent: $0.5123 of $0.5000 (USD)."
 * budgetMessage({ budget: 'maxTurns', limit: 3, spent: 4 });
 * // "The run's turn budget is spent: 3 of 3 user turns used; turn 4 was refused."
 * ```
 */
export function budgetMessage(e: BudgetExhausted): string {
  switch (e.budget) {
    case 'maxTokens':
      return `The run's token budget is spent: ${grouped(e.spent)} of ${grouped(e.limit)} ${e.limit === 1 ? 'token' : 'tokens'}.`;
    case 'maxCostUsd':
      return `The run's cost budget is spent: $${e.spent.toFixed(4)} of $${e.limit.toFixed(4)} (USD).`;
    case 'maxTurns':
      return `The run's turn budget is spent: ${grouped(e.limit)} of ${grouped(e.limit)} user ${e.limit === 1 ? 'turn' : 'turns'} used; turn ${grouped(e.spent)} was refused.`;
  }
}

/** What each budget must be, for error messages. */
const RULES: Record<keyof Budget, { integer: boolean; what: string }> = {
  maxTokens: { integer: true, what: 'a positive integer (tokens in all: input + output + cache read + cache write), e.g. 100000' },
  maxCostUsd: { integer: false, what: 'a positive number of US dollars, e.g. 2.5' },
  timeoutMs: { integer: true, what: 'a positive integer of milliseconds, e.g. 600000 for 10 minutes' },
  maxTurns: { integer: true, what: 'a positive integer of user turns (the first prompt is turn 1), e.g. 20' },
};

function shown(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  if (typeof value === 'number') return String(value);
  return `a ${typeof value}`;
}

/**
 * What is wrong with a budget from outside (a run's input, any client), one message per problem, each
 * starting with `where` (e.g. `budget`); empty when it is well formed. Absent (`undefined`) is well
 * formed: no budget. Each limit must be a finite number above zero, whole for tokens, milliseconds and
 * turns; keys other than those of {@link Budget} are refused; a key set to `undefined` counts as absent.
 *
 * @example
 * ```ts
 * budgetProblems({ maxTokens: 0, timeout: '5m' }, 'budget');
 * // ['budget has an unknown key "timeout" (known: maxTokens, maxCostUsd, timeoutMs, maxTurns)',
 * //  'budget.maxTokens must be a positive integer (…), got 0']
 * ```
 */
export function budgetProblems(b: unknown, where: string): string[] {
  if (b === undefined) return [];
  if (typeof b !== 'object' || b === null || Array.isArray(b)) {
    return [`${where} must be an object such as { maxTokens: 100000, maxCostUsd: 2 }, got ${shown(b)}`];
  }
  const problems: string[] = [];
  const known: readonly string[] = BUDGET_KEYS;
  for (const key of Object.keys(b)) {
    if (!known.includes(key)) problems.push(`${where} has an unknown key ${JSON.stringify(key)} (known: ${BUDGET_KEYS.join(', ')})`);
  }
  for (const key of BUDGET_KEYS) {
    const value = (b as Record<string, unknown>)[key];
    if (value === undefined) continue;
    const rule = RULES[key];
    const ok = typeof value === 'number' && Number.isFinite(value) && value > 0 && (!rule.integer || Number.isSafeInteger(value));
    if (!ok) problems.push(`${where}.${key} must be ${rule.what}, got ${shown(value)}`);
  }
  return problems;
}
