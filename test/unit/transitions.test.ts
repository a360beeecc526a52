/** The agent loop's transitions (core/transitions.ts): every rule of the loop, without a server. */
import { describe, expect, it } from 'vitest';
import type { Message, ToolOutput, ToolResultBlock, ToolUseBlock } from '../../src/core/messages/messages';
import type { ToolOutcome } from '../../src/core/tool-calls/outcomes';
import { errorOutcome, expiredOutcome } from '../../src/core/tool-calls/outcomes';
import type { StepPlan } from '../../src/core/tool-calls/plan';
import type { FailureStatus } from '../../src/core/run/result';
import type { LoopState, ModelStep } from '../../src/core/loop/state';
import { dropIncompleteCalls, modelInput, startLoop } from '../../src/core/loop/state';
import type { Transition } from '../../src/core/loop/transitions';
import { MAX_TOKENS_CONTINUE, applyModelStep, applyToolOutcomes, closeOpenCalls } from '../../src/core/loop/transitions';
import { READ, WRITE, agentSpec, expectEveryCallAnswered, modelStep, ok, toolSpec, types, usage, use } from './core-fixtures';

/** The plan of a transition that must run tools. */
function planOf(t: Transition): StepPlan {
  if (t.next.type !== 'run_tools') throw new Error(`expected run_tools, got ${t.next.type}`);
  return t.next.plan;
}

/** Outcomes for every call of a plan: the immediate ones as planned, the others a success. */
function allOk(plan: StepPlan): ToolOutcome[] {
  return [...plan.immediate, ...plan.batches.flat().map((c) => ok(c.callId, c.tool.name, `result of ${c.callId}`))];
}

describe('modelInput across transitions', () => {
  it('sends the prompt first, then only what the store has not seen', () => {
    const spec = agentSpec();
    const s0 = startLoop(spec, 'go');
    expect(modelInput(s0)).toEqual({ head: null, append: s0.messages });

    const out = modelStep([use('c1', 'read')]);
    const t1 = applyModelStep(s0, spec, out);
    // The model activity stored the prompt and the answer under out.head.
    expect(modelInput(t1.state)).toEqual({ head: out.head, append: [] });

    const t2 = applyToolOutcomes(t1.state, planOf(t1), [ok('c1', 'read', 'r')]);
    const input = modelInput(t2.state);
    expect(input.head).toBe(out.head);
    expect(input.append).toHaveLength(1);
    expect(input.append[0]).toBe(t2.state.messages[2]);
    expect(input.append[0]?.role).toBe('user');
  });

  it('over a whole run, sends every message to the store exactly once', () => {
    const spec = agentSpec();
    const replies = [
      modelStep([{ type: 'text', text: 'reading' }, use('a', 'read'), use('b', 'read')]),
      modelStep([use('c', 'write', { v: 1 })]),
      modelStep([{ type: 'text', text: 'done' }]),
    ];
    let state = startLoop(spec, 'task');
    const transcript: Message[] = [];
    for (const reply of replies) {
      // What the model activity does: append what is new, then the answer.
      transcript.push(...modelInput(state).append, reply.message);
      const t = applyModelStep(state, spec, reply);
      state = t.state;
      if (t.next.type !== 'run_tools') {
        expect(t.next).toEqual({ type: 'finish', status: 'success' });
        break;
      }
      const t2 = applyToolOutcomes(state, t.next.plan, allOk(t.next.plan));
      expect(t2.next.type).toBe('call_model');
      state = t2.state;
    }
    expect(state.step).toBe(3);
    expect(transcript).toEqual(state.messages);
    expect(state.stored).toBe(state.messages.length);
    expectEveryCallAnswered(state.messages);
  });
});

describe('applyModelStep', () => {
  it('finishes with success on a plain answer, recording the step', () => {
    const spec = agentSpec();
    const s0 = startLoop(spec, 'hi');
    const out = modelStep(
      [
        { type: 'text', text: 'Hello ' },
        { type: 'text', text: 'there' },
      ],
      'end_turn',
      usage(100, 20, 3, 4),
    );
    const t = applyModelStep(s0, spec, out);

    expect(t.next).toEqual({ type: 'finish', status: 'success' });
    expect(t.state.step).toBe(1);
    expect(t.state.messages).toEqual([...s0.messages, out.message]);
    expect(t.state.stored).toBe(2);
    expect(t.state.head).toBe(out.head);
    expect(t.state.usage).toEqual(usage(100, 20, 3, 4));
    expect(t.state.steps).toEqual([
      {
        step: 1,
        turn: 1,
        provider: 'scripted',
        model: 'm',
        latencyMs: 42,
        stopReason: 'end_turn',
        usage: usage(100, 20, 3, 4),
        attempts: 1,
      },
    ]);
    expect(t.events).toEqual([
      { type: 'text', step: 1, text: 'Hello there' },
      { type: 'step_finished', step: 1, stopReason: 'end_turn', usage: usage(100, 20, 3, 4), latencyMs: 42 },
    ]);
    // The input state is not mutated.
    expect(s0.messages).toHaveLength(1);
    expect(s0.step).toBe(0);
  });

  it('emits no text event for a message without text (thinking is not text)', () => {
    const spec = agentSpec();
    const out = modelStep([{ type: 'thinking', thinking: 'hmm', signature: 'sig' }, use('c1', 'read')]);
    const t = applyModelStep(startLoop(spec, 'p'), spec, out);
    expect(types(t.events)).toEqual(['step_finished', 'tool_call']);
  });

  it('accumulates usage and step reports across steps', () => {
    const spec = agentSpec();
    const t1 = applyModelStep(startLoop(spec, 'p'), spec, {
      ...modelStep([use('c1', 'read')], 'tool_use', usage(10, 2, 1, 0)),
      attempts: 3,
    });
    const s1 = applyToolOutcomes(t1.state, planOf(t1), [ok('c1', 'read', 'x')]).state;
    const t2 = applyModelStep(s1, spec, modelStep([{ type: 'text', text: 'ok' }], 'end_turn', usage(30, 4, 0, 5)));
    expect(t2.state.usage).toEqual(usage(40, 6, 1, 5));
    expect(t2.state.steps.map((s) => [s.step, s.attempts, s.stopReason])).toEqual([
      [1, 3, 'tool_use'],
      [2, 1, 'end_turn'],
    ]);
    expect(t2.events).toContainEqual({ type: 'step_finished', step: 2, stopReason: 'end_turn', usage: usage(30, 4, 0, 5), latencyMs: 42 });
  });

  it('records the cost of a priced step in its report and its event', () => {
    const spec = agentSpec();
    const t = applyModelStep(startLoop(spec, 'p'), spec, { ...modelStep([use('c1', 'read')], 'tool_use'), costUsd: 0.0123 });
    expect(t.state.steps[0]?.costUsd).toBe(0.0123);
    expect(t.events.find((e) => e.type === 'step_finished')).toMatchObject({ costUsd: 0.0123 });
  });

  it('asks to run tool calls, in batches, announcing each call', () => {
    const spec = agentSpec();
    const out = modelStep([
      { type: 'text', text: 'Let me look.' },
      use('c1', 'read', { path: 'a' }),
      use('c2', 'read', { path: 'b' }),
      use('c3', 'write', { path: 'a', text: 'x' }),
    ]);
    const t = applyModelStep(startLoop(spec, 'p'), spec, out);
    const plan = planOf(t);
    expect(plan.step).toBe(1);
    expect(plan.calls).toEqual([
      use('c1', 'read', { path: 'a' }),
      use('c2', 'read', { path: 'b' }),
      use('c3', 'write', { path: 'a', text: 'x' }),
    ]);
    expect(plan.batches).toEqual([
      [
        { step: 1, callId: 'c1', tool: READ, args: { path: 'a' } },
        { step: 1, callId: 'c2', tool: READ, args: { path: 'b' } },
      ],
      [{ step: 1, callId: 'c3', tool: WRITE, args: { path: 'a', text: 'x' } }],
    ]);
    expect(plan.immediate).toEqual([]);
    expect(t.events).toEqual([
      { type: 'text', step: 1, text: 'Let me look.' },
      { type: 'step_finished', step: 1, stopReason: 'tool_use', usage: usage(10, 5), latencyMs: 42 },
      { type: 'tool_call', step: 1, callId: 'c1', tool: 'read', args: { path: 'a' } },
      { type: 'tool_call', step: 1, callId: 'c2', tool: 'read', args: { path: 'b' } },
      { type: 'tool_call', step: 1, callId: 'c3', tool: 'write', args: { path: 'a', text: 'x' } },
    ]);
    // No results yet: the calls are open until the outcomes are applied.
    expect(t.state.messages.at(-1)?.role).toBe('assistant');
  });

  it('answers a call to an unknown tool at once, listing the tools the agent has', () => {
    const spec = agentSpec();
    const plan = planOf(applyModelStep(startLoop(spec, 'p'), spec, modelStep([use('c1', 'read'), use('c2', 'delete_everything')])));
    expect(plan.calls.map((c) => c.id)).toEqual(['c1', 'c2']);
    expect(plan.batches.flat().map((c) => c.callId)).toEqual(['c1']);
    expect(plan.immediate).toHaveLength(1);
    const [unknown] = plan.immediate;
    expect(unknown).toMatchObject({ callId: 'c2', tool: 'delete_everything', isError: true, attempts: 0 });
    expect(unknown).not.toHaveProperty('endsRun');
    expect(unknown?.output).toEqual({ type: 'text', text: 'Unknown tool "delete_everything". Available tools: read, write.' });
    expect(unknown?.error).toBe('Unknown tool "delete_everything". Available tools: read, write.');
  });

  it('announces a call with unparseable arguments as sent, with its parse error, and answers it at once', () => {
    const spec = agentSpec();
    const bad: ToolUseBlock = { ...use('c1', 'write', '{"path": "a",'), inputError: 'Unexpected end of JSON input' };
    const t = applyModelStep(startLoop(spec, 'p'), spec, modelStep([bad]));
    expect(t.events).toContainEqual({
      type: 'tool_call',
      step: 1,
      callId: 'c1',
      tool: 'write',
      args: '{"path": "a",',
      inputError: 'Unexpected end of JSON input',
    });
    const plan = planOf(t);
    expect(plan.batches).toEqual([]);
    expect(plan.immediate.map((o) => o.callId)).toEqual(['c1']);
    // Closing the step puts the error in the transcript and the report keeps what was sent.
    const after = applyToolOutcomes(t.state, plan, plan.immediate);
    expect(after.next).toEqual({ type: 'call_model' });
    expect(after.state.toolCalls).toEqual([expect.objectContaining({ callId: 'c1', tool: 'write', args: '{"path": "a",', isError: true })]);
    expectEveryCallAnswered(after.state.messages);
  });

  it('says so when the agent has no tools at all', () => {
    const spec = agentSpec([]);
    const plan = planOf(applyModelStep(startLoop(spec, 'p'), spec, modelStep([use('c1', 'read')])));
    expect(plan.batches).toEqual([]);
    expect(plan.immediate.map((o) => o.output)).toEqual([{ type: 'text', text: 'Unknown tool "read". This agent has no tools.' }]);
  });

  describe('when the response was cut off (max_tokens)', () => {
    /** The step as the model activity delivers it: without the calls whose arguments were cut off. */
    const delivered = (out: ModelStep): ModelStep => ({ ...out, message: dropIncompleteCalls(out.message) });

    it('answers the complete calls as not executed, and finishes (the cut-off one dropped by the model activity)', () => {
      const spec = agentSpec();
      const out = delivered(
        modelStep(
          [
            { type: 'text', text: 'Writing two files.' },
            use('c1', 'write', { path: 'a' }),
            use('c2', 'write', { path: 'b', te: '' }, true),
          ],
          'max_tokens',
          usage(50, 8192),
        ),
      );
      const t = applyModelStep(startLoop(spec, 'p'), spec, out);

      expect(t.next).toEqual({
        type: 'finish',
        status: 'max_tokens',
        error: { message: 'The model hit its output token limit.', type: 'MaxTokens' },
      });
      const [, assistant, results] = t.state.messages;
      expect(assistant).toEqual({
        role: 'assistant',
        content: [{ type: 'text', text: 'Writing two files.' }, use('c1', 'write', { path: 'a' })],
      });
      expect(results?.role).toBe('user');
      expect(results?.content).toHaveLength(1);
      const r = results?.content[0] as ToolResultBlock;
      expect(r).toMatchObject({ type: 'tool_result', toolUseId: 'c1', isError: true });
      expect(r.output.type === 'text' && r.output.text).toMatch(/^Not executed/);
      expect(t.state.messages).toHaveLength(3);
      expectEveryCallAnswered(t.state.messages);

      // Nothing mentions the dropped call; the kept one is announced and closed.
      expect(JSON.stringify(t.events)).not.toContain('c2');
      expect(JSON.stringify(t.state)).not.toContain('"c2"');
      expect(types(t.events)).toEqual(['text', 'step_finished', 'tool_call', 'tool_result']);
      expect(t.events[3]).toMatchObject({
        type: 'tool_result',
        step: 1,
        callId: 'c1',
        tool: 'write',
        isError: true,
        stored: false,
        attempts: 0,
        latencyMs: 0,
      });
      expect(t.state.toolCalls).toEqual([
        expect.objectContaining({
          step: 1,
          callId: 'c1',
          tool: 'write',
          args: { path: 'a' },
          isError: true,
          attempts: 0,
          latencyMs: 0,
          stored: false,
        }),
      ]);
      expect(t.state.usage).toEqual(usage(50, 8192));
      expect(t.state.steps[0]?.stopReason).toBe('max_tokens');
    });

    it('never executes even complete calls of known read-only tools', () => {
      const spec = agentSpec();
      const t = applyModelStep(startLoop(spec, 'p'), spec, modelStep([use('c1', 'read'), use('c2', 'read')], 'max_tokens'));
      expect(t.next.type).toBe('finish');
      const results = t.state.messages[2]?.content as ToolResultBlock[];
      expect(results.map((r) => [r.toolUseId, r.isError])).toEqual([
        ['c1', true],
        ['c2', true],
      ]);
      expectEveryCallAnswered(t.state.messages);
    });

    it('leaves no open call when the only call was incomplete', () => {
      const spec = agentSpec();
      const t = applyModelStep(
        startLoop(spec, 'p'),
        spec,
        delivered(modelStep([{ type: 'text', text: 'Let me' }, use('c1', 'write', {}, true)], 'max_tokens')),
      );
      expect(t.next).toMatchObject({ type: 'finish', status: 'max_tokens' });
      expect(t.state.messages).toHaveLength(2);
      expect(t.state.messages[1]).toEqual({ role: 'assistant', content: [{ type: 'text', text: 'Let me' }] });
      expect(types(t.events)).toEqual(['text', 'step_finished']);
      expect(t.state.toolCalls).toEqual([]);
      expectEveryCallAnswered(t.state.messages);
    });

    it('finishes max_tokens on a cut-off plain answer too', () => {
      const spec = agentSpec();
      const t = applyModelStep(startLoop(spec, 'p'), spec, modelStep([{ type: 'text', text: 'Once upon a' }], 'max_tokens'));
      expect(t.next).toMatchObject({ type: 'finish', status: 'max_tokens' });
      expect(t.state.messages).toHaveLength(2);
    });
  });
});

describe('applyToolOutcomes', () => {
  const spec = agentSpec([READ, WRITE, toolSpec('deploy', false, 'fail')]);

  function afterCalls(blocks: ToolUseBlock[], maxSteps?: number): { state: LoopState; plan: StepPlan } {
    const t = applyModelStep(startLoop(spec, 'p', maxSteps), spec, modelStep([{ type: 'text', text: 'Working.' }, ...blocks]));
    return { state: t.state, plan: planOf(t) };
  }

  it('appends results in call order whatever order the outcomes came in', () => {
    const { state, plan } = afterCalls([use('c1', 'read'), use('c2', 'ghost'), use('c3', 'write'), use('c4', 'read')]);
    const [ghost] = plan.immediate;
    const outcomes = [ok('c4', 'read', 'four'), ok('c3', 'write', 'three'), ok('c1', 'read', 'one'), ghost!];
    const t = applyToolOutcomes(state, plan, outcomes);

    expect(t.next).toEqual({ type: 'call_model' });
    expect(t.events).toEqual([]);
    const last = t.state.messages.at(-1);
    expect(last?.role).toBe('user');
    expect(last?.content.map((b) => (b as ToolResultBlock).toolUseId)).toEqual(['c1', 'c2', 'c3', 'c4']);
    expect((last?.content[0] as ToolResultBlock).output).toEqual({ type: 'text', text: 'one' });
    expect((last?.content[1] as ToolResultBlock).isError).toBe(true);
    expect(t.state.toolCalls.map((c) => c.callId)).toEqual(['c1', 'c2', 'c3', 'c4']);
    expect(t.state.stored).toBe(state.stored);
    expect(t.state.step).toBe(1);
    expectEveryCallAnswered(t.state.messages);
  });

  it('records a report entry per call, with sizes and storage', () => {
    const { state, plan } = afterCalls([use('c1', 'read', { q: 'x' }), use('c2', 'read'), use('c3', 'write')]);
    const stored: ToolOutput = { type: 'stored', ref: 'sha256-abc', bytes: 123_456, preview: 'lots…' };
    const t = applyToolOutcomes(state, plan, [
      ok('c1', 'read', 'héllo 日本', { latencyMs: 12, attempts: 2 }),
      ok('c2', 'read', '', { output: stored }),
      {
        callId: 'c3',
        tool: 'write',
        output: { type: 'text', text: 'disk full' },
        isError: true,
        error: 'disk full',
        latencyMs: 3,
        attempts: 3,
      },
    ]);
    expect(t.state.toolCalls).toEqual([
      { step: 1, callId: 'c1', tool: 'read', args: { q: 'x' }, latencyMs: 12, resultBytes: 13, stored: false, isError: false, attempts: 2 },
      { step: 1, callId: 'c2', tool: 'read', args: {}, latencyMs: 7, resultBytes: 123_456, stored: true, isError: false, attempts: 1 },
      {
        step: 1,
        callId: 'c3',
        tool: 'write',
        args: {},
        latencyMs: 3,
        resultBytes: 9,
        stored: false,
        isError: true,
        error: 'disk full',
        attempts: 3,
      },
    ]);
    expect(t.state.toolCalls[0]).not.toHaveProperty('error');
  });

  it('ends the run tool_error when a fail-policy tool failed, still closing every call', () => {
    const { state, plan } = afterCalls([use('c1', 'read'), use('c2', 'deploy')]);
    const t = applyToolOutcomes(state, plan, [
      ok('c1', 'read', 'fine'),
      ok('c2', 'deploy', 'Tool "deploy" failed: boom', { isError: true, error: 'Tool "deploy" failed: boom', endsRun: 'tool_error' }),
    ]);
    expect(t.next).toEqual({ type: 'finish', status: 'tool_error', error: { message: 'Tool "deploy" failed: boom', type: 'ToolError' } });
    expectEveryCallAnswered(t.state.messages);
  });

  it('ends the run approval_expired when an expiry fails the run, naming the tool and the call', () => {
    const { state, plan } = afterCalls([use('c1', 'read'), use('c2', 'deploy')]);
    const t = applyToolOutcomes(state, plan, [ok('c1', 'read', 'fine'), expiredOutcome('c2', 'deploy', true)]);
    expect(t.next).toEqual({
      type: 'finish',
      status: 'approval_expired',
      error: { message: 'Nobody decided on the call to "deploy" (c2) before its approval expired.', type: 'ApprovalExpired' },
    });
    expectEveryCallAnswered(t.state.messages);
  });

  it('does not end the run on an expiry that only denies the call', () => {
    const { state, plan } = afterCalls([use('c1', 'deploy')]);
    expect(applyToolOutcomes(state, plan, [expiredOutcome('c1', 'deploy')]).next).toEqual({ type: 'call_model' });
  });

  it('ends the run storage_error when a tool output could not be stored', () => {
    const { state, plan } = afterCalls([use('c1', 'read'), use('c2', 'read')]);
    const message = 'Could not store the output of "read": blob store unreachable.';
    const t = applyToolOutcomes(state, plan, [ok('c1', 'read', 'fine'), errorOutcome('c2', 'read', message, { endsRun: 'storage_error' })]);
    expect(t.next).toEqual({ type: 'finish', status: 'storage_error', error: { message, type: 'StorageError' } });
    expectEveryCallAnswered(t.state.messages);
  });

  it.each([
    ['tool_error', 'ToolError', 'Tool "deploy" failed.'],
    ['storage_error', 'StorageError', 'The call to "deploy" failed.'],
    ['internal_error', 'InternalError', 'The call to "deploy" failed.'],
  ] as const)('gives %s a %s error with a default message when the outcome has none', (status: FailureStatus, type, message) => {
    const { state, plan } = afterCalls([use('c1', 'deploy')]);
    const o: ToolOutcome = {
      callId: 'c1',
      tool: 'deploy',
      output: { type: 'text', text: 'x' },
      isError: true,
      latencyMs: 1,
      attempts: 1,
      endsRun: status,
    };
    expect(applyToolOutcomes(state, plan, [o]).next).toEqual({ type: 'finish', status, error: { message, type } });
  });

  it('ends the run max_steps once the step cap is reached', () => {
    const { state, plan } = afterCalls([use('c1', 'read')], 1);
    const t = applyToolOutcomes(state, plan, [ok('c1', 'read', 'r')]);
    expect(t.next).toEqual({ type: 'finish', status: 'max_steps', error: { message: 'Reached the step limit (1).', type: 'MaxSteps' } });
    expectEveryCallAnswered(t.state.messages);

    const roomy = afterCalls([use('c1', 'read')], 2);
    expect(applyToolOutcomes(roomy.state, roomy.plan, [ok('c1', 'read', 'r')]).next).toEqual({ type: 'call_model' });
  });

  it('reports a run-ending tool failure even on the last step', () => {
    const { state, plan } = afterCalls([use('c1', 'deploy')], 1);
    const t = applyToolOutcomes(state, plan, [ok('c1', 'deploy', 'x', { isError: true, error: 'no', endsRun: 'tool_error' })]);
    expect(t.next).toMatchObject({ type: 'finish', status: 'tool_error' });
  });

  it('refuses to leave a call without a result', () => {
    const { state, plan } = afterCalls([use('c1', 'read'), use('c2', 'read')]);
    expect(() => applyToolOutcomes(state, plan, [ok('c1', 'read', 'r')])).toThrow(/no outcome for tool call c2/);
  });
});

describe('closeOpenCalls', () => {
  const spec = agentSpec();
  const REASON = 'Cancelled: the run was cancelled before this call finished.';

  function open(): LoopState {
    return applyModelStep(startLoop(spec, 'p'), spec, modelStep([use('c1', 'write'), use('c2', 'read'), use('c3', 'read')])).state;
  }

  it('keeps the completed outcomes and closes the rest, with events only for the closed', () => {
    const state = open();
    const { state: closed, events } = closeOpenCalls(state, [ok('c2', 'read', 'done early')], REASON);
    const results = closed.messages.at(-1)?.content as ToolResultBlock[];
    expect(results.map((r) => [r.toolUseId, r.isError, r.output])).toEqual([
      ['c1', true, { type: 'text', text: REASON }],
      ['c2', false, { type: 'text', text: 'done early' }],
      ['c3', true, { type: 'text', text: REASON }],
    ]);
    expect(events.map((e) => e.type === 'tool_result' && [e.callId, e.tool, e.isError, e.preview])).toEqual([
      ['c1', 'write', true, REASON],
      ['c3', 'read', true, REASON],
    ]);
    expect(closed.toolCalls.map((c) => [c.callId, c.isError])).toEqual([
      ['c1', true],
      ['c2', false],
      ['c3', true],
    ]);
    expectEveryCallAnswered(closed.messages);
  });

  it('emits nothing when every call had completed', () => {
    const { state: closed, events } = closeOpenCalls(
      open(),
      [ok('c3', 'read', '3'), ok('c1', 'write', '1'), ok('c2', 'read', '2')],
      REASON,
    );
    expect(events).toEqual([]);
    expectEveryCallAnswered(closed.messages);
  });

  it('changes nothing when no call is open', () => {
    const waitingForModel = startLoop(spec, 'p');
    expect(closeOpenCalls(waitingForModel, [], REASON)).toEqual({ state: waitingForModel, events: [] });

    const answered = applyModelStep(startLoop(spec, 'p'), spec, modelStep([{ type: 'text', text: 'hi' }])).state;
    expect(closeOpenCalls(answered, [], REASON)).toEqual({ state: answered, events: [] });

    const s = open();
    const closedOnce = closeOpenCalls(s, [], REASON).state;
    expect(closeOpenCalls(closedOnce, [], REASON)).toEqual({ state: closedOnce, events: [] });
  });
});

describe('recovering from the output token limit', () => {
  const recovering = { ...agentSpec(), limits: { ...agentSpec().limits, maxTokensRecoveries: 1 } };

  it('asks the model to continue, closing complete calls unrun, up to the agent limit', () => {
    const first = applyModelStep(
      startLoop(recovering, 'go'),
      recovering,
      modelStep([{ type: 'text', text: 'part' }, use('c1', 'read')], 'max_tokens'),
    );
    expect(first.next).toEqual({ type: 'call_model' });
    expect(first.state.recoveries).toBe(1);
    expect(first.state.messages.at(-1)).toMatchObject({
      role: 'user',
      content: [
        { type: 'tool_result', toolUseId: 'c1', isError: true },
        { type: 'text', text: MAX_TOKENS_CONTINUE },
      ],
    });
    expectEveryCallAnswered(first.state.messages);
    const second = applyModelStep(first.state, recovering, modelStep([{ type: 'text', text: 'more' }], 'max_tokens'));
    expect(second.next).toMatchObject({ type: 'finish', status: 'max_tokens' });
  });

  it('without the option, a cut-off answer ends the run max_tokens as before', () => {
    const t = applyModelStep(startLoop(agentSpec(), 'go'), agentSpec(), modelStep([{ type: 'text', text: 'part' }], 'max_tokens'));
    expect(t.next).toMatchObject({ type: 'finish', status: 'max_tokens' });
  });
});
