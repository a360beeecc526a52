/** The built-in `wait` tool on the real dev server: a durable timer, no activity, woken early by a message. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitTool } from '../../src/agents/wait';
import type { AgentEvent } from '../../src/core/events/events';
import { ScriptedAgents } from '../helpers/agents';
import type { Harness } from '../helpers/harness';
import { startHarness, testId } from '../helpers/harness';

const S = new ScriptedAgents();
S.add('waits', [{ toolCalls: [{ name: 'wait', args: { seconds: 1.5 } }] }, { text: 'done waiting' }], { tools: [waitTool()] });
S.add('waits_long', [{ toolCalls: [{ name: 'wait', args: { seconds: 600 } }] }, { text: 'woken' }], { tools: [waitTool()] });
S.add('waits_badly', [{ toolCalls: [{ name: 'wait', args: { seconds: -1 } }] }, { text: 'ok' }], { tools: [waitTool()] });

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ agents: S.agents, providers: { scripted: S.provider } });
});
afterAll(async () => {
  await h?.stop();
});

describe('the wait tool', () => {
  it('sleeps on a workflow timer, with no activity, and tells the model how long', async () => {
    const started = Date.now();
    const run = await h.client.start('waits', { input: 'wait a bit', workflowId: testId('wait') });
    const result = await run.result();
    expect(result.status).toBe('success');
    expect(Date.now() - started).toBeGreaterThanOrEqual(1500);
    expect(result.report.toolCalls).toMatchObject([{ tool: 'wait', isError: false }]);
    const history = (await run.handle.fetchHistory()).events ?? [];
    const timer = history.find((e) => e.timerStartedEventAttributes)?.timerStartedEventAttributes?.startToFireTimeout;
    expect({ seconds: Number(timer?.seconds), nanos: timer?.nanos }).toEqual({ seconds: 1, nanos: 500_000_000 });
    expect(history.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'runTool')).toEqual([]);
    const results = result.messages.flatMap((m) => (m.role === 'user' ? m.content : [])).filter((b) => b.type === 'tool_result');
    // It reports the time it waited: the 1.5 s timer, or more on a loaded machine (a timer never fires early).
    expect(results).toMatchObject([{ output: { type: 'text', text: expect.stringMatching(/^Waited \d+\.\d s\.$/) } }]);
    const waited = results[0]?.type === 'tool_result' && results[0].output.type === 'text' ? results[0].output.text : '';
    expect(Number(/([\d.]+) s/.exec(waited)?.[1])).toBeGreaterThanOrEqual(1.5);
  });

  it('wakes early when someone sends a message, and the model reads it', async () => {
    const run = await h.client.start('waits_long', { input: 'wait for me', workflowId: testId('wake') });
    for (let i = 0; i < 200 && !(await run.snapshot()).runningTools.some((t) => t.tool === 'wait'); i++)
      await new Promise((r) => setTimeout(r, 50));
    await run.send('I am here');
    const result = await run.result();
    expect(result.status).toBe('success');
    const events = (await run.readEvents(0)).events;
    const toolResult = events.find((e): e is Extract<AgentEvent, { type: 'tool_result' }> => e.type === 'tool_result');
    expect(toolResult?.preview).toMatch(/^Woke after .* of 10 min: a new message arrived\.$/);
    const lastUser = result.messages.filter((m) => m.role === 'user').at(-1);
    expect(lastUser?.content.map((b) => b.type)).toEqual(['tool_result', 'text']);
  });

  it('answers bad arguments with an error result, waiting for nothing', async () => {
    const result = await (await h.client.start('waits_badly', { input: 'x', workflowId: testId('wait-bad') })).result();
    expect(result.status).toBe('success');
    expect(result.report.toolCalls[0]).toMatchObject({
      isError: true,
      error: expect.stringMatching(/"seconds" must be a positive number/),
    });
  });
});
