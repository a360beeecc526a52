/** The loop's state (core/state.ts): the first state of a run, what the model activity gets, cut-off calls. */
import { describe, expect, it } from 'vitest';
import type { AssistantMessage } from '../../src/core/messages/messages';
import { dropIncompleteCalls, modelInput, startLoop } from '../../src/core/loop/state';
import { agentSpec, usage, use } from './core-fixtures';

describe('startLoop', () => {
  const spec = agentSpec([], 10);

  it('starts from the prompt with nothing stored', () => {
    const s = startLoop(spec, 'hello');
    expect(s).toMatchObject({ agent: 'tester', maxSteps: 10, stored: 0, head: null, step: 0, steps: [], toolCalls: [] });
    expect(s.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'hello' }] }]);
    expect(s.usage).toEqual(usage(0, 0));
  });

  it('starts with no message at all from an empty prompt', () => {
    expect(startLoop(spec, '').messages).toEqual([]);
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
  it('sends the prompt first, with no head', () => {
    const s0 = startLoop(agentSpec(), 'go');
    expect(modelInput(s0)).toEqual({ head: null, append: s0.messages });
  });

  it('sends only the messages past `stored`', () => {
    const s0 = startLoop(agentSpec(), 'go');
    const extra = { role: 'user' as const, content: [{ type: 'text' as const, text: 'more' }] };
    const s = { ...s0, head: 'sha256-h', stored: 1, messages: [...s0.messages, extra] };
    expect(modelInput(s)).toEqual({ head: 'sha256-h', append: [extra] });
  });
});

describe('dropIncompleteCalls', () => {
  it('removes only the calls whose arguments were cut off', () => {
    const message: AssistantMessage = {
      role: 'assistant',
      content: [{ type: 'text', text: 'a' }, use('c1', 'write', { p: 1 }), use('c2', 'write', {}, true)],
    };
    expect(dropIncompleteCalls(message)).toEqual({
      role: 'assistant',
      content: [{ type: 'text', text: 'a' }, use('c1', 'write', { p: 1 })],
    });
    // The input is not mutated.
    expect(message.content).toHaveLength(3);
  });

  it('returns the very same message when nothing was cut off', () => {
    const message: AssistantMessage = { role: 'assistant', content: [use('c1', 'read')] };
    expect(dropIncompleteCalls(message)).toBe(message);
  });
});
