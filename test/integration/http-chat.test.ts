/**
 * `durable-agent serve`'s chat route (`/api/chat`): the chat handler behind the HTTP API's bearer tokens —
 * the token's identity owns the chat, and its permissions gate reading (`read`), sending (`start` and
 * `message`) and deciding (`decide`).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UIMessage, UIMessageChunk } from 'ai' with { 'resolution-mode': 'import' };
import type * as AiModule from 'ai' with { 'resolution-mode': 'import' };
import { parseTokens } from '../../apps/http/auth';
import { DurableChatTransport } from '../../src/browser/chat-transport';
import { ScriptedAgents } from '../helpers/agents';
import type { ServedApi } from '../helpers/http-api';
import { serveTestApi } from '../helpers/http-api';
import { testId } from '../helpers/harness';
import { lastUserText, userMessage } from '../helpers/chat';
import { deploy } from '../helpers/tools';

const S = new ScriptedAgents();
S.add(
  'served_chat',
  (request) => {
    const text = lastUserText(request.messages);
    if (text.startsWith('deploy') && request.messages.at(-1)?.content.every((b) => b.type === 'text'))
      return { toolCalls: [{ name: 'deploy', args: { service: 'web' } }] };
    return { text: `Served: ${text}`, stream: { chunks: 4, intervalMs: 10 } };
  },
  { tools: [deploy] },
);

const TOKENS = { alice: `alice-${randomUUID()}`, carol: `carol-${randomUUID()}`, viewer: `viewer-${randomUUID()}` };
const AUTH = parseTokens(
  JSON.stringify({
    tokens: {
      [TOKENS.alice]: { identity: 'user:alice', approve: true },
      [TOKENS.carol]: { identity: 'user:carol' },
      [TOKENS.viewer]: { identity: 'user:viewer', permissions: ['read'] },
    },
  }),
  'test tokens',
);

let api: ServedApi;
let base: string;
let ai: typeof AiModule;
beforeAll(async () => {
  ai = await import('ai');
  api = await serveTestApi({ agents: S.agents, providers: { scripted: S.provider } }, AUTH);
  base = `${api.server.url}/api/chat`;
});
afterAll(async () => {
  await api?.stop();
});

const transport = (token: string) => new DurableChatTransport({ api: base, headers: { authorization: `Bearer ${token}` } });
async function assemble(stream: ReadableStream<UIMessageChunk>, message?: UIMessage): Promise<UIMessage> {
  let last: UIMessage | undefined;
  for await (const m of ai.readUIMessageStream({ stream, ...(message ? { message } : {}), terminateOnError: true })) last = m;
  return last!;
}
const send = (token: string, chatId: string, messages: unknown[], messageId?: string) =>
  transport(token).sendMessages({
    chatId,
    messages: messages as UIMessage[],
    trigger: 'submit-message',
    messageId,
    abortSignal: undefined,
    body: { agent: 'served_chat' },
  });

describe('serve: /api/chat', () => {
  it("streams a chat as the token's identity; another token's identity sees none of it", async () => {
    const chatId = testId('served');
    const m = await assemble(await send(TOKENS.alice, chatId, [userMessage('hello')]));
    expect(m.parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('')).toBe('Served: hello');
    const mine = await fetch(`${base}/${chatId}/messages`, { headers: { authorization: `Bearer ${TOKENS.alice}` } });
    expect(((await mine.json()) as { messages: UIMessage[] }).messages).toHaveLength(2);
    const theirs = await fetch(`${base}/${chatId}/messages`, { headers: { authorization: `Bearer ${TOKENS.carol}` } });
    expect(await theirs.json()).toEqual({ messages: [] });
    expect((await fetch(`${base}/${chatId}/messages`)).status).toBe(401);
  });

  it('needs start and message to send, decide to answer an approval (403 naming the permission)', async () => {
    const viewer = await fetch(base, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKENS.viewer}`, 'content-type': 'application/json' },
      body: JSON.stringify({ id: testId('v'), messages: [userMessage('hi')], agent: 'served_chat' }),
    });
    expect(viewer.status).toBe(403);
    expect(await viewer.json()).toMatchObject({ error: 'forbidden', message: expect.stringContaining('"start"') });
    // carol may chat but not decide.
    const chatId = testId('carol');
    const asked = await assemble(await send(TOKENS.carol, chatId, [userMessage('deploy web')]));
    const part = asked.parts.find((p) => p.type === 'tool-deploy') as unknown as { approval: { id: string } };
    const answered = {
      ...asked,
      parts: asked.parts.map((p) =>
        p.type === 'tool-deploy' ? { ...p, state: 'approval-responded', approval: { id: part.approval.id, approved: true } } : p,
      ),
    };
    const refused = await fetch(base, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKENS.carol}`, 'content-type': 'application/json' },
      body: JSON.stringify({ id: chatId, messages: [answered], trigger: 'submit-message', messageId: asked.id }),
    });
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ error: 'forbidden', message: expect.stringContaining('"decide"') });
  });
});
