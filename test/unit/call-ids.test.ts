/** Tool-call ids unique within a run (core/call-ids.ts). */
import { describe, expect, it } from 'vitest';
import { uniqueCallIds } from '../../src/core/tool-calls/call-ids';
import type { AssistantMessage, ToolUseBlock } from '../../src/core/messages/messages';
import { toolCalls } from '../../src/core/messages/messages';

const use = (id: string, n = 0): ToolUseBlock => ({ type: 'tool_use', id, name: 'charge', input: { n } });
const msg = (...calls: ToolUseBlock[]): AssistantMessage => ({
  role: 'assistant',
  content: [{ type: 'text', text: 'charging' }, ...calls],
});
const ids = (m: AssistantMessage) => toolCalls(m).map((c) => c.id);

describe('uniqueCallIds', () => {
  it("keeps the provider's ids when they are valid and unused, returning the message itself", () => {
    const m = msg(use('toolu_01A'), use('call-2'));
    expect(uniqueCallIds(m, new Set(['toolu_00Z']), 3)).toBe(m);
  });

  it('gives calls without an id fresh ids by step and position', () => {
    const m = uniqueCallIds(msg(use('', 1), use('', 2)), new Set(), 4);
    expect(ids(m)).toEqual(['da_4_0', 'da_4_1']);
    // Only the id changes; the text and the arguments are kept.
    expect(m.content[0]).toEqual({ type: 'text', text: 'charging' });
    expect(toolCalls(m).map((c) => c.input)).toEqual([{ n: 1 }, { n: 2 }]);
  });

  it('replaces an id used earlier in the run (a server reusing call_0 every step)', () => {
    expect(ids(uniqueCallIds(msg(use('call_0')), new Set(['call_0']), 2))).toEqual(['da_2_0']);
  });

  it('replaces the second use of an id within one response, keeping the first', () => {
    expect(ids(uniqueCallIds(msg(use('call_x', 1), use('call_x', 2), use('call_y')), new Set(), 1))).toEqual([
      'call_x',
      'da_1_1',
      'call_y',
    ]);
  });

  it('replaces ids the APIs would refuse (characters, length)', () => {
    expect(ids(uniqueCallIds(msg(use('call 1'), use('x'.repeat(65)), use('c/2')), new Set(), 1))).toEqual(['da_1_0', 'da_1_1', 'da_1_2']);
  });

  it('adds a suffix when the fresh id is taken too, and never gives two calls one id', () => {
    const m = uniqueCallIds(msg(use(''), use('da_5_0'), use('')), new Set(['da_5_0', 'da_5_0_2']), 5);
    expect(ids(m)).toEqual(['da_5_0_3', 'da_5_1', 'da_5_2']);
    const again = uniqueCallIds(msg(use('da_1_1'), use('')), new Set(), 1);
    expect(ids(again)).toEqual(['da_1_1', 'da_1_1_2']);
  });

  it('is deterministic: the same message, ids and step give the same ids', () => {
    const m = msg(use(''), use('call_0'), use(''));
    expect(uniqueCallIds(m, new Set(['call_0']), 7)).toEqual(uniqueCallIds(m, new Set(['call_0']), 7));
  });
});

describe('uniqueCallIds with a test instead of a set', () => {
  it('asks the test for ids of the transcript and still keeps ids unique within the message', () => {
    const asked: string[] = [];
    const used = (id: string) => {
      asked.push(id);
      return id === 'call_0' || id === 'da_5_0';
    };
    const m = uniqueCallIds(
      {
        role: 'assistant',
        content: [
          { type: 'tool_use', id: 'call_0', name: 't', input: {} },
          { type: 'tool_use', id: 'x1', name: 't', input: {} },
          { type: 'tool_use', id: 'x1', name: 't', input: {} },
        ],
      },
      used,
      5,
    );
    expect(m.content.map((b) => (b.type === 'tool_use' ? b.id : ''))).toEqual(['da_5_0_2', 'x1', 'da_5_2']);
    expect(asked).toContain('call_0');
  });
});
