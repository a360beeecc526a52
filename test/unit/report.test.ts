/** The end of a run (core/report.ts): its typed result, report, cost and `done` event. */
import { describe, expect, it } from 'vitest';
import type { Message } from '../../src/core/messages/messages';
import type { RunStatus } from '../../src/core/run/result';
import { RUN_STATUSES } from '../../src/core/run/result';
import { REPORT_DETAIL_BYTES, answerText, doneEvent, finishRun, recentMessages, recentWithin, runCost } from '../../src/core/run/report';
import { jsonBytes } from '../../src/core/messages/json';
import { startLoop } from '../../src/core/loop/state';
import { MAX_TOKENS_CONTINUE, applyModelStep, applyToolOutcomes } from '../../src/core/loop/transitions';
import type { Transition } from '../../src/core/loop/transitions';
import { READ, agentSpec, modelStep, ok, toolSpec, usage, use } from './core-fixtures';

const spec = agentSpec([READ, toolSpec('deploy', false, 'fail')]);
const meta = { workflowId: 'wf-1', runId: 'run-1', startedAt: '2025-01-01T00:00:00.000Z', endedAt: '2025-01-01T00:00:05.000Z' };

function planOf(t: Transition) {
  if (t.next.type !== 'run_tools') throw new Error(`expected run_tools, got ${t.next.type}`);
  return t.next.plan;
}

describe('finishRun and doneEvent', () => {
  it('builds the result and report of a successful run', () => {
    const t1 = applyModelStep(
      startLoop(spec, 'p'),
      spec,
      modelStep([{ type: 'text', text: 'Reading.' }, use('c1', 'read')], 'tool_use', usage(10, 1)),
    );
    const s1 = applyToolOutcomes(t1.state, planOf(t1), [ok('c1', 'read', 'data')]).state;
    const out = modelStep(
      [
        { type: 'text', text: 'All ' },
        { type: 'text', text: 'done.' },
      ],
      'end_turn',
      usage(20, 2),
    );
    const s2 = applyModelStep(s1, spec, out).state;

    const result = finishRun(s2, 'success', meta);
    expect(result).toMatchObject({
      status: 'success',
      finalText: 'All done.',
      steps: 2,
      usage: usage(30, 3),
      transcriptHead: out.head,
      messagesOmitted: 0,
    });
    expect(result).not.toHaveProperty('error');
    expect(result.messages).toEqual(s2.messages);
    // The test model has no price: the cost is unknown (null, not 0), and the report says both steps were unpriced.
    expect(result.costUsd).toBeNull();
    expect(JSON.parse(JSON.stringify(result))).toMatchObject({ costUsd: null, report: { costUsd: null, unpricedSteps: 2 } });
    expect(result.report).toEqual({
      agent: 'tester',
      ...meta,
      steps: s2.steps,
      stepsOmitted: 0,
      toolCalls: s2.toolCalls,
      toolCallsOmitted: 0,
      usage: usage(30, 3),
      costUsd: null,
      unpricedSteps: 2,
    });
    expect(result.report.steps).toHaveLength(2);
    expect(result.report.toolCalls).toHaveLength(1);
    expect(result.report.toolCalls[0]).toMatchObject({ callId: 'c1', tool: 'read' });

    expect(doneEvent(result)).toEqual({
      type: 'done',
      status: 'success',
      steps: 2,
      usage: usage(30, 3),
      costUsd: null,
      finalText: 'All done.',
    });
  });

  it('takes the final text from the last assistant message even after tool results', () => {
    const t1 = applyModelStep(startLoop(spec, 'p'), spec, modelStep([{ type: 'text', text: 'Deploying.' }, use('c1', 'deploy')]));
    const t2 = applyToolOutcomes(t1.state, planOf(t1), [
      ok('c1', 'deploy', 'x', { isError: true, error: 'Tool "deploy" failed: boom', endsRun: 'tool_error' }),
    ]);
    if (t2.next.type !== 'finish') throw new Error('expected finish');
    const result = finishRun(t2.state, t2.next.status, meta, t2.next.error);
    expect(result.finalText).toBe('Deploying.');
    expect(result.error).toEqual({ message: 'Tool "deploy" failed: boom', type: 'ToolError' });
    expect(doneEvent(result)).toEqual({
      type: 'done',
      status: 'tool_error',
      steps: 1,
      usage: t2.state.usage,
      costUsd: null,
      finalText: 'Deploying.',
      error: { message: 'Tool "deploy" failed: boom', type: 'ToolError' },
    });
  });

  it('sums the cost of priced steps and counts the unpriced ones', () => {
    const t1 = applyModelStep(startLoop(spec, 'p'), spec, { ...modelStep([use('c1', 'read')], 'tool_use'), costUsd: 0.0123 });
    const s1 = applyToolOutcomes(t1.state, planOf(t1), [ok('c1', 'read', 'data')]).state;
    const s2 = applyModelStep(s1, spec, { ...modelStep([{ type: 'text', text: 'ok' }], 'end_turn'), costUsd: 0.0007 }).state;
    const s3 = applyModelStep(s2, spec, modelStep([{ type: 'text', text: 'again' }], 'end_turn')).state;
    const result = finishRun(s3, 'success', meta);
    expect(result.costUsd).toBeCloseTo(0.013, 10);
    expect(result.report).toMatchObject({ costUsd: result.costUsd, unpricedSteps: 1 });
  });

  it('has empty final text and no head when the model never answered', () => {
    const result = finishRun(startLoop(spec, 'p'), 'cancelled', meta, { message: 'The run was cancelled.' });
    expect(result).toMatchObject({ status: 'cancelled', finalText: '', steps: 0, transcriptHead: null });
    expect(doneEvent(result)).toMatchObject({ status: 'cancelled', finalText: '', error: { message: 'The run was cancelled.' } });
  });

  it('leaves the oldest messages out of the result beyond the inline budget, and says how many', () => {
    const t1 = applyModelStep(startLoop(spec, 'p'), spec, modelStep([{ type: 'text', text: 'x'.repeat(200) }]));
    const result = finishRun(t1.state, 'success', meta, undefined, 100);
    expect(result.messages).toEqual(t1.state.messages.slice(1));
    expect(result.messagesOmitted).toBe(1);
    expect(result.finalText).toBe('x'.repeat(200));
  });

  describe('every status but success carries an error', () => {
    const state = startLoop(spec, 'p');

    it('success has no error, even if one is passed', () => {
      const result = finishRun(state, 'success', meta, { message: 'ignored' });
      expect(result.error).toBeUndefined();
      expect(result).not.toHaveProperty('error');
      expect(doneEvent(result)).not.toHaveProperty('error');
    });

    it.each(RUN_STATUSES.filter((s) => s !== 'success'))('%s keeps the error it was given', (status: RunStatus) => {
      const error = { message: `why ${status}`, type: 'Why' };
      const result = finishRun(state, status, meta, error);
      expect(result.status).toBe(status);
      expect(result.error).toEqual(error);
      expect(doneEvent(result)).toMatchObject({ status, error });
    });

    it.each(RUN_STATUSES.filter((s) => s !== 'success'))('%s gets a generic error when none was given', (status: RunStatus) => {
      const result = finishRun(state, status, meta);
      expect(result.error).toEqual({ message: `The run ended: ${status}.` });
      expect(doneEvent(result).error).toEqual({ message: `The run ended: ${status}.` });
    });

    it('covers storage_error, invalid_input and internal_error', () => {
      expect(RUN_STATUSES).toEqual(expect.arrayContaining(['storage_error', 'invalid_input', 'internal_error']));
    });
  });
});

describe('runCost', () => {
  const step = (costUsd?: number) => ({
    step: 1,
    turn: 1,
    provider: 'p',
    model: 'm',
    latencyMs: 1,
    stopReason: 'end_turn' as const,
    usage: usage(1, 1),
    attempts: 1,
    ...(costUsd !== undefined ? { costUsd } : {}),
  });

  it('is zero with nothing unpriced for no steps', () => {
    expect(runCost([])).toEqual({ costUsd: 0, unpricedSteps: 0 });
  });

  it('sums priced steps, rounded to 1e-8 USD, and counts the others', () => {
    expect(runCost([step(0.1), step(0.2), step(), step(0)])).toEqual({ costUsd: 0.3, unpricedSteps: 1 });
  });
});

describe('recentMessages', () => {
  const msg = (text: string): Message => ({ role: 'user', content: [{ type: 'text', text }] });
  const all = ['a'.repeat(100), 'b'.repeat(100), 'c'.repeat(100), 'd'.repeat(100)].map(msg);

  it('keeps everything that fits', () => {
    expect(recentMessages(all, 10_000)).toEqual({ messages: all, omitted: 0 });
  });

  it('keeps the most recent messages that fit, oldest left out first', () => {
    const one = JSON.stringify(all[0]).length;
    const r = recentMessages(all, 2 + 2 * (one + 1));
    expect(r).toEqual({ messages: all.slice(2), omitted: 2 });
    expect(JSON.stringify(r.messages).length).toBeLessThanOrEqual(2 + 2 * (one + 1));
  });

  it('always keeps the last message, even if it alone is too large', () => {
    expect(recentMessages(all, 10)).toEqual({ messages: all.slice(3), omitted: 3 });
  });

  it('handles an empty conversation', () => {
    expect(recentMessages([], 10)).toEqual({ messages: [], omitted: 0 });
  });
});

describe('the report of a long run', () => {
  it('keeps the result small: recent step and call details within the budget, totals over every step', () => {
    const n = 5_000;
    const state = {
      ...startLoop(spec, 'go'),
      step: n,
      usage: usage(n * 10, n * 2),
      steps: Array.from({ length: n }, (_, i) => ({
        step: i + 1,
        turn: 1,
        provider: 'p',
        model: 'm',
        latencyMs: 1,
        stopReason: 'tool_use' as const,
        usage: usage(10, 2),
        attempts: 1,
        costUsd: 0.001,
      })),
      toolCalls: Array.from({ length: n }, (_, i) => ({
        step: i + 1,
        callId: `c${i}`,
        tool: 'read',
        args: { path: `file-${i}` },
        latencyMs: 1,
        resultBytes: 10,
        stored: false,
        isError: false,
        attempts: 1,
      })),
    };
    const r = finishRun(state, 'max_steps', meta, { message: 'cap' });
    expect(jsonBytes(r.report)).toBeLessThan(2 * REPORT_DETAIL_BYTES + 4096);
    expect(r.report.stepsOmitted + r.report.steps.length).toBe(n);
    expect(r.report.toolCallsOmitted + r.report.toolCalls.length).toBe(n);
    expect(r.report.stepsOmitted).toBeGreaterThan(0);
    expect(r.report.steps.at(-1)?.step).toBe(n);
    expect(r.report.costUsd).toBe(5);
    expect(r.usage).toEqual(usage(n * 10, n * 2));
  });

  it('a short run keeps every detail', () => {
    const r = finishRun({ ...startLoop(spec, 'go') }, 'success', meta);
    expect(r.report).toMatchObject({ steps: [], stepsOmitted: 0, toolCalls: [], toolCallsOmitted: 0 });
  });

  it('recentWithin keeps at least the last item', () => {
    expect(recentWithin(['x'.repeat(100)], 10)).toEqual({ items: ['x'.repeat(100)], omitted: 0 });
    expect(recentWithin([1, 2, 3], 1000)).toEqual({ items: [1, 2, 3], omitted: 0 });
  });
});

describe('answerText', () => {
  const said = (text: string): Message => ({ role: 'assistant', content: [{ type: 'text', text }] });
  const user = (...texts: string[]): Message => ({ role: 'user', content: texts.map((text) => ({ type: 'text' as const, text })) });

  it('joins every part of an answer continued after cut-offs, and nothing before them', () => {
    const messages = [
      user('hi'),
      said('earlier answer'),
      user('go on'),
      said('The answer'),
      user(MAX_TOKENS_CONTINUE),
      said(' goes on'),
      user(MAX_TOKENS_CONTINUE),
      said(' and ends.'),
    ];
    expect(answerText(messages, 7)).toBe('The answer goes on and ends.');
    expect(answerText(messages, 3)).toBe('The answer');
    expect(answerText(messages, 1)).toBe('earlier answer');
  });

  it('a continue that travels with tool results still joins the parts', () => {
    const results: Message = {
      role: 'user',
      content: [
        { type: 'tool_result', toolUseId: 'c', output: { type: 'text', text: 'x' }, isError: true },
        { type: 'text', text: MAX_TOKENS_CONTINUE },
      ],
    };
    expect(answerText([user('hi'), said('part one,'), results, said(' part two')], 3)).toBe('part one, part two');
  });
});
