/** Messages people send to a running agent (core/inbox.ts) and how they join the conversation (applyUserMessages). */
import { describe, expect, it } from 'vitest';
import { MAX_MESSAGE_CHARS, MAX_MESSAGE_ID_CHARS, parseUserMessage, withUserText } from '../../src/core/messages/user-messages';
import type { Message } from '../../src/core/messages/messages';
import type { LoopState } from '../../src/core/loop/state';
import { startLoop } from '../../src/core/loop/state';
import { applyUserMessages } from '../../src/core/loop/transitions';

const spec = { name: 'a', limits: { maxSteps: 10, toolResultInlineBytes: 1024 } };

describe('parseUserMessage', () => {
  it('takes a string or { text, by? }', () => {
    expect(parseUserMessage('hello')).toEqual({ ok: true, value: { text: 'hello' } });
    expect(parseUserMessage({ text: 'hi', by: ' user:1 ' })).toEqual({ ok: true, value: { text: 'hi', by: 'user:1' } });
  });

  it('keeps the id its sender gave it, and refuses an empty or overlong one', () => {
    expect(parseUserMessage({ text: 'hi', id: 'msg-1' })).toEqual({ ok: true, value: { text: 'hi', id: 'msg-1' } });
    for (const id of ['', ' ', 'x'.repeat(MAX_MESSAGE_ID_CHARS + 1), 7])
      expect(parseUserMessage({ text: 'hi', id })).toEqual({
        ok: false,
        error: `malformed message: id must be a non-empty string of at most ${MAX_MESSAGE_ID_CHARS} characters when given`,
      });
  });

  it('refuses what is not a message, saying what is wrong', () => {
    expect(parseUserMessage(42)).toEqual({ ok: false, error: 'message must be an object { text, by?, id?, context? } or a string' });
    expect(parseUserMessage({ text: '  ' })).toEqual({ ok: false, error: 'malformed message: text must be a non-empty string' });
    expect(parseUserMessage({ text: 'x', by: '', extra: 1 })).toEqual({
      ok: false,
      error: 'malformed message: by must be a non-empty string when given; unknown field(s): extra',
    });
    const long = parseUserMessage('x'.repeat(MAX_MESSAGE_CHARS + 1));
    expect(long.ok).toBe(false);
    expect(!long.ok && long.error).toMatch(/at most 100000 characters/);
  });
});

describe('withUserText', () => {
  it('adds a new user message after an answer', () => {
    const messages: Message[] = [{ role: 'assistant', content: [{ type: 'text', text: 'hi' }] }];
    expect(withUserText(messages, ['a', 'b'])).toEqual([
      ...messages,
      {
        role: 'user',
        content: [
          { type: 'text', text: 'a' },
          { type: 'text', text: 'b' },
        ],
      },
    ]);
  });

  it('joins the tool results of the step in progress, after them (a result must follow its call)', () => {
    const messages: Message[] = [
      { role: 'assistant', content: [{ type: 'tool_use', id: 'c1', name: 't', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', toolUseId: 'c1', output: { type: 'text', text: 'r' }, isError: false }] },
    ];
    const next = withUserText(messages, ['stop after this']);
    expect(next).toHaveLength(2);
    expect(next[1]?.content).toEqual([...(messages[1]?.content ?? []), { type: 'text', text: 'stop after this' }]);
  });
});

describe('applyUserMessages', () => {
  const answered = (): LoopState => ({
    ...startLoop(spec, 'first'),
    messages: [
      { role: 'user', content: [{ type: 'text', text: 'first' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'answer' }] },
    ],
    stored: 2,
    head: 'sha256-x',
    step: 1,
  });

  it('makes the messages one new turn, each a user_message event', () => {
    const t = applyUserMessages(answered(), [
      { message: { text: 'second', by: 'u' }, via: 'update' },
      { message: { text: 'third', id: 'chat-msg-3' }, via: 'signal' },
    ]);
    expect(t.state.turn).toBe(2);
    expect(t.state.messages.at(-1)).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'second' },
        { type: 'text', text: 'third' },
      ],
    });
    expect(t.events).toEqual([
      { type: 'user_message', turn: 2, text: 'second', via: 'update', by: 'u' },
      { type: 'user_message', turn: 2, text: 'third', via: 'signal', id: 'chat-msg-3' },
    ]);
  });

  it('never changes a message already stored: a stored user message gets a new one after it', () => {
    const s = { ...answered(), messages: [{ role: 'user' as const, content: [{ type: 'text' as const, text: 'first' }] }], stored: 1 };
    const t = applyUserMessages(s, [{ message: { text: 'more' }, via: 'signal' }]);
    expect(t.state.messages).toEqual([...s.messages, { role: 'user', content: [{ type: 'text', text: 'more' }] }]);
  });

  it('a session started without a prompt is at turn 0 until its first message', () => {
    const empty = startLoop(spec, '');
    expect(empty.turn).toBe(0);
    expect(empty.messages).toEqual([]);
    expect(applyUserMessages(empty, [{ message: { text: 'hello' }, via: 'signal' }]).state.turn).toBe(1);
  });

  it('changes nothing without messages', () => {
    const s = answered();
    expect(applyUserMessages(s, []).state).toBe(s);
  });
});
