/** Run budgets from outside: the client-side check (client/run-budget.ts), budget options (agents/budget-options.ts), the workflow's input check. */
import { describe, expect, it } from 'vitest';
import { budgetOptionsProblems, toBudget } from '../../src/agents/budget-options';
import type { DurableAgentError } from '../../src/core/run/errors';
import { isDurableAgentError } from '../../src/core/run/errors';
import { runBudget } from '../../src/client/run-budget';
import { inputProblems } from '../../src/workflows/run-input';

function refusal(run: () => unknown): DurableAgentError {
  try {
    run();
  } catch (err) {
    if (isDurableAgentError(err, 'invalid_input')) return err;
    throw err;
  }
  throw new Error('expected an invalid_input error');
}

describe('runBudget (the client-side check of start and send)', () => {
  const where = 'start("a", options): options.budget';

  it('gives the budget with the timeout in milliseconds, or nothing when no limit is set', () => {
    expect(runBudget({ maxTokens: 9000, maxCostUsd: 0.1, timeout: '10m', maxTurns: 2 }, where)).toEqual({
      maxTokens: 9000,
      maxCostUsd: 0.1,
      timeoutMs: 600_000,
      maxTurns: 2,
    });
    expect(runBudget({ timeout: 250 }, where)).toEqual({ timeoutMs: 250 });
    expect(runBudget(undefined, where)).toBeUndefined();
    expect(runBudget({}, where)).toBeUndefined();
  });

  it('refuses a malformed budget before anything starts, naming each wrong field', () => {
    const err = refusal(() => runBudget({ maxTokens: 0, timeout: 'later' }, where));
    expect(err.message).toBe(
      'start("a", options): options.budget.timeout must be a positive duration (e.g. "30m", "2h" or milliseconds), got "later"; ' +
        'start("a", options): options.budget.maxTokens must be a positive integer (tokens in all: input + output + cache read + cache write), e.g. 100000, got 0',
    );
    expect(refusal(() => runBudget({ timeoutMs: 5000 }, where)).message).toMatch(
      /options\.budget has an unknown key "timeoutMs" \(known: maxTokens, maxCostUsd, timeout, maxTurns\)/,
    );
    expect(refusal(() => runBudget({ maxCostUsd: -0.5 }, where)).message).toMatch(/options\.budget\.maxCostUsd must be a positive number/);
    expect(refusal(() => runBudget({ maxTurns: 1.5 }, where)).message).toMatch(/options\.budget\.maxTurns must be a positive integer/);
    expect(refusal(() => runBudget('cheap', where)).message).toMatch(/^start\("a", options\): options\.budget must be an object such as/);
  });
});

describe('budget options', () => {
  it('are well formed when absent or within the rules', () => {
    expect(budgetOptionsProblems(undefined, 'budget')).toEqual([]);
    expect(budgetOptionsProblems({ maxTokens: 1, maxCostUsd: 0.01, timeout: '1s', maxTurns: 1 }, 'budget')).toEqual([]);
  });

  it('convert to the workflow form, rounding a fractional timeout up', () => {
    expect(toBudget({})).toEqual({});
    expect(toBudget({ timeout: '1.2ms' })).toEqual({ timeoutMs: 2 });
    expect(toBudget({ timeout: '2h', maxTurns: 5 })).toEqual({ timeoutMs: 7_200_000, maxTurns: 5 });
  });

  it('refuse a timeout that is not a positive duration', () => {
    for (const timeout of ['soon', '', 0, -1, '0s', true, null, {}]) {
      expect(budgetOptionsProblems({ timeout }, 'budget'), JSON.stringify(timeout)).toEqual([
        expect.stringMatching(/^budget\.timeout must be a positive duration/),
      ]);
    }
  });
});

describe('the workflow input check', () => {
  it('accepts a well-formed budget and none', () => {
    expect(inputProblems({ agent: 'a', prompt: 'p' })).toBeUndefined();
    expect(
      inputProblems({ agent: 'a', prompt: 'p', budget: { maxTokens: 10, maxCostUsd: 1, timeoutMs: 1000, maxTurns: 2 } }),
    ).toBeUndefined();
  });

  it('refuses a malformed budget from any client, in one line with the other problems', () => {
    expect(inputProblems({ agent: 'a', prompt: 'p', budget: { maxTokens: -1 } })).toMatch(/^budget\.maxTokens must be a positive integer/);
    expect(inputProblems({ agent: 'a', prompt: 'p', budget: { timeout: '5m' } as never })).toBe(
      'budget has an unknown key "timeout" (known: maxTokens, maxCostUsd, timeoutMs, maxTurns)',
    );
    expect(inputProblems({ agent: '', prompt: 'p', budget: 3 as never })).toBe(
      'agent must be a non-empty string; budget must be an object such as { maxTokens: 100000, maxCostUsd: 2 }, got 3',
    );
  });
});
