/** The pure rules of guardrails: what a decision does to the loop (core/guardrails.ts), and their definitions. */
import { describe, expect, it } from 'vitest';
import type { GuardrailDecision, GuardrailSpec } from '../../src/core/guardrails/guardrail-types';
import {
  applyInputGuardrails,
  applyOutputGuardrails,
  feedbackText,
  guardrailsFailed,
  hasGuardrails,
  judgesAnswer,
} from '../../src/core/guardrails/guardrails';
import { finishRun } from '../../src/core/run/report';
import { startLoop } from '../../src/core/loop/state';
import { applyModelStep } from '../../src/core/loop/transitions';
import { defineAgent } from '../../src/agents/define';
import { defineGuardrail, guardrailsField } from '../../src/agents/guardrails';
import { agentSpec, expectEveryCallAnswered, modelStep, use } from './core-fixtures';

const g = (name: string, tripwire = false, feedback = true): GuardrailSpec => ({ name, tripwire, feedback });
const pass = (name: string): GuardrailDecision => ({ name, pass: true, latencyMs: 1 });
const fail = (name: string, reason: string): GuardrailDecision => ({ name, pass: false, reason, latencyMs: 1 });
const META = { workflowId: 'w', runId: 'r', startedAt: 't0', endedAt: 't1' };

function answered(content: Parameters<typeof modelStep>[0], maxSteps = 5) {
  const spec = agentSpec(undefined, maxSteps);
  return applyModelStep(startLoop(spec, 'hi'), spec, modelStep(content));
}

describe('input guardrails', () => {
  const loop = startLoop(agentSpec(), 'tell me the password');

  it('all pass: the model is called, no event', () => {
    const t = applyInputGuardrails(loop, [g('pii'), g('topic', true)], [pass('pii'), pass('topic')]);
    expect(t.next).toEqual({ type: 'call_model' });
    expect(t.events).toEqual([]);
    expect(t.state).toBe(loop);
  });

  it('a failure without tripwire is an event and the model is still called', () => {
    const t = applyInputGuardrails(loop, [g('pii')], [fail('pii', 'mentions a password')]);
    expect(t.next).toEqual({ type: 'call_model' });
    expect(t.events).toEqual([
      {
        type: 'guardrail',
        kind: 'input',
        step: 1,
        name: 'pii',
        pass: false,
        reason: 'mentions a password',
        tripwire: false,
        action: 'logged',
      },
    ]);
  });

  it('a tripwire ends the run `guardrail` with the reason as final text', () => {
    const t = applyInputGuardrails(loop, [g('pii'), g('topic', true)], [fail('pii', 'p'), fail('topic', 'off topic')]);
    expect(t.next).toMatchObject({
      type: 'finish',
      status: 'guardrail',
      error: { message: 'The input guardrail "topic" tripped: off topic', type: 'GuardrailTripped' },
    });
    expect(t.events.map((e) => (e as { action: string }).action)).toEqual(['logged', 'ended']);
    const result = finishRun(t.state, 'guardrail', META, (t.next as { error: { message: string } }).error);
    expect(result.finalText).toBe('off topic');
    expect(result.status).toBe('guardrail');
  });
});

describe('output guardrails', () => {
  it('all pass: the transition is unchanged (no new events)', () => {
    const t = answered([{ type: 'text', text: 'fine' }]);
    const out = applyOutputGuardrails(t, [g('tone')], [pass('tone')]);
    expect(out.state).toBe(t.state);
    expect(out.next).toEqual(t.next);
    expect(out.events).toEqual([]);
  });

  it('a failure with feedback asks the model to revise: one user turn with the reason, a step is spent', () => {
    const t = answered([{ type: 'text', text: 'rude answer' }]);
    const out = applyOutputGuardrails(t, [g('tone')], [fail('tone', 'the answer is rude')]);
    expect(out.next).toEqual({ type: 'call_model' });
    const last = out.state.messages[out.state.messages.length - 1];
    expect(last).toEqual({
      role: 'user',
      content: [{ type: 'text', text: feedbackText([{ name: 'tone', reason: 'the answer is rude' }]) }],
    });
    expect(feedbackText([{ name: 'tone', reason: 'the answer is rude' }])).toContain('tone: the answer is rude');
    expect(out.state.step).toBe(1);
    expect(out.events).toMatchObject([{ type: 'guardrail', kind: 'output', step: 1, action: 'feedback' }]);
  });

  it('feedback on an answer with tool calls closes the calls without running them, then the feedback follows', () => {
    const t = answered([use('c1', 'write', { k: 1 }), use('c2', 'read')]);
    expect(t.next.type).toBe('run_tools');
    const out = applyOutputGuardrails(t, [g('policy')], [fail('policy', 'no writes today')]);
    expect(out.next).toEqual({ type: 'call_model' });
    expectEveryCallAnswered(out.state.messages);
    const last = out.state.messages[out.state.messages.length - 1]!;
    expect(last.role).toBe('user');
    expect(last.content.map((b) => b.type)).toEqual(['tool_result', 'tool_result', 'text']);
    expect(out.events.filter((e) => e.type === 'tool_result')).toHaveLength(2);
  });

  it('feedback off: the failure is only an event and the loop goes on as before', () => {
    const t = answered([{ type: 'text', text: 'meh' }]);
    const out = applyOutputGuardrails(t, [g('style', false, false)], [fail('style', 'too long')]);
    expect(out.next).toEqual({ type: 'finish', status: 'success' });
    expect(out.state).toBe(t.state);
    expect(out.events).toMatchObject([{ action: 'logged' }]);
  });

  it('a tripwire ends the run `guardrail`; calls of the answer are closed, never run', () => {
    const t = answered([{ type: 'text', text: 'sending it' }, use('c1', 'write')]);
    const out = applyOutputGuardrails(t, [g('tone'), g('leak', true)], [fail('tone', 'rude'), fail('leak', 'contains a secret')]);
    expect(out.next).toMatchObject({ type: 'finish', status: 'guardrail' });
    expect(out.state.finalText).toBe('contains a secret');
    expectEveryCallAnswered(out.state.messages);
    expect(out.events.map((e) => e.type)).toEqual(['guardrail', 'guardrail', 'tool_result']);
  });

  it('feedback with no step left ends the run `guardrail` (a failed answer is never the final text)', () => {
    const t = answered([{ type: 'text', text: 'bad' }], 1);
    const out = applyOutputGuardrails(t, [g('tone')], [fail('tone', 'still rude')]);
    expect(out.next).toMatchObject({ type: 'finish', status: 'guardrail' });
    expect(out.state.finalText).toBe('still rude');
    expect(out.events).toMatchObject([{ action: 'ended' }]);
  });

  it('a guardrail that could not decide ends the run with the given failure; open calls closed', () => {
    const t = answered([use('c1', 'write')]);
    const out = guardrailsFailed(t.state, 'output', {
      status: 'internal_error',
      error: { message: 'The output guardrail "x" threw: boom' },
    });
    expect(out.next).toMatchObject({
      type: 'finish',
      status: 'internal_error',
      error: { message: 'The output guardrail "x" threw: boom' },
    });
    expectEveryCallAnswered(out.state.messages);
  });

  it('judges final answers and answers asking for tools, never a cut-off one', () => {
    expect(judgesAnswer({ type: 'finish', status: 'success' })).toBe(true);
    expect(judgesAnswer({ type: 'finish', status: 'max_tokens' })).toBe(false);
    expect(judgesAnswer({ type: 'call_model' })).toBe(false);
  });
});

describe('defining guardrails', () => {
  const check = () => ({ pass: true as const });

  it('records names and flags as data; no guardrails, no spec field', () => {
    const a = defineGuardrail({ name: 'a', check });
    const b = defineGuardrail({ name: 'b', kind: 'output', tripwire: true, check });
    const c = defineGuardrail({ name: 'c', feedback: false, check });
    expect(guardrailsField({ input: [a], output: [b, c] })).toEqual({
      guardrails: {
        input: [{ name: 'a', tripwire: false, feedback: false }],
        output: [
          { name: 'b', tripwire: true, feedback: true },
          { name: 'c', tripwire: false, feedback: false },
        ],
      },
    });
    expect(guardrailsField(undefined)).toEqual({});
    expect(guardrailsField({ input: [], output: [] })).toEqual({});
    expect(hasGuardrails({}, 'input')).toBe(false);
    expect(hasGuardrails({ guardrails: { input: [], output: [{ name: 'b', tripwire: true, feedback: true }] } }, 'output')).toBe(true);
  });

  it('refuses bad guardrails with a message naming what is wrong', () => {
    expect(() => defineGuardrail({ name: 'bad name', check })).toThrow(/1-64 letters/);
    expect(() => defineGuardrail({ name: 'x' } as never)).toThrow(/check must be a function/);
    expect(() => defineGuardrail({ name: 'x', kind: 'middle' as never, check })).toThrow(/kind must be "input" or "output"/);
    const out = defineGuardrail({ name: 'o', kind: 'output', check });
    const model = { provider: 'scripted', model: 'm' };
    expect(() => defineAgent({ name: 'a', model, guardrails: { input: [out] } })).toThrow(
      /is an output guardrail: put it in guardrails.output/,
    );
    expect(() => defineAgent({ name: 'a', model, guardrails: { output: [out, out] } })).toThrow(/two output guardrails named "o"/);
    expect(() => defineAgent({ name: 'a', model, guardrails: { before: [] } as never })).toThrow(/unknown list "before"/);
    expect(() => defineAgent({ name: 'a', model, guardrails: { input: [defineGuardrail({ name: 'i', feedback: true, check })] } })).toThrow(
      /feedback applies to output guardrails only/,
    );
    expect(() => defineAgent({ name: 'a', model, hooks: { beforeToolCall: 'no' } as never })).toThrow(
      /hooks.beforeToolCall must be a function/,
    );
    expect(() => defineAgent({ name: 'a', model, hooks: { onCall: () => undefined } as never })).toThrow(/unknown hook "onCall"/);
  });
});
