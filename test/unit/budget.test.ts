/** Budgets of a run (core/budget.ts): merging agent and run limits, exhaustion, messages, validation. */
import { describe, expect, it } from 'vitest';
import type { Budget, BudgetSpent } from '../../src/core/budget/budget';
import { BUDGET_KEYS, budgetMessage, budgetProblems, budgetSpent, effectiveBudget, exhaustedBudget } from '../../src/core/budget/budget';
import { runCost } from '../../src/core/run/report';
import type { StepReport } from '../../src/core/run/result';

const NOTHING: BudgetSpent = { tokens: 0, costUsd: 0, turns: 1 };

function step(n: number, costUsd?: number): StepReport {
  return {
    step: n,
    turn: 1,
    provider: 'scripted',
    model: 'm',
    latencyMs: 1,
    stopReason: 'end_turn',
    usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 },
    attempts: 1,
    ...(costUsd !== undefined ? { costUsd } : {}),
  };
}

describe('effectiveBudget', () => {
  it('is empty when neither the agent nor the run sets a limit', () => {
    expect(effectiveBudget(undefined, undefined)).toEqual({});
    expect(effectiveBudget({}, {})).toEqual({});
  });

  it('takes whichever side sets a limit', () => {
    expect(effectiveBudget({ maxTokens: 100, timeoutMs: 5000 }, undefined)).toEqual({ maxTokens: 100, timeoutMs: 5000 });
    expect(effectiveBudget(undefined, { maxCostUsd: 1.5, maxTurns: 3 })).toEqual({ maxCostUsd: 1.5, maxTurns: 3 });
    expect(effectiveBudget({ maxTokens: 100 }, { maxCostUsd: 2 })).toEqual({ maxTokens: 100, maxCostUsd: 2 });
  });

  it('lets a run lower the agent limits but never raise them', () => {
    const agent: Budget = { maxTokens: 1000, maxCostUsd: 2, timeoutMs: 60_000, maxTurns: 10 };
    expect(effectiveBudget(agent, { maxTokens: 500, maxCostUsd: 0.5, timeoutMs: 1000, maxTurns: 2 })).toEqual({
      maxTokens: 500,
      maxCostUsd: 0.5,
      timeoutMs: 1000,
      maxTurns: 2,
    });
    expect(effectiveBudget(agent, { maxTokens: 5000, maxCostUsd: 20, timeoutMs: 600_000, maxTurns: 100 })).toEqual(agent);
    expect(effectiveBudget(agent, { maxTokens: 1000 })).toEqual(agent);
  });

  it('leaves out keys set to undefined and does not change its arguments', () => {
    const agent: Budget = { maxTokens: 10, maxCostUsd: undefined };
    const run: Budget = { maxTokens: 5 };
    const out = effectiveBudget(agent, run);
    expect(out).toEqual({ maxTokens: 5 });
    expect(Object.keys(out)).toEqual(['maxTokens']);
    expect(agent).toEqual({ maxTokens: 10, maxCostUsd: undefined });
    expect(run).toEqual({ maxTokens: 5 });
  });
});

describe('exhaustedBudget', () => {
  it('says nothing without limits, whatever was spent', () => {
    expect(exhaustedBudget({}, { tokens: 1e9, costUsd: 1e6, turns: 1e6 })).toBeUndefined();
  });

  it('spends tokens when the limit is reached, not before', () => {
    const b: Budget = { maxTokens: 100 };
    expect(exhaustedBudget(b, { ...NOTHING, tokens: 99 })).toBeUndefined();
    expect(exhaustedBudget(b, { ...NOTHING, tokens: 100 })).toEqual({ budget: 'maxTokens', limit: 100, spent: 100 });
    expect(exhaustedBudget(b, { ...NOTHING, tokens: 250 })).toEqual({ budget: 'maxTokens', limit: 100, spent: 250 });
  });

  it('spends the cost when the limit is reached, not before', () => {
    const b: Budget = { maxCostUsd: 0.25 };
    expect(exhaustedBudget(b, { ...NOTHING, costUsd: 0.2499 })).toBeUndefined();
    expect(exhaustedBudget(b, { ...NOTHING, costUsd: 0.25 })).toEqual({ budget: 'maxCostUsd', limit: 0.25, spent: 0.25 });
  });

  it('refuses only a turn beyond maxTurns (the first prompt is turn 1)', () => {
    const b: Budget = { maxTurns: 2 };
    expect(exhaustedBudget(b, { ...NOTHING, turns: 1 })).toBeUndefined();
    expect(exhaustedBudget(b, { ...NOTHING, turns: 2 })).toBeUndefined();
    expect(exhaustedBudget(b, { ...NOTHING, turns: 3 })).toEqual({ budget: 'maxTurns', limit: 2, spent: 3 });
    expect(exhaustedBudget({ maxTurns: 1 }, { ...NOTHING, turns: 1 })).toBeUndefined();
  });

  it('reports the first spent budget in the order tokens, cost, turns', () => {
    const b: Budget = { maxTokens: 10, maxCostUsd: 1, maxTurns: 1 };
    const all = { tokens: 10, costUsd: 1, turns: 2 };
    expect(exhaustedBudget(b, all)?.budget).toBe('maxTokens');
    expect(exhaustedBudget(b, { ...all, tokens: 9 })?.budget).toBe('maxCostUsd');
    expect(exhaustedBudget(b, { ...all, tokens: 9, costUsd: 0.5 })?.budget).toBe('maxTurns');
    expect(exhaustedBudget(b, { tokens: 9, costUsd: 0.5, turns: 1 })).toBeUndefined();
  });

  it('never reports the timeout, which is a timer', () => {
    expect(exhaustedBudget({ timeoutMs: 1 }, { tokens: 1e9, costUsd: 1e9, turns: 1e9 })).toBeUndefined();
  });
});

describe('budgetSpent', () => {
  it('counts every kind of token, the priced steps and the turns', () => {
    const usage = { inputTokens: 100, outputTokens: 20, cacheReadTokens: 300, cacheWriteTokens: 4 };
    expect(budgetSpent(usage, [step(1, 0.1), step(2), step(3, 0.2)], 2)).toEqual({ tokens: 424, costUsd: 0.3, turns: 2 });
    expect(budgetSpent({ inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 }, [], 1)).toEqual({
      tokens: 0,
      costUsd: 0,
      turns: 1,
    });
  });

  it('counts the cost exactly as the run report does', () => {
    const steps = [step(1, 0.1), step(2, 0.2), step(3), step(4, 0.000000013), step(5, 1 / 3)];
    expect(budgetSpent({ inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 }, steps, 1).costUsd).toBe(
      runCost(steps).costUsd,
    );
  });
});

describe('budgetMessage', () => {
  it('says which budget, what was spent and the limit', () => {
    expect(budgetMessage({ budget: 'maxTokens', limit: 10_000, spent: 12_345 })).toBe(
      "The run's token budget is spent: 12,345 of 10,000 tokens.",
    );
    expect(budgetMessage({ budget: 'maxTokens', limit: 1, spent: 1_234_567 })).toBe(
      "The run's token budget is spent: 1,234,567 of 1 token.",
    );
    expect(budgetMessage({ budget: 'maxCostUsd', limit: 0.5, spent: 0.51234 })).toBe(
      "The run's cost budget is spent: $0.5123 of $0.5000 (USD).",
    );
    expect(budgetMessage({ budget: 'maxCostUsd', limit: 1200, spent: 1200 })).toBe(
      "The run's cost budget is spent: $1200.0000 of $1200.0000 (USD).",
    );
    expect(budgetMessage({ budget: 'maxTurns', limit: 3, spent: 4 })).toBe(
      "The run's turn budget is spent: 3 of 3 user turns used; turn 4 was refused.",
    );
    expect(budgetMessage({ budget: 'maxTurns', limit: 1, spent: 2 })).toBe(
      "The run's turn budget is spent: 1 of 1 user turn used; turn 2 was refused.",
    );
  });

  it('has a message for every budget exhaustedBudget can report', () => {
    const b: Budget = { maxTokens: 1, maxCostUsd: 1, maxTurns: 1 };
    for (const spent of [
      { tokens: 1, costUsd: 0, turns: 1 },
      { tokens: 0, costUsd: 1, turns: 1 },
      { tokens: 0, costUsd: 0, turns: 2 },
    ]) {
      const e = exhaustedBudget(b, spent);
      expect(e).toBeDefined();
      expect(budgetMessage(e!)).toMatch(/^The run's (token|cost|turn) budget is spent: .+\.$/);
    }
  });
});

describe('budgetProblems', () => {
  it('accepts no budget, an empty one and well-formed limits', () => {
    expect(budgetProblems(undefined, 'budget')).toEqual([]);
    expect(budgetProblems({}, 'budget')).toEqual([]);
    expect(budgetProblems({ maxTokens: 1, maxCostUsd: 0.0001, timeoutMs: 1, maxTurns: 1 }, 'budget')).toEqual([]);
    expect(budgetProblems({ maxTokens: undefined, maxCostUsd: 3 }, 'budget')).toEqual([]);
  });

  it('refuses something other than an object', () => {
    for (const value of [null, 5, 'lots', [], true]) {
      const problems = budgetProblems(value, 'budget');
      expect(problems).toHaveLength(1);
      expect(problems[0]).toMatch(/^budget must be an object such as \{ maxTokens: 100000, maxCostUsd: 2 \}, got /);
    }
    expect(budgetProblems(null, 'budget')[0]).toMatch(/got null$/);
    expect(budgetProblems([], 'budget')[0]).toMatch(/got an array$/);
  });

  it('refuses zero, negative, infinite, NaN and non-number limits, naming each', () => {
    for (const key of BUDGET_KEYS) {
      for (const bad of [0, -1, Number.POSITIVE_INFINITY, Number.NaN, '100', null]) {
        const problems = budgetProblems({ [key]: bad }, 'budget');
        expect(problems, `${key}: ${String(bad)}`).toHaveLength(1);
        expect(problems[0]).toMatch(new RegExp(`^budget\\.${key} must be a positive (integer|number)`));
      }
    }
    expect(budgetProblems({ maxTokens: -5 }, 'budget')[0]).toMatch(/, got -5$/);
    expect(budgetProblems({ maxTurns: '3' }, 'budget')[0]).toMatch(/, got the string "3"$/);
  });

  it('wants whole tokens, milliseconds and turns, but any positive cost', () => {
    expect(budgetProblems({ maxTokens: 1.5 }, 'budget')).toHaveLength(1);
    expect(budgetProblems({ timeoutMs: 0.5 }, 'budget')).toHaveLength(1);
    expect(budgetProblems({ maxTurns: 2.5 }, 'budget')).toHaveLength(1);
    expect(budgetProblems({ maxTokens: 2 ** 60 }, 'budget')).toHaveLength(1);
    expect(budgetProblems({ maxCostUsd: 0.005 }, 'budget')).toEqual([]);
  });

  it('refuses unknown keys, naming the known ones', () => {
    expect(budgetProblems({ timeout: '5m', maxTokens: 10 }, 'budget')).toEqual([
      'budget has an unknown key "timeout" (known: maxTokens, maxCostUsd, timeoutMs, maxTurns)',
    ]);
  });

  it('lists every problem, each starting with where it is', () => {
    const problems = budgetProblems({ maxTokens: 0, maxCostUsd: -1, maxSteps: 3 }, 'agent "a": budget');
    expect(problems).toHaveLength(3);
    for (const p of problems) expect(p.startsWith('agent "a": budget')).toBe(true);
  });
});
