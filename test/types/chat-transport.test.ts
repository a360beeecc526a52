/**
 * The chat transport's declarations need no `ai`, yet the transport is what `useChat` takes: AI SDK 7's
 * `ChatTransport` for its `UIMessage` and for an app's own message type. `tsc --noEmit` checks this file.
 */
import type { ChatTransport, UIMessage, UIMessageChunk } from 'ai' with { 'resolution-mode': 'import' };
import { describe, expectTypeOf, it } from 'vitest';
import { DurableChatTransport } from '../../src/entry/chat-transport';
import type { ChatChunk } from '../../src/entry/chat';

type AppMessage = UIMessage<{ sentAt: string }>;

describe('DurableChatTransport', () => {
  it('is an AI SDK ChatTransport for UIMessage and for an app message type', () => {
    expectTypeOf(new DurableChatTransport()).toExtend<ChatTransport<UIMessage>>();
    expectTypeOf(new DurableChatTransport<AppMessage>({ api: '/chat' })).toExtend<ChatTransport<AppMessage>>();
  });

  it('emits only chunks of the AI SDK UI message stream', () => {
    expectTypeOf<ChatChunk>().toExtend<UIMessageChunk>();
  });
});
