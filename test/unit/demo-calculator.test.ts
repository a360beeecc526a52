/** The demo's calculator parser, the offline demo model's reading of prompts and transcripts, and its model choice. */
import { describe, expect, it } from 'vitest';
import type { Message } from '../../src/core/messages/messages';
import { agentSpec, promptSpec } from '../../src/agents/registry';
import { demoWorkerConfig } from '../../apps/cli/demo';
import { CalculatorError, evaluate } from '../../apps/cli/demo/calculator';
import { composeAnswer, findExpressions, findNote, findTimeZone, OFFLINE_LABEL, planToolCalls } from '../../apps/cli/demo/offline-model';
import { clearNotes } from '../../apps/cli/demo/tools';

describe('calculator', () => {
  it.each([
    ['1+2', 3],
    ['12*(3+4)', 84],
    ['2+3*4', 14],
    ['(2+3)*4', 20],
    ['10-4-3', 3],
    ['48/4/2', 6],
    ['2^3^2', 512],
    ['-2^2', -4],
    ['(-2)^2', 4],
    ['2^-1', 0.5],
    ['--3', 3],
    ['-(4-10)', 6],
    ['+5', 5],
    ['3.5*2', 7],
    ['.5+.25', 0.75],
    ['1.', 1],
    ['0.1+0.2', 0.3],
    [' 7 *  ( 1 + 1 ) ', 14],
    ['2^10 - 24 / (1.5 + 0.5)', 1012],
    ['((((1))))', 1],
    ['1-1', 0],
    ['-0*5', 0],
  ])('%s = %d', (expression, expected) => {
    expect(evaluate(expression)).toBe(expected);
  });

  it.each([
    ['', /empty expression/],
    ['   ', /empty expression/],
    ['2+', /expected a number or "\(" but found end of expression/],
    ['(1+2', /missing "\)" for the "\(" at position 1/],
    ['1+2)', /unexpected "\)" at position 4/],
    ['2 3', /unexpected number 3 at position 3/],
    ['2(3)', /unexpected "\(" at position 2/],
    ['*3', /expected a number or "\(" but found "\*" at position 1/],
    ['2 % 3', /unexpected character "%" at position 3/],
    ['abc', /unexpected character "a" at position 1/],
    ['1..2', /unexpected number 0.2 at position 3/],
    ['1/0', /division by zero at position 2/],
    ['4/(2-2)', /division by zero/],
    ['10^400', /not a finite number/],
    ['(-8)^0.5', /not a finite number/],
  ])('rejects %j', (expression, message) => {
    expect(() => evaluate(expression)).toThrow(CalculatorError);
    expect(() => evaluate(expression)).toThrow(message);
  });
});

describe('offline demo model', () => {
  it('finds the arithmetic in a prompt', () => {
    expect(findExpressions('what is 12*(3+4)?')).toEqual(['12*(3+4)']);
    expect(findExpressions('What is 2+2? And (1.5 - 3) * 2, please.')).toEqual(['2+2', '(1.5 - 3) * 2']);
    expect(findExpressions('compute -3 * -2')).toEqual(['-3 * -2']);
    expect(findExpressions('I have 3 apples (and 4 pears)')).toEqual([]);
  });

  it('finds time zones and notes', () => {
    expect(findTimeZone('time in America/New_York?')).toBe('America/New_York');
    expect(findTimeZone('what time is it')).toBeUndefined();
    expect(findNote('remember that the demo works.')).toBe('the demo works');
    expect(findNote('Note: buy milk')).toBe('buy milk');
    expect(findNote('what is 2+2')).toBeUndefined();
  });

  it('plans calculator calls for each expression, then word_count, current_time and save_note', () => {
    expect(planToolCalls('what is 1+1 and 2*3 in UTC? save it').map((c) => [c.name, c.args])).toEqual([
      ['calculator', { expression: '1+1' }],
      ['calculator', { expression: '2*3' }],
      ['word_count', { text: 'what is 1+1 and 2*3 in UTC? save it' }],
      ['current_time', { timeZone: 'UTC' }],
      ['save_note', { text: 'it' }],
    ]);
  });

  it('answers from the tool results in the transcript, not by computing', () => {
    // The tool "said" 85: the answer must repeat what the transcript holds.
    const messages: Message[] = [
      { role: 'user', content: [{ type: 'text', text: 'what is 12*(3+4)?' }] },
      {
        role: 'assistant',
        content: [
          { type: 'tool_use', id: 'c1', name: 'calculator', input: { expression: '12*(3+4)' } },
          { type: 'tool_use', id: 'c2', name: 'current_time', input: { timeZone: 'Nowhere/Land' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', toolUseId: 'c1', isError: false, output: { type: 'text', text: '{"expression":"12*(3+4)","result":85}' } },
          { type: 'tool_result', toolUseId: 'c2', isError: true, output: { type: 'text', text: 'unknown time zone "Nowhere/Land"' } },
        ],
      },
    ];
    const answer = composeAnswer(messages).split('\n');
    expect(answer[0]).toBe(OFFLINE_LABEL);
    expect(answer).toContain('12*(3+4) = 85');
    expect(answer).toContain('current_time reported an error: unknown time zone "Nowhere/Land"');
  });
});

describe('demo worker config', () => {
  it('uses the offline scripted model without an API key', () => {
    const c = demoWorkerConfig({});
    expect(c.offline).toBe(true);
    expect(c.agents.map((a) => [a.name, a.model])).toEqual([['assistant', { provider: 'scripted', model: 'offline-demo' }]]);
    expect(Object.keys(c.providers)).toEqual(['scripted']);
    expect(c.agents[0]!.tools.map((t) => [t.name, t.readOnly ?? false])).toEqual([
      ['calculator', true],
      ['word_count', true],
      ['current_time', true],
      ['save_note', false],
      ['clear_notes', false],
    ]);
  });

  it('uses Claude with a key, the model from DURABLE_AGENT_MODEL, and keeps the key out of the agent spec', () => {
    const key = 'test-anthropic-key-not-real';
    const c = demoWorkerConfig({ ANTHROPIC_API_KEY: key, DURABLE_AGENT_MODEL: 'claude-haiku-4-5' });
    expect(c.offline).toBe(false);
    expect(c.model).toMatchObject({ provider: 'anthropic', model: 'claude-haiku-4-5' });
    expect(Object.keys(c.providers).sort()).toEqual(['anthropic', 'scripted']);
    const agent = c.agents[0]!;
    expect(JSON.stringify([agentSpec(agent, 'sha256-x'), promptSpec(agent)])).not.toContain(key);
    expect(demoWorkerConfig({ ANTHROPIC_API_KEY: key }).model.model).toBe('claude-sonnet-5-5');
  });
});

describe('offline demo model and approvals', () => {
  it('asks to clear notes (a tool that needs approval) when the prompt says so, instead of saving one', () => {
    expect(planToolCalls('please clear my notes').map((c) => c.name)).toEqual(['word_count', 'current_time', 'clear_notes']);
    expect(planToolCalls('remember to buy milk').map((c) => c.name)).toEqual(['word_count', 'current_time', 'save_note']);
    expect(clearNotes.needsApproval).toBe(true);
  });
});
