/** A chat handler served on a free port, and what tests need around it (identities by header, message helpers). */
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import type { ServerType } from '@hono/node-server';
import type { ChatHandlerOptions } from '../../src/client/chat/handler';
import { createChatHandler } from '../../src/client/chat/handler';
import type { Message } from '../../src/core/messages/messages';
import type { AgentClient } from '../../src/client';
import type { ChatSendOptions } from '../../src/browser/chat-transport';

/** A served chat handler. */
export interface ServedChat {
  /** `http://127.0.0.1:<port>/api/chat` */
  api: string;
  origin: string;
  close(): Promise<void>;
}

/** Serve a chat handler for `agent`; the identity is the `x-user` header (none: 401). */
export async function serveChat(client: AgentClient, agent: string, extra: Partial<ChatHandlerOptions> = {}): Promise<ServedChat> {
  const handler = createChatHandler({
    client,
    agent,
    identify: (req) => {
      const user = req.headers.get('x-user');
      return user ? { identity: user } : null;
    },
    onError: () => undefined,
    ...extra,
  });
  const server: ServerType = await new Promise((resolve) => {
    const s = serve({ fetch: handler, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
  });
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return {
    api: `${origin}/api/chat`,
    origin,
    close: () =>
      new Promise<void>((resolve) => {
        (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}

/** The text of the last user message of a model request. */
export function lastUserText(messages: readonly Message[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role !== 'user') continue;
    const texts = m.content.flatMap((b) => (b.type === 'text' ? [b.text] : []));
    if (texts.length) return texts.join('\n');
  }
  return '';
}

/** A user message as `useChat` makes it. */
export function userMessage(text: string, id = `u-${Math.random().toString(36).slice(2)}`) {
  return { id, role: 'user' as const, parts: [{ type: 'text' as const, text }] };
}

/** A chat transport: ours or the AI SDK's. */
interface SendsMessages<S> {
  sendMessages(options: ChatSendOptions<ReturnType<typeof userMessage>>): Promise<S>;
}

/** `transport.sendMessages` of one new user message `text` in chat `chatId`, as `useChat`'s `sendMessage` calls it. */
export function sendText<S>(transport: SendsMessages<S>, chatId: string, text: string): Promise<S> {
  return transport.sendMessages({
    chatId,
    messages: [userMessage(text)],
    trigger: 'submit-message',
    messageId: undefined,
    abortSignal: undefined,
  });
}
