import { describe, expect, it } from 'vitest';
import {
  CANCELLED,
  finished,
  interruptedCallReason,
  maxStepsEnding,
  modelFailureEnding,
  overBudgetCallReason,
  timeoutEnding,
} from '../../src/core/run/ending';
import { STORAGE_ERROR } from '../../src/core/run/contract';

describe('run endings', () => {
  it("keeps a transition's finish as it is, without an error key when it has none", () => {
    expect(finished({ status: 'success' })).toEqual({ status: 'success' });
    expect(Object.keys(finished({ status: 'success' }))).toEqual(['status']);
    expect(finished({ status: 'guardrail', error: { message: 'no', type: 'Guardrail' } })).toEqual({
      status: 'guardrail',
      error: { message: 'no', type: 'Guardrail' },
    });
  });

  it('names the step limit, the time budget and cancellation', () => {
    expect(maxStepsEnding(7)).toEqual({ status: 'max_steps', error: { message: 'Reached the step limit (7).', type: 'MaxSteps' } });
    expect(timeoutEnding(1500)).toEqual({
      status: 'timeout',
      error: { message: "The run's time budget (1500 ms) ran out.", type: 'Timeout' },
    });
    expect(CANCELLED).toEqual({ status: 'cancelled', error: { message: 'The run was cancelled.', type: 'CancelledFailure' } });
  });

  it('ends a failed model call storage_error when the store failed, provider_error otherwise', () => {
    expect(modelFailureEnding({ message: 'store down', type: STORAGE_ERROR }, STORAGE_ERROR)).toEqual({
      status: 'storage_error',
      error: { message: 'store down', type: STORAGE_ERROR },
    });
    expect(modelFailureEnding({ message: '500', type: 'ServerError' }, STORAGE_ERROR)).toEqual({
      status: 'provider_error',
      error: { message: '500', type: 'ServerError' },
    });
    expect(modelFailureEnding({ message: 'boom' }, STORAGE_ERROR)).toEqual({ status: 'provider_error', error: { message: 'boom' } });
  });

  it('tells the model why a call left open was not run', () => {
    expect(interruptedCallReason({ kind: 'timeout' })).toBe("Not executed: the run's time budget ran out before this call finished.");
    expect(interruptedCallReason({ kind: 'cancelled' })).toBe('Cancelled: the run was cancelled before this call finished.');
    expect(interruptedCallReason({ kind: 'failed', ending: { status: 'internal_error', error: { message: 'worker gone' } } })).toBe(
      'Not executed: the run failed (worker gone).',
    );
    expect(overBudgetCallReason({ status: 'budget_exceeded', error: { message: 'Token budget spent.' } })).toBe(
      'Not executed: Token budget spent.',
    );
    expect(overBudgetCallReason({ status: 'budget_exceeded' })).toBe('Not executed: a budget of the run is spent.');
  });
});
