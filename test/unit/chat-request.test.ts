/** The chat POST body: the standard `DefaultChatTransport` body accepted whole, only its last message used; errors name the field. */
import { describe, expect, it } from 'vitest';
import { ChatRequestError, parseChatRequest } from '../../src/client/chat/request';
import { formatCursor, parseCursor } from '../../src/core/chat/cursor';
import { defaultChatSessionId } from '../../src/client/chat/handler';

const user = (text: string) => ({ id: 'm1', role: 'user', parts: [{ type: 'text', text }] });

function fieldOf(body: unknown): string | undefined {
  try {
    parseChatRequest(body);
    return undefined;
  } catch (err) {
    expect(err).toBeInstanceOf(ChatRequestError);
    return (err as ChatRequestError).field;
  }
}

describe('parseChatRequest', () => {
  it('a new user message: its text (the history before it is not read), extra fields of the standard body allowed', () => {
    const body = {
      id: 'chat-1',
      messages: [
        { nonsense: true },
        user('hello'),
        {
          ...user('second'),
          metadata: { a: 1 },
          parts: [
            { type: 'text', text: 'a' },
            { type: 'file', url: 'x' },
            { type: 'text', text: 'b' },
          ],
        },
      ],
      trigger: 'submit-message',
      messageId: undefined,
      extra: 'from body options',
    };
    expect(parseChatRequest(body)).toEqual({ kind: 'message', chatId: 'chat-1', text: 'a\nb', messageId: 'm1' });
  });

  it('an assistant message with approval-responded tool parts: the decisions', () => {
    const assistant = {
      id: 'chat-1:1',
      role: 'assistant',
      parts: [
        { type: 'step-start' },
        { type: 'tool-deploy', toolCallId: 'call-1', state: 'approval-responded', input: {}, approval: { id: 'call-1', approved: true } },
        { type: 'tool-echo', toolCallId: 'call-2', state: 'output-available', output: 'x' },
        {
          type: 'dynamic-tool',
          toolName: 'x',
          toolCallId: 'call-3',
          state: 'approval-responded',
          approval: { id: 'call-3', approved: false, reason: 'no' },
        },
      ],
    };
    expect(
      parseChatRequest({ id: 'chat-1', messages: [user('deploy'), assistant], trigger: 'submit-message', messageId: 'chat-1:1' }),
    ).toEqual({
      kind: 'approvals',
      chatId: 'chat-1',
      decisions: [
        { callId: 'call-1', approved: true },
        { callId: 'call-3', approved: false, reason: 'no' },
      ],
    });
  });

  it('names the field that is wrong', () => {
    expect(fieldOf(null)).toBe('body');
    expect(fieldOf({ messages: [user('x')] })).toBe('id');
    expect(fieldOf({ id: '../x', messages: [user('x')] })).toBe('id');
    expect(fieldOf({ id: 'c', messages: [] })).toBe('messages');
    expect(fieldOf({ id: 'c', messages: 'hi' })).toBe('messages');
    expect(fieldOf({ id: 'c', messages: [user('x')], trigger: 'other' })).toBe('trigger');
    expect(fieldOf({ id: 'c', messages: [user('x')], trigger: 'regenerate-message' })).toBe('trigger');
    expect(fieldOf({ id: 'c', messages: [{ role: 'user' }] })).toBe('messages[0].parts');
    expect(fieldOf({ id: 'c', messages: [user('x'), { role: 'bot', parts: [] }] })).toBe('messages[1].role');
    expect(fieldOf({ id: 'c', messages: [user('  ')] })).toBe('messages[0].parts');
    expect(fieldOf({ id: 'c', messages: [{ role: 'assistant', parts: [{ type: 'text', text: 'hi' }] }] })).toBe('messages[0].parts');
    expect(
      fieldOf({
        id: 'c',
        messages: [{ role: 'assistant', parts: [{ type: 'tool-x', state: 'approval-responded', approval: { id: 'a' } }] }],
      }),
    ).toBe('messages[0].parts[0].approval.approved');
    expect(fieldOf({ id: 'c', messages: [{ role: 'system', parts: [] }] })).toBe('messages[0].role');
    expect(fieldOf({ id: 'c', messages: [user('x'.repeat(100_001))] })).toBe('messages[0].parts');
  });
});

describe('chat cursors', () => {
  it('round-trip, and reject anything else', () => {
    for (const c of [
      { turnStart: 1, seq: 4 },
      { turnStart: 1, seq: 4, sent: 2 },
      { turnStart: 3, seq: 9, live: { step: 2, attempt: 1 } },
    ]) {
      expect(parseCursor(formatCursor(c))).toEqual(c);
    }
    for (const bad of ['', 'x', '1', '1.2.3.4', '5.4', '1.2~3', '-1.2', '1.2.3~4.5', '9'.repeat(200)])
      expect(parseCursor(bad), bad).toBeUndefined();
  });
});

describe('defaultChatSessionId', () => {
  it('scopes a chat by its owner, with no two (identity, chat id) pairs on one session', () => {
    expect(defaultChatSessionId({ identity: 'user:x', chatId: 'abc' })).not.toBe(
      defaultChatSessionId({ identity: 'user:y', chatId: 'abc' }),
    );
    expect(defaultChatSessionId({ identity: 'x:y', chatId: 'z' })).not.toBe(defaultChatSessionId({ identity: 'x', chatId: 'y:z' }));
  });
});
