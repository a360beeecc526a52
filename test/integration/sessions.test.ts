/**
 * Conversations with a running agent, on the real dev server: a session waits for the next message
 * between answers, messages sent while a step runs steer it, send-or-start routes a conversation to one
 * run, and an idle session ends by itself.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../src/agents/define';
import type { AgentRun } from '../../src/client';
import { MessageRefusedError } from '../../src/client';
import type { AgentEvent, UserMessageEvent } from '../../src/core/events/events';
import type { Message } from '../../src/core/messages/messages';
import { messageText } from '../../src/core/messages/messages';
import type { ModelRequest } from '../../src/core/output/native-output';
import type { ScriptedTurn } from '../../src/integrations/providers/scripted';
import { ScriptedAgents } from '../helpers/agents';
import type { Harness } from '../helpers/harness';
import { startHarness, testId } from '../helpers/harness';
import { allEvents } from '../helpers/events';

/** The text the user wrote last (the text blocks of the last user message). */
function lastUserText(messages: readonly Message[]): string {
  const last = [...messages].reverse().find((m) => m.role === 'user');
  return last ? messageText(last) : '';
}

/** Replies "re: <what the user wrote last>", taking a moment so messages can arrive mid-step. */
const echoBack = (request: ModelRequest): ScriptedTurn => ({ delayMs: 150, text: `re: ${lastUserText(request.messages)}` });

const slowLookup = defineTool({
  name: 'slow_lookup',
  description: 'Look something up, slowly',
  input: z.object({ key: z.string() }),
  readOnly: true,
  execute: async ({ key }) => {
    await new Promise((r) => setTimeout(r, 1500));
    return `value of ${key}`;
  },
});

const S = new ScriptedAgents();
S.add('chat', echoBack, { tools: [], maxSteps: 100 });
S.add(
  'steered',
  (request: ModelRequest): ScriptedTurn => {
    const answers = request.messages.filter((m) => m.role === 'assistant').length;
    if (answers === 0) return { toolCalls: [{ name: 'slow_lookup', args: { key: 'a' } }] };
    return { text: `seen: ${lastUserText(request.messages)}` };
  },
  { tools: [slowLookup] },
);

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ agents: S.agents, providers: { scripted: S.provider } });
});
afterAll(async () => {
  await h?.stop();
});

async function waitUntil(run: AgentRun, what: string, pred: (events: AgentEvent[]) => boolean): Promise<AgentEvent[]> {
  for (let i = 0; i < 400; i++) {
    const events = await allEvents(run);
    if (pred(events)) return events;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${run.workflowId}: timed out waiting for ${what}`);
}

const count = (type: AgentEvent['type']) => (events: AgentEvent[]) => events.filter((e) => e.type === type).length;

describe('a session', () => {
  it('answers 20 messages, some sent while a step runs, none lost or read twice, until it is ended', async () => {
    const run = await h.client.start('chat', { input: 'hello', session: true, workflowId: testId('chat') });
    await waitUntil(run, 'the first answer', (e) => count('awaiting_message')(e) >= 1);
    expect((await run.snapshot()).status).toBe('awaiting_message');
    const sent: string[] = [];
    for (let i = 1; i <= 20; i++) {
      const text = `message ${i}`;
      sent.push(text);
      // Every other message goes out without waiting: it lands while the model answers the previous one.
      if (i % 2 === 0) await run.signalMessage({ text, by: 'user:1' });
      else expect(await run.send(text)).toMatchObject({ queued: expect.any(Number), turn: expect.any(Number) });
      if (i % 4 === 0) await waitUntil(run, `an answer to ${text}`, (e) => e.some((x) => x.type === 'text' && x.text.includes(text)));
    }
    await waitUntil(
      run,
      'the last answer',
      (e) => e.some((x) => x.type === 'text' && x.text.includes('message 20')) && e.at(-1)?.type === 'awaiting_message',
    );
    await run.end();
    const result = await run.result();
    expect(result.status).toBe('success');

    const events = await allEvents(run);
    const userMessages = events.filter((e): e is UserMessageEvent & { seq: number; at: string } => e.type === 'user_message');
    expect(userMessages.map((e) => e.text)).toEqual(sent);
    expect(userMessages.filter((e) => e.via === 'signal').every((e) => e.by === 'user:1')).toBe(true);
    // Each message is in the conversation exactly once, in the order sent.
    const said = result.messages
      .filter((m) => m.role === 'user')
      .flatMap((m) => m.content.filter((b) => b.type === 'text').map((b) => (b as { text: string }).text));
    expect(said).toEqual(['hello', ...sent]);
    // Steps are grouped by turn; turns never go backwards and the last one answered message 20.
    const turns = result.report.steps.map((s) => s.turn);
    expect(turns[0]).toBe(1);
    expect([...turns].sort((a, b) => a - b)).toEqual(turns);
    expect(result.finalText).toContain('message 20');
    expect(events.at(-1)).toMatchObject({ type: 'done', status: 'success' });
  });

  it('gives a message sent while a tool runs to the model at its next call, after the tool results', async () => {
    const run = await h.client.start('steered', { input: 'look up a', workflowId: testId('steer') });
    await waitUntil(run, 'the tool call', (e) => e.some((x) => x.type === 'tool_call'));
    await run.send('also check b, please');
    const result = await run.result();
    expect(result.status).toBe('success');
    expect(result.finalText).toBe('seen: also check b, please');
    // The results and the new text travel in one user message: the result still directly follows its call.
    const afterCall = result.messages.find((m) => m.role === 'user' && m.content.some((b) => b.type === 'tool_result'));
    expect(afterCall?.content.map((b) => b.type)).toEqual(['tool_result', 'text']);
  });

  it('send-or-start: two concurrent senders of a new conversation make one run that reads both', async () => {
    const conversation = testId('conv');
    const [a, b] = await Promise.all([
      h.client.send(conversation, { text: 'first sender', by: 'user:a' }, { agent: 'chat' }),
      h.client.send(conversation, { text: 'second sender', by: 'user:b' }, { agent: 'chat' }),
    ]);
    expect(a.workflowId).toBe(conversation);
    expect(b.workflowId).toBe(conversation);
    const events = await waitUntil(a, 'both messages', (e) => count('user_message')(e) >= 2 && e.at(-1)?.type === 'awaiting_message');
    expect(new Set(events.filter((e) => e.type === 'user_message').map((e) => (e as UserMessageEvent).by))).toEqual(
      new Set(['user:a', 'user:b']),
    );
    const runs = [];
    for await (const w of h.temporal.workflow.list({ query: `WorkflowId = '${conversation}'` })) runs.push(w.runId);
    expect(runs).toHaveLength(1);
    await a.end();
    expect((await a.result()).status).toBe('success');
  });

  it('ends by itself after its idle timeout', async () => {
    const run = await h.client.start('chat', { input: 'hello', session: { idleTimeout: '1s' }, workflowId: testId('idle') });
    const result = await run.result();
    expect(result.status).toBe('success');
    const waiting = (await allEvents(run)).find((e) => e.type === 'awaiting_message');
    expect(waiting).toMatchObject({ turn: 1, idleUntil: expect.any(String) });
  });

  it('refuses malformed messages with a reason, writing nothing; a malformed signal is a message_refused event', async () => {
    const run = await h.client.start('chat', { session: true, workflowId: testId('refuse') });
    await waitUntil(run, 'waiting for the first message', (e) => count('awaiting_message')(e) >= 1);
    const err = await run.send({ text: '' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MessageRefusedError);
    expect((err as Error).message).toBe('malformed message: text must be a non-empty string');
    await run.handle.signal('message', { txt: 'typo' });
    await waitUntil(run, 'the refusal', (e) => count('message_refused')(e) >= 1);
    expect(count('user_message')(await allEvents(run))).toBe(0);
    await run.end();
    const result = await run.result();
    expect(result.status).toBe('success');
    expect(result.steps).toBe(0);
  });

  it('a one-shot run answers a message that arrived during its step before ending', async () => {
    const run = await h.client.start('chat', { input: 'one', workflowId: testId('oneshot') });
    await waitUntil(run, 'the step', (e) => e.some((x) => x.type === 'step_started'));
    await run.send('two');
    const result = await run.result();
    expect(result.status).toBe('success');
    expect(result.finalText).toBe('re: two');
    expect(result.report.steps.map((s) => s.turn)).toEqual([1, 2]);
  });
});
