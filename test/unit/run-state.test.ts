import { describe, expect, it } from 'vitest';
import { EventLog } from '../../src/core/events/event-log';
import { RunState } from '../../src/core/loop/run-state';
import { startLoop } from '../../src/core/loop/state';
import { applyModelStep, applyUserMessages, closeOpenCalls } from '../../src/core/loop/transitions';
import { agentSpec, modelStep, types, usage, use } from './core-fixtures';

const spec = agentSpec();

function fresh(): RunState {
  return new RunState(new EventLog(() => new Date(0)), startLoop(spec, 'p'));
}

describe('RunState', () => {
  it('applies a transition: its state becomes the run state and its events are logged in order', () => {
    const run = fresh();
    const t = applyModelStep(run.loop, spec, modelStep([{ type: 'text', text: 'hi' }, use('c1', 'write')]));
    run.apply(t);
    expect(run.loop).toBe(t.state);
    const page = run.log.page(0, 100);
    expect(types(page.events)).toEqual(['text', 'step_finished', 'tool_call']);
    expect(page.events.map((e) => e.seq)).toEqual([0, 1, 2]);
  });

  it("logs the events it is given instead of the transition's own (events held back)", () => {
    const run = fresh();
    const t = applyModelStep(run.loop, spec, modelStep([{ type: 'text', text: 'final' }]));
    run.apply(t, []);
    expect(run.loop).toBe(t.state);
    expect(run.log.size).toBe(0);
    run.apply(
      t,
      t.events.filter((e) => e.type !== 'text'),
    );
    expect(types(run.log.page(0, 100).events)).toEqual(['step_finished']);
  });

  it('chains transitions: each starts from the state the last one left', () => {
    const run = fresh();
    run.apply(applyModelStep(run.loop, spec, modelStep([use('c1', 'write')])));
    run.apply(closeOpenCalls(run.loop, [], 'Cancelled.'));
    run.apply(applyUserMessages(run.loop, [{ message: { text: 'and then?' }, via: 'signal' }]));
    expect(run.loop.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(run.loop.turn).toBe(2);
    expect(types(run.log.page(0, 100).events)).toEqual(['step_finished', 'tool_call', 'tool_result', 'user_message']);
  });

  it('replaces the state without logging, and marks every message stored under a head', () => {
    const run = fresh();
    const other = startLoop(spec, 'another prompt');
    run.replace(other);
    expect(run.loop).toBe(other);
    expect(run.log.size).toBe(0);
    expect(run.loop.stored).toBe(0);
    run.stored('sha256-h1');
    expect(run.loop).toMatchObject({ head: 'sha256-h1', stored: 1 });
    // A new state object: the one replaced is not mutated.
    expect(other.stored).toBe(0);
  });

  it('tells the budget spent: tokens from usage, cost from the steps plus earlier executions, compaction and sub-agents', () => {
    const run = fresh();
    expect(run.spentBudget({ maxTokens: 100, maxCostUsd: 1 }, 1)).toBeUndefined();
    run.apply(applyModelStep(run.loop, spec, { ...modelStep([{ type: 'text', text: 'a' }], undefined, usage(80, 30)), costUsd: 0.25 }));
    expect(run.spentBudget({ maxTokens: 100 }, 1)).toEqual({ budget: 'maxTokens', limit: 100, spent: 110 });
    expect(run.spentBudget({ maxCostUsd: 1 }, 1)).toBeUndefined();
    run.replace({
      ...run.loop,
      earlier: { messages: 0, steps: 0, toolCalls: 0, costUsd: 0.5, unpricedSteps: 0 },
      subAgents: { runs: 1, usage: usage(0, 0), costUsd: 0.25 },
    });
    expect(run.spentBudget({ maxCostUsd: 1 }, 1)).toEqual({ budget: 'maxCostUsd', limit: 1, spent: 1 });
    expect(run.spentBudget({ maxTurns: 1 }, 2)).toMatchObject({ budget: 'maxTurns', limit: 1 });
  });
});
