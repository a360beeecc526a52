/** `durable-agent send` and `end`: talking to a running session from the command line, on the real dev server. */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { STARTED_BY_MEMO } from '../../src/core/run/definition';
import type { Message } from '../../src/core/messages/messages';
import { messageText } from '../../src/core/messages/messages';
import type { ModelRequest } from '../../src/core/output/native-output';
import type { ScriptedTurn } from '../../src/integrations/providers/scripted';
import { ScriptedAgents } from '../helpers/agents';
import { runCli, soleError, tempHome } from '../helpers/cli-run';
import type { Harness } from '../helpers/harness';
import { startHarness } from '../helpers/harness';

const home = tempHome();
const address = inject('temporalAddress');

const lastUserText = (messages: readonly Message[]) =>
  messageText([...messages].reverse().find((m) => m.role === 'user') ?? { role: 'user', content: [] });
const S = new ScriptedAgents();
S.add('cli_chat', (request: ModelRequest): ScriptedTurn => ({ text: `re: ${lastUserText(request.messages)}` }), { tools: [] });

let h: Harness;
const cli = (args: string[]) => runCli([...args, '--address', address], { home });
beforeAll(async () => {
  h = await startHarness({ agents: S.agents, providers: { scripted: S.provider } });
});
afterAll(async () => {
  await h?.stop();
});

async function waitForEvent(workflowId: string, pred: (e: { type: string; text?: string }) => boolean): Promise<void> {
  const run = h.client.get(workflowId);
  for (let i = 0; i < 200; i++) {
    if ((await run.readEvents(0)).events.some((e) => pred(e as { type: string; text?: string }))) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${workflowId}: event not seen`);
}

describe('durable-agent send / end', () => {
  it('send delivers a message to a session (validated, with its turn); end ends it', async () => {
    const workflowId = `cli-chat-${randomUUID().slice(0, 8)}`;
    await h.client.start('cli_chat', { input: 'hello', session: true, workflowId });
    await waitForEvent(workflowId, (e) => e.type === 'awaiting_message');
    const sent = await cli(['send', workflowId, 'how', 'are', 'you?', '--by', 'user:7']);
    expect(sent.stderr).toBe('');
    expect(sent.code).toBe(0);
    expect(sent.stdout).toContain(`sent to ${workflowId}: turn 2`);
    await waitForEvent(workflowId, (e) => e.type === 'text' && e.text === 're: how are you?');
    const ended = await cli(['end', workflowId]);
    expect(ended.code).toBe(0);
    const result = await h.client.get(workflowId).result();
    expect(result.status).toBe('success');
    expect(result.finalText).toBe('re: how are you?');
    expect(soleError(await cli(['send', workflowId, 'too late']))).toMatch(
      new RegExp(`^error: run "${workflowId}" has already ended \\(completed\\)`),
    );
  });

  it('send --agent starts the session of a new conversation (send-or-start)', async () => {
    const conversation = `cli-conv-${randomUUID().slice(0, 8)}`;
    const r = await cli(['send', conversation, 'first words', '--agent', 'cli_chat', '--task-queue', h.taskQueue]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`sent to ${conversation}`);
    await waitForEvent(conversation, (e) => e.type === 'text' && e.text === 're: first words');
    await h.client.get(conversation).end();
    expect((await h.client.get(conversation).result()).status).toBe('success');
  });

  it('send --agent --by records the writer as the starter of a session it starts', async () => {
    const conversation = `cli-conv-by-${randomUUID().slice(0, 8)}`;
    const r = await cli(['send', conversation, 'first words', '--agent', 'cli_chat', '--by', 'user:9', '--task-queue', h.taskQueue]);
    expect(r.code, r.stderr).toBe(0);
    expect((await h.temporal.workflow.getHandle(conversation).describe()).memo).toMatchObject({ [STARTED_BY_MEMO]: 'user:9' });
    await h.client.get(conversation).end();
    expect((await h.client.get(conversation).result()).status).toBe('success');
  });

  it('the real `temporal` CLI talks to a session too: signal message delivers one, signal end ends it', async () => {
    const workflowId = `temporal-chat-${randomUUID().slice(0, 8)}`;
    await h.client.start('cli_chat', { input: 'hello', session: true, workflowId });
    await waitForEvent(workflowId, (e) => e.type === 'awaiting_message');
    const temporal = inject('temporalCliPath');
    const common = ['workflow', 'signal', '--address', address, '--workflow-id', workflowId];
    await promisify(execFile)(temporal, [
      ...common,
      '--name',
      'message',
      '--input',
      JSON.stringify({ text: 'from the terminal', by: 'user:cli' }),
    ]);
    await waitForEvent(workflowId, (e) => e.type === 'text' && e.text === 're: from the terminal');
    await promisify(execFile)(temporal, [...common, '--name', 'end']);
    const result = await h.client.get(workflowId).result();
    expect(result.status).toBe('success');
    expect(result.report.steps.map((s) => s.turn)).toEqual([1, 2]);
    const events = (await h.client.get(workflowId).readEvents(0)).events;
    expect(events.filter((e) => e.type === 'user_message')).toMatchObject([
      { text: 'from the terminal', by: 'user:cli', via: 'signal', turn: 2 },
    ]);
  });

  it('an empty message is one error line', async () => {
    expect(soleError(await cli(['send', 'whatever', ' ']))).toBe('error: malformed message: text must be a non-empty string');
  });
});
