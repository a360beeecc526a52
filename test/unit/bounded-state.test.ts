/**
 * The loop state a running execution keeps (core/continuation.ts `trimDue`, `trimmedState`): bounded
 * however long the conversation, and the run's result exactly what the untrimmed state gives.
 */
import { describe, expect, it } from 'vitest';
import { trimDue, trimmedState, TRIM_MIN_ITEMS } from '../../src/core/run/continuation';
import type { TrimMark } from '../../src/core/run/continuation';
import { jsonBytes } from '../../src/core/messages/json';
import { finishRun } from '../../src/core/run/report';
import type { LoopState } from '../../src/core/loop/state';
import { startLoop } from '../../src/core/loop/state';
import { applyModelStep, applyToolOutcomes } from '../../src/core/loop/transitions';
import { READ, agentSpec, modelStep, ok, usage, use } from './core-fixtures';

const meta = { workflowId: 'wf-1', runId: 'run-1', startedAt: '2025-01-01T00:00:00.000Z', endedAt: '2025-01-01T00:00:05.000Z' };
const TAIL = 16 * 1024;

/** Drive `steps` tool steps (each result `bytes` long) and a final answer, trimming as the workflow does (or never). */
function run(steps: number, bytes: number, trim: boolean): { state: LoopState; largest: number } {
  const spec = agentSpec([READ], steps + 1);
  let state = startLoop(spec, 'Read everything.');
  let mark: TrimMark = { messages: 1, steps: 0, toolCalls: 0 };
  let largest = 0;
  for (let i = 1; i <= steps + 1; i++) {
    const last = i === steps + 1;
    const t = applyModelStep(
      state,
      spec,
      modelStep(last ? [{ type: 'text', text: 'Done.' }] : [use(`c${i}`, 'read', { page: i })], undefined, { ...usage(10, 1) }),
    );
    state = t.state;
    if (trim && trimDue(state, mark)) ({ loop: state, mark } = trimmedState(state, TAIL));
    if (trim && i % 10 === 0) largest = Math.max(largest, jsonBytes(state));
    if (t.next.type !== 'run_tools') break;
    state = applyToolOutcomes(state, t.next.plan, [ok(`c${i}`, 'read', `page ${i} `.padEnd(bytes, '.'))]).state;
  }
  return { state, largest };
}

describe('a running execution keeps its loop state bounded', () => {
  it('holds as much at 2,000 steps as at 1,000, and far less than the conversation', () => {
    const at1000 = run(1000, 500, true);
    const at2000 = run(2000, 500, true);
    const untrimmed = run(2000, 500, false);
    // Messages within twice the tail, step and call details within twice the report's budget (64 KiB each).
    expect(at2000.largest).toBeLessThan(2 * (TAIL + 2 * 64 * 1024) + 8 * 1024);
    expect(at2000.largest).toBeLessThan(at1000.largest * 1.1);
    expect(jsonBytes(untrimmed.state)).toBeGreaterThan(10 * at2000.largest);
  });

  it('gives the same result as the untrimmed state (messages, counts, report, cost)', () => {
    for (const steps of [3, 40, 700]) {
      const trimmed = finishRun(run(steps, 300, true).state, 'success', meta, undefined, TAIL);
      const whole = finishRun(run(steps, 300, false).state, 'success', meta, undefined, TAIL);
      // Heads are made up per model step by the fixtures: the same position, another name.
      expect({ ...trimmed, transcriptHead: null }).toEqual({ ...whole, transcriptHead: null });
    }
  });

  it('trims only with every message stored, once a list has doubled past the minimum', () => {
    const spec = agentSpec([READ]);
    const state = startLoop(spec, 'p');
    const none: TrimMark = { messages: 0, steps: 0, toolCalls: 0 };
    expect(trimDue(state, none)).toBe(false); // the prompt is not stored yet
    const many = { ...state, messages: Array.from({ length: TRIM_MIN_ITEMS + 1 }, () => state.messages[0]!), stored: TRIM_MIN_ITEMS + 1 };
    expect(trimDue(many, none)).toBe(true);
    expect(trimDue(many, { ...none, messages: TRIM_MIN_ITEMS })).toBe(false);
    expect(trimDue({ ...many, stored: TRIM_MIN_ITEMS }, none)).toBe(false);
  });
});
