/**
 * Budgets as people write them — on an agent (`defineAgent({ budget })`) or a run (`client.start(agent,
 * { budget })`) — with the timeout as a duration, and their conversion to the workflow's {@link Budget}
 * (milliseconds). Loads `@temporalio/common` only, so the client can use it without worker code or zod.
 */
import type { Duration } from '@temporalio/common';
import { msToNumber } from '@temporalio/common';
import type { Budget } from '../core/budget/budget';
import { budgetProblems } from '../core/budget/budget';

/** Limits of what a run may spend, each optional. The run ends `budget_exceeded` (or `timeout`) when one is spent. */
export interface BudgetOptions {
  /** Tokens in all across the run: input + output + cache read + cache write. A positive integer. */
  maxTokens?: number;
  /** US dollars across the run, as the run report prices its steps (unpriced models count nothing). */
  maxCostUsd?: number;
  /** Wall-clock time of the whole run (a durable timer), e.g. `'30m'`, `'2h'` or milliseconds. */
  timeout?: Duration;
  /** User turns of a session (the first prompt is turn 1); a turn beyond this is refused. A positive integer. */
  maxTurns?: number;
}

const OPTION_KEYS = ['maxTokens', 'maxCostUsd', 'timeout', 'maxTurns'] as const satisfies ReadonlyArray<keyof BudgetOptions>;

function durationMs(value: unknown): number {
  try {
    return msToNumber(value as Duration);
  } catch {
    return Number.NaN;
  }
}

/**
 * What is wrong with budget options, one message per problem, each starting with `where` (e.g.
 * `agent "a": budget`); empty when well formed or absent. The limits follow {@link budgetProblems}; the
 * timeout must be a positive duration.
 *
 * @example
 * ```ts
 * budgetOptionsProblems({ maxTokens: -1, timeout: 'soon' }, 'budget');
 * // ['budget.timeout must be a positive duration (e.g. "30m", "2h" or milliseconds), got "soon"',
 * //  'budget.maxTokens must be a positive integer (…), got -1']
 * ```
 */
export function budgetOptionsProblems(value: unknown, where: string): string[] {
  if (value === undefined) return [];
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return budgetProblems(value, where);
  const given = value as Record<string, unknown>;
  const problems: string[] = [];
  const known: readonly string[] = OPTION_KEYS;
  for (const key of Object.keys(given)) {
    if (!known.includes(key)) problems.push(`${where} has an unknown key ${JSON.stringify(key)} (known: ${OPTION_KEYS.join(', ')})`);
  }
  if (given.timeout !== undefined) {
    const ms = durationMs(given.timeout);
    if (!Number.isFinite(ms) || ms <= 0) {
      const shown =
        typeof given.timeout === 'string' || typeof given.timeout === 'number' ? JSON.stringify(given.timeout) : String(given.timeout);
      problems.push(`${where}.timeout must be a positive duration (e.g. "30m", "2h" or milliseconds), got ${shown}`);
    }
  }
  const { maxTokens, maxCostUsd, maxTurns } = given;
  problems.push(...budgetProblems({ maxTokens, maxCostUsd, maxTurns }, where));
  return problems;
}

/**
 * The workflow's form of well-formed budget options: the timeout in milliseconds (rounded up to a whole
 * millisecond), keys without a limit left out. Check the options with {@link budgetOptionsProblems} first.
 */
export function toBudget(options: BudgetOptions): Budget {
  const budget: Budget = {};
  if (options.maxTokens !== undefined) budget.maxTokens = options.maxTokens;
  if (options.maxCostUsd !== undefined) budget.maxCostUsd = options.maxCostUsd;
  if (options.timeout !== undefined) budget.timeoutMs = Math.ceil(msToNumber(options.timeout));
  if (options.maxTurns !== undefined) budget.maxTurns = options.maxTurns;
  return budget;
}
