/** The agent loop's transitions (core/loop.ts): every rule of the loop, without a server. */
import { describe, expect, it } from 'vitest';
import type { AgentEventBody } from '../../core/events';
import type { JsonObject } from '../../core/json';
import type { LoopState, ModelStep, PlannedCall, ToolOutcome } from '../../core/loop';
import {
  applyModelStep,
  applyToolOutcomes,
  batchCalls,
  closeOpenCalls,
  doneEvent,
  finishRun,
  recentMessages,
  runCost,
  modelInput,
  startLoop,
  toolResultEvent,
} from '../../core/loop';
import type { AssistantContent, Message, ToolOutput, ToolResultBlock, ToolUseBlock } from '../../core/messages';
import type { StopReason } from '../../core/model';
import type { AgentSpec, ToolErrorPolicy, ToolSpec } from '../../core/spec';
import type { Usage } from '../../core/usage';

const RETRY = { maximumAttempts: 3, initialIntervalMs: 1000, backoffCoefficient: 2, maximumIntervalMs: 30_000 };

function toolSpec(name: string, readOnly: boolean, onError: ToolErrorPolicy = 'report'): ToolSpec {
  return {
    name,
    description: `the ${name} tool`,
    inputSchema: { type: 'object', properties: {} },
    readOnly,
    timeoutMs: 60_000,
    heartbeatTimeoutMs: 10_000,
    retry: RETRY,
    onError,
  };
}

const READ = toolSpec('read', true);
const WRITE = toolSpec('write', false);

function agentSpec(tools: ToolSpec[] = [READ, WRITE], maxSteps = 5): AgentSpec {
  return {
    name: 'tester',
    models: [{ provider: 'scripted', model: 'm' }],
    tools,
    limits: { maxSteps, toolResultInlineBytes: 1024 },
    modelRetry: RETRY,
    modelTimeoutMs: 60_000,
    modelHeartbeatTimeoutMs: 10_000,
    promptRef: 'sha256-prompt',
  };
}

function usage(inputTokens: number, outputTokens: number, cacheReadTokens = 0, cacheWriteTokens = 0): Usage {
  return { inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens };
}

function use(id: string, name: string, input: JsonObject = {}, incomplete = false): ToolUseBlock {
  return { type: 'tool_use', id, name, input, ...(incomplete ? { incomplete: true as const } : {}) };
}

let heads = 0;
function modelStep(content: AssistantContent[], stopReason?: StopReason, u: Usage = usage(10, 5)): ModelStep {
  return {
    head: `sha256-head${++heads}`,
    message: { role: 'assistant', content },
    stopReason: stopReason ?? (content.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn'),
    usage: u,
    provider: 'scripted',
    model: 'm',
    latencyMs: 42,
    attempts: 1,
  };
}

function ok(callId: string, name: string, text: string, extra: Partial<ToolOutcome> = {}): ToolOutcome {
  return { callId, name, output: { type: 'text', text }, isError: false, latencyMs: 7, attempts: 1, fatal: false, ...extra };
}

function planned(callId: string, tool: ToolSpec | undefined, name = tool?.name ?? 'nope'): PlannedCall {
  return { step: 1, callId, name, args: {}, tool };
}

/** The transcript rule: every tool_use is answered, in the next (user) message, in call order, exactly once. */
function expectEveryCallAnswered(messages: readonly Message[]): void {
  messages.forEach((m, i) => {
    if (m.role !== 'assistant') return;
    const ids = m.content.filter((b): b is ToolUseBlock => b.type === 'tool_use').map((b) => b.id);
    if (ids.length === 0) return;
    const reply = messages[i + 1];
    expect(reply?.role, `message ${i} has tool calls but no reply`).toBe('user');
    const results = (reply?.content ?? []).filter((b): b is ToolResultBlock => b.type === 'tool_result').map((b) => b.toolUseId);
    expect(results).toEqual(ids);
  });
}

function types(events: readonly AgentEventBody[]): string[] {
  return events.map((e) => e.type);
}

describe('startLoop', () => {
  const spec = agentSpec([], 10);

  it('starts from the prompt with nothing stored', () => {
    const s = startLoop(spec, 'hello');
    expect(s).toMatchObject({ agent: 'tester', maxSteps: 10, stored: 0, head: null, step: 0, steps: [], toolCalls: [] });
    expect(s.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'hello' }] }]);
    expect(s.usage).toEqual(usage(0, 0));
  });

  it('lets a run lower the step cap but never raise it, and never below 1', () => {
    expect(startLoop(spec, 'p', 3).maxSteps).toBe(3);
    expect(startLoop(spec, 'p', 10).maxSteps).toBe(10);
    expect(startLoop(spec, 'p', 11).maxSteps).toBe(10);
    expect(startLoop(spec, 'p', 1000).maxSteps).toBe(10);
    expect(startLoop(spec, 'p', 0).maxSteps).toBe(1);
    expect(startLoop(spec, 'p', -4).maxSteps).toBe(1);
  });
});

describe('modelInput', () => {
  it('sends the prompt first, then only what the store has not seen', () => {
    const spec = agentSpec();
    const s0 = startLoop(spec, 'go');
    expect(modelInput(s0)).toEqual({ head: null, append: s0.messages });

    const out = modelStep([use('c1', 'read')]);
    const t1 = applyModelStep(s0, spec, out);
    // The model activity stored the prompt and the answer under out.head.
    expect(modelInput(t1.state)).toEqual({ head: out.head, append: [] });

    const t2 = applyToolOutcomes(t1.state, [planned('c1', READ)], [ok('c1', 'read', 'r')]);
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
      const outcomes = t.next.calls.map((c) => ok(c.callId, c.name, `result of ${c.callId}`));
      const t2 = applyToolOutcomes(state, t.next.calls, outcomes);
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
    const out = modelStep([{ type: 'text', text: 'Hello ' }, { type: 'text', text: 'there' }], 'end_turn', usage(100, 20, 3, 4));
    const t = applyModelStep(s0, spec, out);

    expect(t.next).toEqual({ type: 'finish', status: 'success' });
    expect(t.state.step).toBe(1);
    expect(t.state.messages).toEqual([...s0.messages, out.message]);
    expect(t.state.stored).toBe(2);
    expect(t.state.head).toBe(out.head);
    expect(t.state.usage).toEqual(usage(100, 20, 3, 4));
    expect(t.state.steps).toEqual([
      { step: 1, provider: 'scripted', model: 'm', latencyMs: 42, stopReason: 'end_turn', usage: usage(100, 20, 3, 4), attempts: 1 },
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
    const t1 = applyModelStep(startLoop(spec, 'p'), spec, { ...modelStep([use('c1', 'read')], 'tool_use', usage(10, 2, 1, 0)), attempts: 3 });
    const s1 = applyToolOutcomes(t1.state, [planned('c1', READ)], [ok('c1', 'read', 'x')]).state;
    const t2 = applyModelStep(s1, spec, modelStep([{ type: 'text', text: 'ok' }], 'end_turn', usage(30, 4, 0, 5)));
    expect(t2.state.usage).toEqual(usage(40, 6, 1, 5));
    expect(t2.state.steps.map((s) => [s.step, s.attempts, s.stopReason])).toEqual([
      [1, 3, 'tool_use'],
      [2, 1, 'end_turn'],
    ]);
    expect(t2.events).toContainEqual({ type: 'step_finished', step: 2, stopReason: 'end_turn', usage: usage(30, 4, 0, 5), latencyMs: 42 });
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
    expect(t.next.type).toBe('run_tools');
    if (t.next.type !== 'run_tools') return;
    expect(t.next.calls).toEqual([
      { step: 1, callId: 'c1', name: 'read', args: { path: 'a' }, tool: READ },
      { step: 1, callId: 'c2', name: 'read', args: { path: 'b' }, tool: READ },
      { step: 1, callId: 'c3', name: 'write', args: { path: 'a', text: 'x' }, tool: WRITE },
    ]);
    expect(t.next.batches.map((b) => b.map((c) => c.callId))).toEqual([['c1', 'c2'], ['c3']]);
    expect(t.next.immediate).toEqual([]);
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
    const t = applyModelStep(startLoop(spec, 'p'), spec, modelStep([use('c1', 'read'), use('c2', 'delete_everything')]));
    if (t.next.type !== 'run_tools') throw new Error(`expected run_tools, got ${t.next.type}`);
    expect(t.next.calls.map((c) => [c.callId, c.tool?.name])).toEqual([
      ['c1', 'read'],
      ['c2', undefined],
    ]);
    expect(t.next.batches.flat().map((c) => c.callId)).toEqual(['c1']);
    expect(t.next.immediate).toHaveLength(1);
    const [unknown] = t.next.immediate;
    expect(unknown).toMatchObject({ callId: 'c2', name: 'delete_everything', isError: true, fatal: false, attempts: 0 });
    expect(unknown?.output).toEqual({ type: 'text', text: 'Unknown tool "delete_everything". Available tools: read, write.' });
    expect(unknown?.error).toBe('Unknown tool "delete_everything". Available tools: read, write.');
  });

  it('says so when the agent has no tools at all', () => {
    const spec = agentSpec([]);
    const t = applyModelStep(startLoop(spec, 'p'), spec, modelStep([use('c1', 'read')]));
    if (t.next.type !== 'run_tools') throw new Error(`expected run_tools, got ${t.next.type}`);
    expect(t.next.batches).toEqual([]);
    expect(t.next.immediate.map((o) => o.output)).toEqual([{ type: 'text', text: 'Unknown tool "read". This agent has no tools.' }]);
  });

  describe('when the response was cut off (max_tokens)', () => {
    it('drops the incomplete call, answers the complete ones as not executed, and finishes', () => {
      const spec = agentSpec();
      const out = modelStep(
        [{ type: 'text', text: 'Writing two files.' }, use('c1', 'write', { path: 'a' }), use('c2', 'write', { path: 'b', te: '' }, true)],
        'max_tokens',
        usage(50, 8192),
      );
      const t = applyModelStep(startLoop(spec, 'p'), spec, out);

      expect(t.next).toEqual({ type: 'finish', status: 'max_tokens', error: { message: 'The model hit its output token limit.' } });
      const [, assistant, results] = t.state.messages;
      expect(assistant).toEqual({ role: 'assistant', content: [{ type: 'text', text: 'Writing two files.' }, use('c1', 'write', { path: 'a' })] });
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
      expect(t.events[3]).toMatchObject({ type: 'tool_result', step: 1, callId: 'c1', isError: true, stored: false, attempts: 0, latencyMs: 0 });
      expect(t.state.toolCalls).toEqual([
        expect.objectContaining({ step: 1, callId: 'c1', name: 'write', args: { path: 'a' }, isError: true, attempts: 0, latencyMs: 0, stored: false }),
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
      const t = applyModelStep(startLoop(spec, 'p'), spec, modelStep([{ type: 'text', text: 'Let me' }, use('c1', 'write', {}, true)], 'max_tokens'));
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

describe('batchCalls', () => {
  const r = (id: string) => planned(id, READ);
  const w = (id: string) => planned(id, WRITE);
  const ids = (batches: PlannedCall[][]) => batches.map((b) => b.map((c) => c.callId));

  it('groups consecutive read-only calls and isolates every other call, in order', () => {
    const calls = [r('r1'), r('r2'), w('w1'), r('r3'), w('w2'), w('w3'), r('r4'), r('r5')];
    expect(ids(batchCalls(calls))).toEqual([['r1', 'r2'], ['w1'], ['r3'], ['w2'], ['w3'], ['r4', 'r5']]);
  });

  it('puts all-read calls in one batch and all-write calls in one batch each', () => {
    expect(ids(batchCalls([r('a'), r('b'), r('c')]))).toEqual([['a', 'b', 'c']]);
    expect(ids(batchCalls([w('a'), w('b'), w('c')]))).toEqual([['a'], ['b'], ['c']]);
    expect(batchCalls([])).toEqual([]);
  });

  it('never schedules calls to unknown tools', () => {
    const unknown = planned('u', undefined, 'ghost');
    expect(ids(batchCalls([unknown]))).toEqual([]);
    expect(ids(batchCalls([w('w1'), unknown, w('w2')]))).toEqual([['w1'], ['w2']]);
    expect(ids(batchCalls([r('r1'), unknown, r('r2'), w('w1')]))).toEqual([['r1', 'r2'], ['w1']]);
  });
});

describe('applyToolOutcomes', () => {
  const spec = agentSpec([READ, WRITE, toolSpec('deploy', false, 'fail')]);

  function afterCalls(blocks: ToolUseBlock[], maxSteps?: number): { state: LoopState; calls: PlannedCall[] } {
    const t = applyModelStep(startLoop(spec, 'p', maxSteps), spec, modelStep([{ type: 'text', text: 'Working.' }, ...blocks]));
    if (t.next.type !== 'run_tools') throw new Error(`expected run_tools, got ${t.next.type}`);
    return { state: t.state, calls: t.next.calls };
  }

  it('appends results in call order whatever order the outcomes came in', () => {
    const { state, calls } = afterCalls([use('c1', 'read'), use('c2', 'ghost'), use('c3', 'write'), use('c4', 'read')]);
    const outcomes = [ok('c4', 'read', 'four'), ok('c3', 'write', 'three'), ok('c1', 'read', 'one'), ok('c2', 'ghost', 'two', { isError: true })];
    const t = applyToolOutcomes(state, calls, outcomes);

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
    const { state, calls } = afterCalls([use('c1', 'read', { q: 'x' }), use('c2', 'read'), use('c3', 'write')]);
    const stored: ToolOutput = { type: 'stored', ref: 'sha256-abc', bytes: 123_456, preview: 'lots…' };
    const t = applyToolOutcomes(state, calls, [
      ok('c1', 'read', 'héllo 日本', { latencyMs: 12, attempts: 2 }),
      ok('c2', 'read', '', { output: stored }),
      { callId: 'c3', name: 'write', output: { type: 'text', text: 'disk full' }, isError: true, error: 'disk full', latencyMs: 3, attempts: 3, fatal: false },
    ]);
    expect(t.state.toolCalls).toEqual([
      { step: 1, callId: 'c1', name: 'read', args: { q: 'x' }, latencyMs: 12, resultBytes: 13, stored: false, isError: false, attempts: 2 },
      { step: 1, callId: 'c2', name: 'read', args: {}, latencyMs: 7, resultBytes: 123_456, stored: true, isError: false, attempts: 1 },
      { step: 1, callId: 'c3', name: 'write', args: {}, latencyMs: 3, resultBytes: 9, stored: false, isError: true, error: 'disk full', attempts: 3 },
    ]);
    expect(t.state.toolCalls[0]).not.toHaveProperty('error');
  });

  it('ends the run tool_error when a fail-policy tool failed, still closing every call', () => {
    const { state, calls } = afterCalls([use('c1', 'read'), use('c2', 'deploy')]);
    const t = applyToolOutcomes(state, calls, [
      ok('c1', 'read', 'fine'),
      ok('c2', 'deploy', 'Tool "deploy" failed: boom', { isError: true, error: 'Tool "deploy" failed: boom', fatal: true }),
    ]);
    expect(t.next).toEqual({ type: 'finish', status: 'tool_error', error: { message: 'Tool "deploy" failed: boom', type: 'ToolError' } });
    expectEveryCallAnswered(t.state.messages);
  });

  it('ends the run max_steps once the step cap is reached', () => {
    const { state, calls } = afterCalls([use('c1', 'read')], 1);
    const t = applyToolOutcomes(state, calls, [ok('c1', 'read', 'r')]);
    expect(t.next).toEqual({ type: 'finish', status: 'max_steps', error: { message: 'Reached the step limit (1).' } });
    expectEveryCallAnswered(t.state.messages);

    const roomy = afterCalls([use('c1', 'read')], 2);
    expect(applyToolOutcomes(roomy.state, roomy.calls, [ok('c1', 'read', 'r')]).next).toEqual({ type: 'call_model' });
  });

  it('reports a fatal tool failure even on the last step', () => {
    const { state, calls } = afterCalls([use('c1', 'deploy')], 1);
    const t = applyToolOutcomes(state, calls, [ok('c1', 'deploy', 'x', { isError: true, error: 'no', fatal: true })]);
    expect(t.next).toMatchObject({ type: 'finish', status: 'tool_error' });
  });

  it('refuses to leave a call without a result', () => {
    const { state, calls } = afterCalls([use('c1', 'read'), use('c2', 'read')]);
    expect(() => applyToolOutcomes(state, calls, [ok('c1', 'read', 'r')])).toThrow(/no outcome for tool call c2/);
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
    expect(events.map((e) => e.type === 'tool_result' && [e.callId, e.isError, e.preview])).toEqual([
      ['c1', true, REASON],
      ['c3', true, REASON],
    ]);
    expect(closed.toolCalls.map((c) => [c.callId, c.isError])).toEqual([
      ['c1', true],
      ['c2', false],
      ['c3', true],
    ]);
    expectEveryCallAnswered(closed.messages);
  });

  it('emits nothing when every call had completed', () => {
    const { state: closed, events } = closeOpenCalls(open(), [ok('c3', 'read', '3'), ok('c1', 'write', '1'), ok('c2', 'read', '2')], REASON);
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

describe('toolResultEvent', () => {
  it('previews long text and reports sizes and storage', () => {
    const long = 'é'.repeat(300);
    const e = toolResultEvent(4, ok('c1', 'read', long, { latencyMs: 9, attempts: 2 }));
    expect(e).toMatchObject({ type: 'tool_result', step: 4, callId: 'c1', tool: 'read', isError: false, bytes: 600, stored: false, latencyMs: 9, attempts: 2 });
    expect(e.type === 'tool_result' && e.preview).toBe(`${'é'.repeat(200)}… [100 more chars]`);

    const stored = toolResultEvent(1, ok('c2', 'read', '', { output: { type: 'stored', ref: 'sha256-x', bytes: 99_999, preview: 'start' } }));
    expect(stored).toMatchObject({ preview: 'start', bytes: 99_999, stored: true });
  });
});

describe('finishRun and doneEvent', () => {
  const spec = agentSpec([READ, toolSpec('deploy', false, 'fail')]);
  const meta = { workflowId: 'wf-1', runId: 'run-1', startedAt: '2025-01-01T00:00:00.000Z', endedAt: '2025-01-01T00:00:05.000Z' };

  it('builds the result and report of a successful run', () => {
    const t1 = applyModelStep(startLoop(spec, 'p'), spec, modelStep([{ type: 'text', text: 'Reading.' }, use('c1', 'read')], 'tool_use', usage(10, 1)));
    const s1 = applyToolOutcomes(t1.state, [planned('c1', READ)], [ok('c1', 'read', 'data')]).state;
    const out = modelStep([{ type: 'text', text: 'All ' }, { type: 'text', text: 'done.' }], 'end_turn', usage(20, 2));
    const s2 = applyModelStep(s1, spec, out).state;

    const result = finishRun(s2, 'success', meta);
    expect(result).toMatchObject({ status: 'success', finalText: 'All done.', steps: 2, usage: usage(30, 3), transcriptHead: out.head });
    expect(result).not.toHaveProperty('error');
    expect(result.messages).toEqual(s2.messages);
    // The test model has no price: cost 0, and the report says both steps were unpriced.
    expect(result.report).toEqual({ agent: 'tester', ...meta, steps: s2.steps, toolCalls: s2.toolCalls, usage: usage(30, 3), costUsd: 0, unpricedSteps: 2 });
    expect(result.report.steps).toHaveLength(2);
    expect(result.report.toolCalls).toHaveLength(1);

    expect(doneEvent(result)).toEqual({ type: 'done', status: 'success', steps: 2, usage: usage(30, 3), costUsd: 0, finalText: 'All done.' });
  });

  it('takes the final text from the last assistant message even after tool results', () => {
    const t1 = applyModelStep(startLoop(spec, 'p'), spec, modelStep([{ type: 'text', text: 'Deploying.' }, use('c1', 'deploy')]));
    if (t1.next.type !== 'run_tools') throw new Error('expected run_tools');
    const t2 = applyToolOutcomes(t1.state, t1.next.calls, [ok('c1', 'deploy', 'x', { isError: true, error: 'Tool "deploy" failed: boom', fatal: true })]);
    if (t2.next.type !== 'finish') throw new Error('expected finish');
    const result = finishRun(t2.state, t2.next.status, meta, t2.next.error);
    expect(result.finalText).toBe('Deploying.');
    expect(result.error).toEqual({ message: 'Tool "deploy" failed: boom', type: 'ToolError' });
    expect(doneEvent(result)).toEqual({
      type: 'done',
      status: 'tool_error',
      steps: 1,
      usage: t2.state.usage,
      costUsd: 0,
      finalText: 'Deploying.',
      error: { message: 'Tool "deploy" failed: boom', type: 'ToolError' },
    });
  });

  it('sums the cost of priced steps and counts the unpriced ones', () => {
    const t1 = applyModelStep(startLoop(spec, 'p'), spec, { ...modelStep([use('c1', 'read')], 'tool_use'), costUsd: 0.0123 });
    expect(t1.state.steps[0]!.costUsd).toBe(0.0123);
    expect(t1.events.find((e) => e.type === 'step_finished')).toMatchObject({ costUsd: 0.0123 });
    const s1 = applyToolOutcomes(t1.state, [planned('c1', READ)], [ok('c1', 'read', 'data')]).state;
    const s2 = applyModelStep(s1, spec, { ...modelStep([{ type: 'text', text: 'ok' }], 'end_turn'), costUsd: 0.0007 }).state;
    const s3 = applyModelStep(s2, spec, modelStep([{ type: 'text', text: 'again' }], 'end_turn')).state;
    const result = finishRun(s3, 'success', meta);
    expect(result.costUsd).toBeCloseTo(0.013, 10);
    expect(result.report).toMatchObject({ costUsd: result.costUsd, unpricedSteps: 1 });
    expect(runCost([])).toEqual({ costUsd: 0, unpricedSteps: 0 });
  });

  it('has empty final text and no head when the model never answered', () => {
    const result = finishRun(startLoop(spec, 'p'), 'cancelled', meta, { message: 'The run was cancelled.' });
    expect(result).toMatchObject({ status: 'cancelled', finalText: '', steps: 0, transcriptHead: null });
    expect(doneEvent(result)).toMatchObject({ status: 'cancelled', finalText: '', error: { message: 'The run was cancelled.' } });
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
