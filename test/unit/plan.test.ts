/** Planning a step (core/plan.ts): which calls run, in which batches, and which are answered at once. */
import { describe, expect, it } from 'vitest';
import { invalidCallInput } from '../../src/core/tool-calls/call-input';
import type { JsonValue } from '../../src/core/messages/json';
import type { AssistantContent, ToolUseBlock } from '../../src/core/messages/messages';
import type { PlannedCall } from '../../src/core/tool-calls/plan';
import { STEP_INLINE_BUDGET_BYTES, batchCalls, inlineLimitPerCall, planStep } from '../../src/core/tool-calls/plan';
import { READ, WRITE, agentSpec, planned, use } from './core-fixtures';

const spec = agentSpec();

function plan(...content: AssistantContent[]) {
  return planStep(spec, 3, { role: 'assistant', content });
}

const ids = (batches: PlannedCall[][]) => batches.map((b) => b.map((c) => c.callId));

describe('planStep', () => {
  it('plans every call of a well-formed answer, keeping the step and the arguments', () => {
    const p = plan({ type: 'text', text: 'x' }, use('c1', 'read', { q: 1 }), use('c2', 'write', { v: [1, 2] }));
    expect(p.step).toBe(3);
    expect(p.calls).toEqual([use('c1', 'read', { q: 1 }), use('c2', 'write', { v: [1, 2] })]);
    expect(p.batches).toEqual([
      [{ step: 3, callId: 'c1', tool: READ, args: { q: 1 } }],
      [{ step: 3, callId: 'c2', tool: WRITE, args: { v: [1, 2] } }],
    ]);
    expect(p.immediate).toEqual([]);
  });

  it('plans nothing for an answer without calls', () => {
    expect(plan({ type: 'text', text: 'hi' })).toEqual({ step: 3, calls: [], batches: [], immediate: [] });
  });

  describe('arguments that are not a JSON object', () => {
    const notJson: ToolUseBlock = { ...use('c1', 'write', '{"path": "a", "text": '), inputError: 'Unexpected end of JSON input' };

    it('answers text that was not valid JSON at once, quoting the parse error and the raw text', () => {
      const p = plan(notJson);
      expect(p.batches).toEqual([]);
      expect(p.calls).toEqual([notJson]);
      // The exact wording is call-input.test.ts's business: here, that the plan answers with it.
      const text = invalidCallInput(notJson) as string;
      expect(text).toContain('{"path": "a", "text": ');
      expect(text).toContain('Unexpected end of JSON input');
      expect(p.immediate).toEqual([
        { callId: 'c1', tool: 'write', output: { type: 'text', text }, isError: true, error: text, latencyMs: 0, attempts: 0 },
      ]);
    });

    it.each([
      ['an array', [1, 'two'], 'an array', '[1,"two"]'],
      ['a string', 'just text', 'a string', '"just text"'],
      ['null', null, 'null', 'null'],
      ['a number', 42, 'a number', '42'],
      ['a boolean', true, 'a boolean', 'true'],
      ['an empty array', [], 'an array', '[]'],
    ] as Array<[string, JsonValue, string, string]>)(
      'answers %s at once, saying what it got and quoting it',
      (_label, input, kind, sent) => {
        const block = use('c1', 'read', input);
        const p = plan(block);
        expect(p.batches).toEqual([]);
        const text = invalidCallInput(block) as string;
        expect(text).toContain(`not a JSON object but ${kind}. You sent: ${sent}`);
        expect(p.immediate).toEqual([
          { callId: 'c1', tool: 'read', output: { type: 'text', text }, isError: true, error: text, latencyMs: 0, attempts: 0 },
        ]);
      },
    );

    it('never batches them, and keeps the valid calls around them in their batches', () => {
      const p = plan(
        use('r1', 'read'),
        use('bad1', 'read', [1]),
        use('r2', 'read'),
        notJson,
        use('w1', 'write'),
        use('bad2', 'write', null),
        use('w2', 'write'),
      );
      expect(ids(p.batches)).toEqual([['r1', 'r2'], ['w1'], ['w2']]);
      expect(p.immediate.map((o) => o.callId)).toEqual(['bad1', 'c1', 'bad2']);
      expect(p.immediate.every((o) => o.isError && o.endsRun === undefined)).toBe(true);
      // Every call is either planned or answered, exactly once.
      expect([...p.batches.flat().map((c) => c.callId), ...p.immediate.map((o) => o.callId)].sort()).toEqual(
        p.calls.map((c) => c.id).sort(),
      );
    });

    it('an empty object is a valid input', () => {
      expect(ids(plan(use('c1', 'read', {})).batches)).toEqual([['c1']]);
    });
  });

  describe('unknown tools', () => {
    it('answers them at once, listing the tools the agent has, and never batches them', () => {
      const p = plan(use('w1', 'write'), use('u1', 'ghost'), use('w2', 'write'), use('r1', 'read'), use('u2', 'ghost'), use('r2', 'read'));
      expect(ids(p.batches)).toEqual([['w1'], ['w2'], ['r1', 'r2']]);
      expect(p.immediate.map((o) => [o.callId, o.tool, o.output])).toEqual([
        ['u1', 'ghost', { type: 'text', text: 'Unknown tool "ghost". Available tools: read, write.' }],
        ['u2', 'ghost', { type: 'text', text: 'Unknown tool "ghost". Available tools: read, write.' }],
      ]);
    });

    it('an unknown tool with bad arguments is reported as unknown', () => {
      const p = plan(use('u1', 'ghost', 'oops'));
      expect(p.immediate.map((o) => o.error)).toEqual(['Unknown tool "ghost". Available tools: read, write.']);
    });

    it('says so when the agent has no tools at all', () => {
      const p = planStep(agentSpec([]), 1, { role: 'assistant', content: [use('c1', 'read')] });
      expect(p.batches).toEqual([]);
      expect(p.immediate.map((o) => o.error)).toEqual(['Unknown tool "read". This agent has no tools.']);
    });

    it('matches tool names exactly', () => {
      expect(plan(use('c1', 'Read')).immediate.map((o) => o.callId)).toEqual(['c1']);
    });
  });
});

describe('batchCalls', () => {
  const r = (id: string) => planned(id, READ);
  const w = (id: string) => planned(id, WRITE);

  it('groups consecutive read-only calls and isolates every other call, in order', () => {
    const calls = [r('r1'), r('r2'), w('w1'), r('r3'), w('w2'), w('w3'), r('r4'), r('r5')];
    expect(ids(batchCalls(calls))).toEqual([['r1', 'r2'], ['w1'], ['r3'], ['w2'], ['w3'], ['r4', 'r5']]);
  });

  it('puts all-read calls in one batch and all-write calls in one batch each', () => {
    expect(ids(batchCalls([r('a'), r('b'), r('c')]))).toEqual([['a', 'b', 'c']]);
    expect(ids(batchCalls([w('a'), w('b'), w('c')]))).toEqual([['a'], ['b'], ['c']]);
    expect(batchCalls([])).toEqual([]);
  });
});

describe('inlineLimitPerCall', () => {
  it("is the agent's limit while the step's calls fit the budget together", () => {
    expect(inlineLimitPerCall(16 * 1024, 1)).toBe(16 * 1024);
    expect(inlineLimitPerCall(16 * 1024, 64)).toBe(16 * 1024);
  });

  it("is each call's share of the step budget when the calls together would exceed it", () => {
    expect(inlineLimitPerCall(256 * 1024, 10)).toBe(Math.floor(STEP_INLINE_BUDGET_BYTES / 10));
    expect(inlineLimitPerCall(256 * 1024, 10) * 10).toBeLessThanOrEqual(STEP_INLINE_BUDGET_BYTES);
  });

  it('treats a step without calls as one call', () => {
    expect(inlineLimitPerCall(256 * 1024, 0)).toBe(256 * 1024);
  });
});
