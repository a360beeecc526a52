/**
 * The chat protocol end to end on the real dev server: the chat handler served over HTTP, driven by the
 * real `DurableChatTransport` (and the AI SDK's own `DefaultChatTransport`), the answers assembled by the
 * AI SDK's `readUIMessageStream` — what a `useChat` page would show.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UIMessage, UIMessageChunk } from 'ai' with { 'resolution-mode': 'import' };
import type * as AiModule from 'ai' with { 'resolution-mode': 'import' };
import { DurableChatTransport } from '../../src/browser/chat-transport';
import { ScriptedAgents } from '../helpers/agents';
import type { Harness } from '../helpers/harness';
import { startHarness, testId } from '../helpers/harness';
import type { ServedChat } from '../helpers/chat';
import { lastUserText, sendText, serveChat, userMessage } from '../helpers/chat';
import { deploy, echo } from '../helpers/tools';
import { allEvents, pollUntil } from '../helpers/events';
import { defineTool } from '../../src/agents/define';
import type { Message } from '../../src/core/messages/messages';
import { z } from 'zod';

const LONG =
  'Durable chats keep streaming through refreshes, dropped connections and restarted workers, and end with exactly the transcript. '
    .repeat(3)
    .trim();
const S = new ScriptedAgents();
S.add(
  'chatter',
  (request) => {
    const text = lastUserText(request.messages);
    if (text.startsWith('long')) return { text: LONG, stream: { chunks: 40, intervalMs: 50 } };
    return { text: `You said: ${text}`, stream: { chunks: 5, intervalMs: 20 } };
  },
  { tools: [echo] },
);

/** The last message is a tool's result: the model answers after its tools ran. */
function afterTools(messages: readonly Message[]): string | undefined {
  const last = messages[messages.length - 1];
  const result = last?.role === 'user' ? last.content.find((b) => b.type === 'tool_result') : undefined;
  if (!result || result.type !== 'tool_result') return undefined;
  return result.output.type === 'text' ? result.output.text : result.output.preview;
}

S.add(
  'flaky_chat',
  [
    {
      text: LONG,
      stream: { chunks: 20, intervalMs: 30 },
      failures: [{ message: 'connection reset mid-answer', retryable: true, afterStreaming: true }],
    },
  ],
  { tools: [] },
);

const guardedDeploy = defineTool({
  name: 'guarded_deploy',
  description: 'Deploy, approved by alice only',
  input: z.object({ service: z.string() }),
  approvers: ['user:alice'],
  execute: ({ service }) => `deployed ${service}`,
});
S.add(
  'deployer',
  (request) => {
    const after = afterTools(request.messages);
    if (after !== undefined) return { text: `Done (${after.slice(0, 40)}).`, stream: { chunks: 3, intervalMs: 10 } };
    const text = lastUserText(request.messages);
    const tool = text.includes('guarded') ? 'guarded_deploy' : 'deploy';
    return { text: 'Deploying.', toolCalls: [{ name: tool, args: { service: 'api' } }], stream: { chunks: 3, intervalMs: 10 } };
  },
  { tools: [deploy, guardedDeploy] },
);

let h: Harness;
let chat: ServedChat;
let ai: typeof AiModule;
beforeAll(async () => {
  ai = await import('ai');
  h = await startHarness({ agents: S.agents, providers: { scripted: S.provider } });
  chat = await serveChat(h.client, 'chatter');
});
afterAll(async () => {
  await chat?.close();
  await h?.stop();
});

async function assemble(stream: ReadableStream<UIMessageChunk>, message?: UIMessage): Promise<UIMessage> {
  let last: UIMessage | undefined;
  for await (const m of ai.readUIMessageStream({ stream, ...(message ? { message } : {}), terminateOnError: true })) last = m;
  return last!;
}

/** The message a stream assembles to, and every chunk it carried. */
async function assembleWithChunks(stream: ReadableStream<UIMessageChunk>): Promise<{ message: UIMessage; chunks: UIMessageChunk[] }> {
  const chunks: UIMessageChunk[] = [];
  const [a, b] = stream.tee();
  const collecting = (async () => {
    for await (const c of a) chunks.push(c);
  })();
  const message = await assemble(b);
  await collecting;
  return { message, chunks };
}

const textOf = (m: UIMessage) => m.parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('');

function transport(user = 'user:alice') {
  return new DurableChatTransport({ api: chat.api, headers: { 'x-user': user } });
}

describe('chat', () => {
  it('streams the answer to a message (send-or-start), with the stable message id, and the history has it', async () => {
    const chatId = testId('c');
    const t = transport();
    const stream = await sendText(t, chatId, 'hello there');
    const m = await assemble(stream);
    expect(m.id).toBe(`${chatId}:1`);
    expect(textOf(m)).toBe('You said: hello there');
    const res = await fetch(`${chat.api}/${chatId}/messages`, { headers: { 'x-user': 'user:alice' } });
    const { messages } = (await res.json()) as { messages: UIMessage[] };
    expect(messages.map((x) => x.role)).toEqual(['user', 'assistant']);
    expect(messages[1]!.id).toBe(`${chatId}:1`);
    expect(textOf(messages[1]!)).toBe('You said: hello there');
    // Nothing in progress: 204, fast.
    const idle = await fetch(`${chat.api}/${chatId}/stream`, { headers: { 'x-user': 'user:alice' } });
    expect(idle.status).toBe(204);
    expect(await t.reconnectToStream({ chatId })).toBeNull();
  });

  it('a page load mid-answer replays the turn from its start (204 when idle) and ends with exactly the transcript', async () => {
    const chatId = testId('reload');
    const t = transport();
    const first = await sendText(t, chatId, 'long answer please');
    // Read a few chunks, then the page goes away.
    const reader = first.getReader();
    let seen = '';
    while (seen.length < 40) {
      const r = await reader.read();
      if (r.done) break;
      if (r.value.type === 'text-delta') seen += r.value.delta;
    }
    await reader.cancel();
    expect(LONG.startsWith(seen)).toBe(true);
    // The new page: the stored messages, then the replay of the turn in progress.
    const replay = await t.reconnectToStream({ chatId });
    expect(replay).not.toBeNull();
    const m = await assemble(replay!);
    expect(m.id).toBe(`${chatId}:1`);
    expect(textOf(m)).toBe(LONG);
    const run = h.client.get(`chat:user%3Aalice:${chatId}`);
    expect((await run.readEvents(0)).events.filter((e) => e.type === 'text').map((e) => (e.type === 'text' ? e.text : ''))).toEqual([LONG]);
  });

  it('a connection dropped mid-answer is reconnected by the transport after its last cursor: no duplicate, no gap', async () => {
    const chatId = testId('drop');
    let cut = false;
    const cutting: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      if (cut || (init?.method ?? 'GET') !== 'POST' || !res.body) return res;
      cut = true;
      // Pass ~20 reads of the answer, then fail the connection as a network error would.
      const src = res.body.getReader();
      let n = 0;
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          if (n++ >= 20) {
            await src.cancel();
            controller.error(new TypeError('network error'));
            return;
          }
          const r = await src.read();
          if (r.done) controller.close();
          else controller.enqueue(r.value);
        },
      });
      return new Response(body, { status: res.status, headers: res.headers });
    };
    const t = new DurableChatTransport({ api: chat.api, headers: { 'x-user': 'user:alice' }, fetch: cutting, reconnectDelayMs: 50 });
    const stream = await sendText(t, chatId, 'long answer, cut');
    const { message: m, chunks } = await assembleWithChunks(stream);
    expect(cut).toBe(true);
    expect(textOf(m)).toBe(LONG);
    expect(chunks.filter((c) => c.type === 'start')).toHaveLength(1);
    expect(chunks.filter((c) => c.type === 'finish')).toHaveLength(1);
  });

  it("a retried attempt's streamed text vanishes (reset-step): the page ends with the transcript's text", async () => {
    const served = await serveChat(h.client, 'flaky_chat');
    try {
      const chatId = testId('flaky');
      const t = new DurableChatTransport({ api: served.api, headers: { 'x-user': 'user:alice' } });
      const stream = await sendText(t, chatId, 'go');
      const { message: m, chunks } = await assembleWithChunks(stream);
      expect(chunks.some((c) => c.type === 'reset-step')).toBe(true);
      expect(textOf(m)).toBe(LONG);
    } finally {
      await served.close();
    }
  });

  it("speaks the standard protocol: the AI SDK's own DefaultChatTransport works with it", async () => {
    const chatId = testId('std');
    const t = new ai.DefaultChatTransport({ api: chat.api, headers: { 'x-user': 'user:alice' } });
    const m1 = await assemble(await sendText(t, chatId, 'one'));
    expect(textOf(m1)).toBe('You said: one');
    const history = [userMessage('one'), m1, userMessage('two')];
    const m2 = await assemble(
      await t.sendMessages({ chatId, messages: history, trigger: 'submit-message', messageId: undefined, abortSignal: undefined }),
    );
    expect(m2.id).toBe(`${chatId}:2`);
    expect(textOf(m2)).toBe('You said: two');
    expect(await t.reconnectToStream({ chatId })).toBeNull();
  });

  it('rejects bad bodies with 400 naming the field, and a request without identity with 401', async () => {
    const post = (body: unknown, user: string | null = 'user:alice') =>
      fetch(chat.api, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(user ? { 'x-user': user } : {}) },
        body: JSON.stringify(body),
      });
    const cases: Array<[unknown, string]> = [
      [{ messages: [userMessage('x')] }, 'id'],
      [{ id: 'c1', messages: [] }, 'messages'],
      [{ id: 'c1', messages: [{ role: 'user', parts: [{ type: 'text', text: '   ' }] }] }, 'messages[0].parts'],
      [{ id: 'c1', messages: [{ role: 'robot', parts: [] }] }, 'messages[0].role'],
      [{ id: 'c1', messages: [userMessage('x')], trigger: 'regenerate-message' }, 'trigger'],
      [{ id: 'c1', messages: [{ role: 'assistant', parts: [{ type: 'text', text: 'hi' }] }] }, 'messages[0].parts'],
    ];
    for (const [body, field] of cases) {
      const res = await post(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(await res.json()).toMatchObject({ error: 'invalid_request', field });
    }
    expect((await post({ id: 'c1', messages: [userMessage('x')] }, null)).status).toBe(401);
    const get = (path: string, user: string | null = 'user:alice') =>
      fetch(`${chat.api}/${path}`, { headers: user ? { 'x-user': user } : {} });
    expect((await get('c1/stream', null)).status).toBe(401);
    expect((await get('c1/messages', null)).status).toBe(401);
    const bad = await get('%E0%A4%A/stream');
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: 'invalid_request', field: 'chatId' });
    expect((await get('c1/other')).status).toBe(404);
  });
});

describe('chat tenancy', () => {
  it("a second identity reaches nothing of another's chat: its POST starts its own session, its reads see nothing", async () => {
    const chatId = testId('mine');
    const alice = transport('user:alice');
    await assemble(await sendText(alice, chatId, 'secret plan'));
    const bob = { 'x-user': 'user:bob' };
    const messages = await (await fetch(`${chat.api}/${chatId}/messages`, { headers: bob })).json();
    expect(messages).toEqual({ messages: [] });
    expect((await fetch(`${chat.api}/${chatId}/stream`, { headers: bob })).status).toBe(204);
    const m = await assemble(
      await transport('user:bob').sendMessages({
        chatId,
        messages: [userMessage('hi')],
        trigger: 'submit-message',
        messageId: undefined,
        abortSignal: undefined,
      }),
    );
    expect(textOf(m)).toBe('You said: hi');
    // Alice's run got nothing from bob.
    const events = (await h.client.get(`chat:user%3Aalice:${chatId}`).readEvents(0)).events;
    expect(events.filter((e) => e.type === 'user_message').map((e) => (e.type === 'user_message' ? e.by : ''))).toEqual(['user:alice']);
  });

  it('with an unscoped session id, the owner check refuses another identity on POST, GET stream and GET messages (404, nothing sent)', async () => {
    const served = await serveChat(h.client, 'chatter', { sessionId: ({ chatId }) => `shared-${chatId}` });
    try {
      const chatId = testId('shared');
      const alice = new DurableChatTransport({ api: served.api, headers: { 'x-user': 'user:alice' } });
      await assemble(await sendText(alice, chatId, 'mine'));
      const bob = { 'x-user': 'user:bob' };
      const post = await fetch(served.api, {
        method: 'POST',
        headers: { ...bob, 'content-type': 'application/json' },
        body: JSON.stringify({ id: chatId, messages: [userMessage('let me in')] }),
      });
      expect(post.status).toBe(404);
      // Through the transport: an Error carrying the server's status, code and message (the chat shows it).
      const bobs = new DurableChatTransport({ api: served.api, headers: bob });
      await expect(sendText(bobs, chatId, 'let me in')).rejects.toMatchObject({
        name: 'ChatHttpError',
        status: 404,
        code: 'not_found',
        message: `no chat "${chatId}"`,
      });
      expect((await fetch(`${served.api}/${chatId}/stream`, { headers: bob })).status).toBe(404);
      const read = await fetch(`${served.api}/${chatId}/messages`, { headers: bob });
      expect(read.status).toBe(404);
      expect(JSON.stringify(await read.json())).not.toContain('mine');
      const events = (await h.client.get(`shared-${chatId}`).readEvents(0)).events;
      expect(events.filter((e) => e.type === 'user_message')).toHaveLength(1);
    } finally {
      await served.close();
    }
  });
});

describe('approvals in the chat', () => {
  let deployChat: ServedChat;
  beforeAll(async () => {
    deployChat = await serveChat(h.client, 'deployer', {
      // carol may open alice's chats (a teammate), bob may not; the session id is the chat id.
      sessionId: ({ chatId }) => `deploy-${chatId}`,
      mayAccess: ({ identity, owner }) => owner === 'user:alice' && identity === 'user:carol',
    });
  });
  afterAll(async () => {
    await deployChat?.close();
  });
  const send = (user: string, chatId: string, messages: unknown[], messageId?: string) =>
    new DurableChatTransport({ api: deployChat.api, headers: { 'x-user': user } }).sendMessages({
      chatId,
      messages: messages as UIMessage[],
      trigger: 'submit-message',
      messageId,
      abortSignal: undefined,
    });
  type ToolPartView = { type: string; state: string; toolCallId: string; approval?: { id: string; approved?: boolean }; output?: unknown };
  const toolPart = (m: UIMessage) => m.parts.find((p) => p.type.startsWith('tool-')) as unknown as ToolPartView;
  const answered = (m: UIMessage, approved: boolean): UIMessage => ({
    ...m,
    parts: m.parts.map((p) =>
      p.type.startsWith('tool-')
        ? ({ ...p, state: 'approval-responded', approval: { id: (p as unknown as ToolPartView).approval!.id, approved } } as typeof p)
        : p,
    ),
  });

  it('a call needing approval ends the stream (finish: tool-calls) as an approval request; the answer decides it as the signed-in user and the same message goes on', async () => {
    const chatId = testId('appr');
    const user = userMessage('deploy the api');
    const chunks: UIMessageChunk[] = [];
    const [a, b] = (await send('user:alice', chatId, [user])).tee();
    const collecting = (async () => {
      for await (const c of a) chunks.push(c);
    })();
    const asked = await assemble(b);
    await collecting;
    expect(chunks.at(-1)).toEqual({ type: 'finish', finishReason: 'tool-calls' });
    expect(toolPart(asked)).toMatchObject({ type: 'tool-deploy', state: 'approval-requested' });
    expect(toolPart(asked).approval!.id).toBe(toolPart(asked).toolCallId);
    const yes = answered(asked, true);
    const done = await assemble(await send('user:alice', chatId, [user, yes], yes.id), yes);
    expect(done.id).toBe(asked.id);
    expect(toolPart(done)).toMatchObject({ state: 'output-available', output: 'deployed api' });
    expect(textOf(done)).toContain('Done (deployed api).');
    const decided = (await h.client.get(`deploy-${chatId}`).readEvents(0)).events.find((e) => e.type === 'approval_decided');
    expect(decided).toMatchObject({ decision: 'approve', by: 'user:alice', path: 'chat' });
    // The history shows the same message: approved, with its output.
    const { messages } = (await (await fetch(`${deployChat.api}/${chatId}/messages`, { headers: { 'x-user': 'user:alice' } })).json()) as {
      messages: UIMessage[];
    };
    expect(messages.at(-1)!.id).toBe(asked.id);
    expect(toolPart(messages.at(-1)!)).toMatchObject({ state: 'output-available', approval: { approved: true } });
  });

  it("the AI SDK's DefaultChatTransport (the whole history posted) approves the same way", async () => {
    const chatId = testId('std-appr');
    const t = new ai.DefaultChatTransport({ api: deployChat.api, headers: { 'x-user': 'user:alice' } });
    const user = userMessage('deploy the api');
    const opts = { chatId, trigger: 'submit-message' as const, abortSignal: undefined };
    const asked = await assemble(await t.sendMessages({ ...opts, messages: [user], messageId: undefined }));
    const yes = answered(asked, true);
    const done = await assemble(await t.sendMessages({ ...opts, messages: [user, yes], messageId: yes.id }), yes);
    expect(toolPart(done)).toMatchObject({ state: 'output-available', output: 'deployed api' });
  });

  it('a denial in the chat shows the call denied and the run goes on', async () => {
    const chatId = testId('deny');
    const user = userMessage('deploy the api');
    const asked = await assemble(await send('user:alice', chatId, [user]));
    const no = answered(asked, false);
    const done = await assemble(await send('user:alice', chatId, [user, no], no.id), no);
    expect(toolPart(done).state).toBe('output-denied');
  });

  it("a decision by someone who may read the chat but is not the call's approver is refused (403, nothing decided)", async () => {
    const chatId = testId('guard');
    const user = userMessage('guarded deploy please');
    const asked = await assemble(await send('user:alice', chatId, [user]));
    expect(toolPart(asked)).toMatchObject({ type: 'tool-guarded_deploy', state: 'approval-requested' });
    const yes = answered(asked, true);
    const res = await fetch(deployChat.api, {
      method: 'POST',
      headers: { 'x-user': 'user:carol', 'content-type': 'application/json' },
      body: JSON.stringify({ id: chatId, messages: [user, yes], trigger: 'submit-message', messageId: yes.id }),
    });
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ error: 'approval_refused', callId: toolPart(asked).toolCallId });
    const run = h.client.get(`deploy-${chatId}`);
    expect((await run.readEvents(0)).events.some((e) => e.type === 'approval_decided')).toBe(false);
    expect(await run.pendingApprovals()).toHaveLength(1);
    // bob may not even see the chat.
    const bob = await fetch(deployChat.api, {
      method: 'POST',
      headers: { 'x-user': 'user:bob', 'content-type': 'application/json' },
      body: JSON.stringify({ id: chatId, messages: [user, yes], trigger: 'submit-message', messageId: yes.id }),
    });
    expect(bob.status).toBe(404);
    // alice is the approver: allowed.
    const done = await assemble(await send('user:alice', chatId, [user, yes], yes.id), yes);
    expect(toolPart(done)).toMatchObject({ state: 'output-available', output: 'deployed api' });
  });

  it('a decision made elsewhere (the client API, as the CLI or console would) reaches the open page: waitForDecision returns the continuation', async () => {
    const chatId = testId('elsewhere');
    const asked = await assemble(await send('user:alice', chatId, [userMessage('deploy the api')]));
    const t = new DurableChatTransport({ api: deployChat.api, headers: { 'x-user': 'user:alice' } });
    // Idle page load while waiting for a person: 204 (the history shows the request).
    expect(await t.reconnectToStream({ chatId })).toBeNull();
    const waiting = t.reconnectToStream({ chatId, body: { waitForDecision: true } });
    await new Promise((r) => setTimeout(r, 500));
    await h.client.get(`deploy-${chatId}`).decide({ callId: toolPart(asked).toolCallId, decision: 'approve', by: 'ops:bob' });
    const stream = await waiting;
    expect(stream).not.toBeNull();
    const m = await assemble(stream!);
    expect(m.id).toBe(asked.id);
    expect(toolPart(m)).toMatchObject({ state: 'output-available', approval: { approved: true } });
    expect(textOf(m)).toContain('Done (deployed api).');
  });

  it('a page that starts waiting only after the decision was made and answered elsewhere still gets the continuation (no 204)', async () => {
    const chatId = testId('late-wait');
    const asked = await assemble(await send('user:alice', chatId, [userMessage('deploy the api')]));
    const run = h.client.get(`deploy-${chatId}`);
    await run.decide({ callId: toolPart(asked).toolCallId, decision: 'approve', by: 'ops:bob' });
    await pollUntil(
      () => allEvents(run),
      (events) => events.some((e) => e.type === 'awaiting_message' && e.turn === 1),
      'the answer after the decision',
    );
    const t = new DurableChatTransport({ api: deployChat.api, headers: { 'x-user': 'user:alice' } });
    const stream = await t.reconnectToStream({ chatId, body: { waitForDecision: true } });
    expect(stream, 'the turn the page waited with ended before its wait began: replayed, not 204').not.toBeNull();
    const m = await assemble(stream!);
    expect(m.id).toBe(asked.id);
    expect(toolPart(m)).toMatchObject({ state: 'output-available', approval: { approved: true } });
    expect(textOf(m)).toContain('Done (deployed api).');
  });
});

describe('page loads with no worker', () => {
  it('an idle chat answers the page load 204 at once while no worker runs (no query needed), and takes a message that is answered once one is back', async () => {
    const h2 = await startHarness({ agents: S.agents, providers: { scripted: S.provider } });
    const served = await serveChat(h2.client, 'chatter');
    let back: Harness | undefined;
    try {
      const chatId = testId('noworker');
      const t = new DurableChatTransport({ api: served.api, headers: { 'x-user': 'user:alice' } });
      await assemble(await sendText(t, chatId, 'hi'));
      h2.worker.shutdown();
      await new Promise((r) => setTimeout(r, 1500));
      const began = Date.now();
      const res = await fetch(`${served.api}/${chatId}/stream`, { headers: { 'x-user': 'user:alice' } });
      expect(res.status).toBe(204);
      expect(Date.now() - began).toBeLessThan(2000);
      // A message sent meanwhile is taken at once (a signal) and answered when a worker is back.
      const sent = Date.now();
      const stream = await sendText(t, chatId, 'again');
      expect(Date.now() - sent).toBeLessThan(5000);
      back = await startHarness({ agents: S.agents, providers: { scripted: S.provider }, taskQueue: h2.taskQueue, storeDir: h2.storeDir });
      const m = await assemble(stream);
      expect(m.id).toBe(`${chatId}:2`);
      expect(textOf(m)).toBe('You said: again');
    } finally {
      await served.close();
      await back?.stop().catch(() => undefined);
      await h2.stop().catch(() => undefined);
    }
  }, 60_000);
  it('with no worker up, a message repeating an earlier one streams its own turn, not the earlier answer (found by its message id)', async () => {
    const h2 = await startHarness({ agents: S.agents, providers: { scripted: S.provider } });
    const served = await serveChat(h2.client, 'chatter');
    let back: Harness | undefined;
    try {
      const chatId = testId('repeat');
      const t = new DurableChatTransport({ api: served.api, headers: { 'x-user': 'user:alice' } });
      const send = (text: string) => sendText(t, chatId, text);
      expect((await assemble(await send('yes'))).id).toBe(`${chatId}:1`);
      h2.worker.shutdown();
      await new Promise((r) => setTimeout(r, 1500));
      // No worker answers the events query: the handler cannot count the events before sending.
      const stream = await send('yes');
      back = await startHarness({ agents: S.agents, providers: { scripted: S.provider }, taskQueue: h2.taskQueue, storeDir: h2.storeDir });
      const m = await assemble(stream);
      expect(m.id).toBe(`${chatId}:2`);
      expect(textOf(m)).toBe('You said: yes');
      const { events } = await back.client.get(`chat:${encodeURIComponent('user:alice')}:${chatId}`).readEvents();
      const sent = events.filter((e) => e.type === 'user_message');
      expect(sent.at(-1)).toMatchObject({ type: 'user_message', turn: 2, text: 'yes', id: expect.stringMatching(/^u-/) });
    } finally {
      await served.close();
      await back?.stop().catch(() => undefined);
      await h2.stop().catch(() => undefined);
    }
  }, 60_000);
});

describe('a worker lost mid-answer', () => {
  it('the open chat stream goes on when another worker takes over, and ends with exactly the transcript', async () => {
    const first = await startHarness({ agents: S.agents, providers: { scripted: S.provider } });
    const served = await serveChat(first.client, 'chatter');
    let second: Harness | undefined;
    try {
      const chatId = testId('lost');
      const t = new DurableChatTransport({ api: served.api, headers: { 'x-user': 'user:alice' } });
      const stream = await sendText(t, chatId, 'long answer, then a crash');
      const [a, b] = stream.tee();
      const chunks: UIMessageChunk[] = [];
      let shown = '';
      const collecting = (async () => {
        for await (const c of a) {
          chunks.push(c);
          if (c.type === 'text-delta') shown += c.delta;
          if (c.type === 'reset-step') shown = '';
        }
      })();
      const assembled = assemble(b);
      // Some of the answer on the page, then the worker goes away and another one starts on its queue.
      for (let i = 0; i < 100 && shown.length < 30; i++) await new Promise((r) => setTimeout(r, 50));
      first.worker.shutdown();
      second = await startHarness({
        agents: S.agents,
        providers: { scripted: S.provider },
        taskQueue: first.taskQueue,
        storeDir: first.storeDir,
      });
      const m = await assembled;
      await collecting;
      expect(textOf(m)).toBe(LONG);
      expect(chunks.filter((c) => c.type === 'finish')).toEqual([{ type: 'finish', finishReason: 'stop' }]);
    } finally {
      await served.close();
      await second?.stop().catch(() => undefined);
      await first.stop().catch(() => undefined);
    }
  }, 120_000);
});
