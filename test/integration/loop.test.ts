/** The agent loop end to end on the real dev server: one worker for the file, scripted models. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/core/events/events';
import type { ToolResultBlock, ToolUseBlock } from '../../src/core/messages/messages';
import { ScriptedAgents } from '../helpers/agents';
import type { Harness } from '../helpers/harness';
import { startHarness, testId } from '../helpers/harness';
import { boomCount, executions } from '../helpers/tools';
import { loadTranscript } from '../../src/client/transcript';
import { historyText } from '../helpers/history';
import { FileBlobStore } from '../../src/integrations/store/blob-store';

const S = new ScriptedAgents();
S.add('plain', [{ text: 'Hello! How can I help?' }]);
S.add('one_tool', [{ text: 'Echoing.', toolCalls: [{ name: 'echo', args: { text: 'ping' } }] }, { text: 'The echo said ping.' }]);
S.add('several', [
  { toolCalls: [{ name: 'echo', args: { text: 'a' } }] },
  { toolCalls: [{ name: 'echo', args: { text: 'b' } }] },
  { toolCalls: [{ name: 'echo', args: { text: 'c' } }] },
  { text: 'done after three tools' },
]);
S.add('parallel', [
  {
    toolCalls: [
      { name: 'slow_read', args: { key: 'first', ms: 1500 } },
      { name: 'slow_read', args: { key: 'second', ms: 200 } },
      { name: 'slow_read', args: { key: 'third', ms: 700 } },
    ],
  },
  { text: 'read all three' },
]);
S.add('serial', [
  {
    toolCalls: [
      { name: 'slow_write', args: { key: 'w1', ms: 600 } },
      { name: 'slow_write', args: { key: 'w2', ms: 100 } },
      { name: 'slow_write', args: { key: 'w3', ms: 300 } },
    ],
  },
  { text: 'wrote all three' },
]);
S.add('throws', [{ toolCalls: [{ name: 'boom', args: {} }] }, { text: 'the tool failed, sorry' }]);
S.add('fatal', [{ toolCalls: [{ name: 'fatal_boom', args: {} }] }, { text: 'never reached' }]);
S.add('unknown', [{ toolCalls: [{ name: 'teleport', args: { to: 'mars' } }] }, { text: 'no teleport' }]);
S.add('invalid', [
  { toolCalls: [{ name: 'typed', args: { count: -2, colour: 'blue' } }] },
  { toolCalls: [{ name: 'typed', args: { count: 2, colour: 'red' } }] },
  { text: 'fixed it' },
]);
S.add('loops', () => ({ toolCalls: [{ name: 'echo', args: { text: 'again' } }] }), { maxSteps: 4 });
S.add('bad_key', [
  { failures: [{ message: 'invalid x-api-key', kind: 'authentication', status: 401, type: 'authentication_error', retryable: false }] },
]);
S.add('flaky', [
  { text: 'worked on the second try', failures: [{ message: 'Overloaded', kind: 'overloaded', status: 529, type: 'overloaded_error' }] },
]);
S.add('always_down', [{ failures: [1, 2, 3].map(() => ({ message: 'Internal server error', kind: 'server' as const, status: 500 })) }]);
S.add('cancel_me', [
  {
    toolCalls: [
      { name: 'echo', args: { text: 'quick' } },
      { name: 'wait_forever', args: {} },
      { name: 'echo', args: { text: 'after' } },
    ],
  },
  { text: 'never reached' },
]);
S.add('truncated', [
  {
    text: 'Let me write the file',
    stopReason: 'max_tokens',
    toolCalls: [
      { name: 'slow_write', args: { key: 'complete', ms: 1 } },
      { name: 'slow_write', args: { key: 'trunc' }, incomplete: true },
    ],
  },
]);
// The same cut-off answer, by an agent that recovers: it is asked to continue, and finishes.
S.add(
  'recovers',
  [
    {
      text: 'Let me write the file',
      stopReason: 'max_tokens',
      toolCalls: [
        { name: 'slow_write', args: { key: 'complete', ms: 1 } },
        { name: 'slow_write', args: { key: 'trunc' }, incomplete: true },
      ],
    },
    { text: 'and here is the rest', stopReason: 'max_tokens' },
    { text: 'done, at last' },
  ],
  { maxTokensRecoveries: 2 },
);
/** Output limits the raising agent's calls were made with. */
const limitsSeen: number[] = [];
S.add(
  'recovers_raised',
  (request, ctx) => {
    limitsSeen.push(request.maxTokens);
    return ctx.step === 1 ? { text: 'cut', stopReason: 'max_tokens' } : { text: 'finished with room to spare' };
  },
  { model: { provider: 'scripted', model: 'recovers_raised', maxTokens: 1000 }, maxTokensRecoveries: 1, recoveryMaxTokens: 16_000 },
);
S.add('recovers_once', [{ text: 'cut', stopReason: 'max_tokens' }, { text: 'cut again', stopReason: 'max_tokens' }, { text: 'never' }], {
  maxTokensRecoveries: 1,
});
S.add('big_output', [{ toolCalls: [{ name: 'big', args: { kb: 64 } }] }, { text: 'got it' }]);
S.add('long_talk', () => ({ text: 'x'.repeat(300), toolCalls: [{ name: 'echo', args: { text: 'y'.repeat(300) } }] }), {
  maxSteps: 6,
  resultMessagesInlineBytes: 2000,
});

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ agents: S.agents, providers: { scripted: S.provider } });
});
afterAll(async () => {
  await h?.stop();
});

async function run(agent: string, input = 'go', maxSteps?: number) {
  const r = await h.client.start(agent, { input, workflowId: testId(agent), ...(maxSteps ? { maxSteps } : {}) });
  return { run: r, result: await r.result() };
}

async function allEvents(r: Awaited<ReturnType<typeof run>>['run']): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  for await (const e of r.events()) events.push(e);
  return events;
}

function toolResults(messages: { role: string; content: { type: string }[] }[]): ToolResultBlock[] {
  return messages.flatMap((m) => m.content.filter((b): b is ToolResultBlock => b.type === 'tool_result'));
}

function resultText(b: ToolResultBlock): string {
  return b.output.type === 'text' ? b.output.text : b.output.preview;
}

describe('agent loop on a real Temporal server', () => {
  it('returns a plain answer in one step', async () => {
    const { run: r, result } = await run('plain', 'hi');
    expect(result.status).toBe('success');
    expect(result.finalText).toBe('Hello! How can I help?');
    expect(result.steps).toBe(1);
    expect(result.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'hi' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'Hello! How can I help?' }] },
    ]);
    expect(result.usage.outputTokens).toBeGreaterThan(0);
    expect(result.report.steps).toHaveLength(1);
    expect(result.report.steps[0]).toMatchObject({ step: 1, provider: 'scripted', model: 'plain', stopReason: 'end_turn', attempts: 1 });
    const events = await allEvents(r);
    expect(events.map((e) => e.type)).toEqual(['run_started', 'step_started', 'text', 'step_finished', 'done']);
    expect(events.map((e) => e.seq)).toEqual([0, 1, 2, 3, 4]);
  });

  it('runs one tool cycle and feeds the result back', async () => {
    const { run: r, result } = await run('one_tool');
    expect(result.status).toBe('success');
    expect(result.steps).toBe(2);
    expect(result.messages).toHaveLength(4);
    const [res] = toolResults(result.messages);
    expect(res).toMatchObject({ toolUseId: 'call_1_0', isError: false, output: { type: 'text', text: 'ping' } });
    expect(result.report.toolCalls).toEqual([
      expect.objectContaining({
        step: 1,
        callId: 'call_1_0',
        tool: 'echo',
        args: { text: 'ping' },
        resultBytes: 4,
        isError: false,
        attempts: 1,
      }),
    ]);
    const types = (await allEvents(r)).map((e) => e.type);
    expect(types).toEqual([
      'run_started',
      'step_started',
      'text',
      'step_finished',
      'tool_call',
      'tool_started',
      'tool_result',
      'step_started',
      'text',
      'step_finished',
      'done',
    ]);
  });

  it('runs several steps', async () => {
    const { result } = await run('several');
    expect(result.status).toBe('success');
    expect(result.steps).toBe(4);
    expect(toolResults(result.messages).map(resultText)).toEqual(['a', 'b', 'c']);
    expect(result.finalText).toBe('done after three tools');
  });

  it('runs read-only calls in parallel and keeps results in call order', async () => {
    const { result } = await run('parallel');
    const mine = executions.filter((e) => e.tool === 'slow_read' && result.report.toolCalls.some((c) => c.callId === e.callId));
    expect(mine).toHaveLength(3);
    // All three overlapped: each started before any of them ended.
    const firstEnd = Math.min(...mine.map((e) => e.end));
    for (const e of mine) expect(e.start).toBeLessThan(firstEnd);
    // The slowest was called first, yet results are in call order.
    expect(toolResults(result.messages).map(resultText)).toEqual(['value of first', 'value of second', 'value of third']);
    expect(toolResults(result.messages).map((b) => b.toolUseId)).toEqual(['call_1_0', 'call_1_1', 'call_1_2']);
  });

  it('runs calls that are not read-only one at a time, in order', async () => {
    const { result } = await run('serial');
    const ids = result.report.toolCalls.map((c) => c.callId);
    const mine = ids.map((id) => executions.find((e) => e.callId === id && e.tool === 'slow_write'));
    expect(mine.every(Boolean)).toBe(true);
    for (let i = 1; i < mine.length; i++) expect(mine[i]!.start).toBeGreaterThanOrEqual(mine[i - 1]!.end);
    expect(toolResults(result.messages).map(resultText)).toEqual(['wrote w1', 'wrote w2', 'wrote w3']);
  });

  it('feeds a throwing tool back to the model as an error after its retries', async () => {
    const before = boomCount();
    const { result } = await run('throws');
    expect(result.status).toBe('success');
    expect(boomCount() - before).toBe(2);
    const [res] = toolResults(result.messages);
    expect(res!.isError).toBe(true);
    expect(resultText(res!)).toContain('disk on fire');
    expect(result.report.toolCalls[0]).toMatchObject({ isError: true, attempts: 2 });
    expect(result.finalText).toBe('the tool failed, sorry');
  });

  it('ends the run with tool_error when a fatal tool fails', async () => {
    const { result } = await run('fatal');
    expect(result.status).toBe('tool_error');
    expect(result.error?.message).toContain('payment gateway rejected the charge');
    expect(result.steps).toBe(1);
    expect(toolResults(result.messages)).toHaveLength(1);
  });

  it('answers an unknown tool with an error result listing the real tools', async () => {
    const { result } = await run('unknown');
    expect(result.status).toBe('success');
    const [res] = toolResults(result.messages);
    expect(res!.isError).toBe(true);
    expect(resultText(res!)).toMatch(/Unknown tool "teleport"\. Available tools: echo, slow_read/);
  });

  it('answers invalid arguments with the validation message, and the model can correct them', async () => {
    const { result } = await run('invalid');
    expect(result.status).toBe('success');
    const [bad, good] = toolResults(result.messages);
    expect(bad!.isError).toBe(true);
    expect(resultText(bad!)).toContain('Invalid arguments for tool "typed"');
    expect(resultText(bad!)).toMatch(/count/);
    expect(resultText(bad!)).toMatch(/colour/);
    expect(good!.isError).toBe(false);
    expect(JSON.parse(resultText(good!))).toEqual({ count: 2, colour: 'red' });
  });

  it('stops at the step cap with every call answered', async () => {
    const { result } = await run('loops');
    expect(result.status).toBe('max_steps');
    expect(result.steps).toBe(4);
    expect(toolResults(result.messages)).toHaveLength(4);
    const lowered = await run('loops', 'go', 2);
    expect(lowered.result.status).toBe('max_steps');
    expect(lowered.result.steps).toBe(2);
  });

  it('ends with provider_error on a non-retryable model error, without retrying', async () => {
    const { run: r, result } = await run('bad_key');
    expect(result.status).toBe('provider_error');
    expect(result.error).toEqual({ message: 'invalid x-api-key', type: 'authentication_error' });
    expect((await allEvents(r)).filter((e) => e.type === 'retrying')).toHaveLength(0);
  });

  it('retries a retryable model failure and succeeds, reporting the retry', async () => {
    const { run: r, result } = await run('flaky');
    expect(result.status).toBe('success');
    expect(result.finalText).toBe('worked on the second try');
    expect(result.report.steps[0]!.attempts).toBe(2);
    const retrying = (await allEvents(r)).filter((e) => e.type === 'retrying');
    expect(retrying).toEqual([
      expect.objectContaining({ step: 1, attempt: 1, error: 'Overloaded', errorType: 'overloaded_error', delayMs: 50 }),
    ]);
    // The failed attempt left nothing in the transcript and no usage.
    expect(result.messages).toHaveLength(2);
  });

  it('gives up with provider_error when retries run out', async () => {
    const { result } = await run('always_down');
    expect(result.status).toBe('provider_error');
    expect(result.error?.message).toBe('Internal server error');
  });

  it('cancels mid-tool: in-flight tool aborted, every call answered, status cancelled', async () => {
    const r = await h.client.start('cancel_me', { input: 'go', workflowId: testId('cancel_me') });
    for (let i = 0; i < 100; i++) {
      const s = await r.snapshot();
      if (s.runningTools.some((t) => t.tool === 'wait_forever')) break;
      await new Promise((res) => setTimeout(res, 100));
    }
    await new Promise((res) => setTimeout(res, 300));
    await r.cancel();
    const result = await r.result();
    expect(result.status).toBe('cancelled');
    const results = toolResults(result.messages);
    expect(results.map((b) => b.toolUseId)).toEqual(['call_1_0', 'call_1_1', 'call_1_2']);
    expect(results[0]).toMatchObject({ isError: false, output: { text: 'quick' } });
    expect(results[1]!.isError).toBe(true);
    expect(resultText(results[1]!)).toMatch(/cancelled/);
    expect(results[2]!.isError).toBe(true);
    // The tool saw the cancellation through its abort signal.
    const waited = executions.find((e) => e.tool === 'wait_forever' && e.callId === 'call_1_1' && e.end > 0);
    expect(waited?.aborted).toBe(true);
    const events = await allEvents(r);
    expect(events.at(-1)).toMatchObject({ type: 'done', status: 'cancelled' });
  });

  it('never executes a tool call cut off by max_tokens', async () => {
    const { result } = await run('truncated');
    expect(result.status).toBe('max_tokens');
    const assistant = result.messages[1]!;
    const uses = assistant.content.filter((b): b is ToolUseBlock => b.type === 'tool_use');
    expect(uses.map((u) => u.input)).toEqual([{ key: 'complete', ms: 1 }]);
    const results = toolResults(result.messages);
    expect(results).toHaveLength(1);
    expect(results[0]!.isError).toBe(true);
    expect(resultText(results[0]!)).toMatch(/Not executed/);
    expect(result.report.toolCalls.every((c) => c.latencyMs === 0)).toBe(true);
    expect(
      executions.some(
        (e) =>
          result.report.toolCalls.some((c) => c.callId === e.callId) && e.tool === 'slow_write' && e.start > 0 && e.callId === 'call_1_1',
      ),
    ).toBe(false);
  });

  it('with maxTokensRecoveries, a cut-off answer gets a "continue" turn (its calls still never run), up to the limit', async () => {
    const writesBefore = executions.filter((e) => e.tool === 'slow_write').length;
    const { result } = await run('recovers');
    expect(result.status).toBe('success');
    // The whole answer: every continued part, joined where each stopped.
    expect(result.finalText).toBe('Let me write the fileand here is the restdone, at last');
    expect(result.steps).toBe(3);
    const continues = result.messages.filter(
      (m) => m.role === 'user' && m.content.some((b) => b.type === 'text' && b.text.startsWith('Your last answer was cut off')),
    );
    expect(continues).toHaveLength(2);
    // The first continue travels with the closed call's result, after it.
    expect(continues[0]!.content.map((b) => b.type)).toEqual(['tool_result', 'text']);
    expect(result.report.toolCalls).toMatchObject([{ tool: 'slow_write', isError: true, attempts: 0 }]);
    // Nothing was written while this run ran (no other run of this file is in flight).
    expect(executions.filter((e) => e.tool === 'slow_write')).toHaveLength(writesBefore);

    const { result: limited } = await run('recovers_once');
    expect(limited.status).toBe('max_tokens');
    expect(limited.steps).toBe(2);
  });

  it('with recoveryMaxTokens, the calls after a cut-off answer may write more', async () => {
    const { result } = await run('recovers_raised');
    expect(result.status).toBe('success');
    expect(limitsSeen).toEqual([1000, 16_000]);
  });

  it('ends a run of an unknown agent with a typed result and a clear error', async () => {
    const r = await h.client.start('no_such_agent', { input: 'hi', workflowId: testId('nope') });
    const result = await r.result();
    expect(result.status).toBe('invalid_input');
    expect(result.error?.type).toBe('UnknownAgent');
    expect(result.error?.message).toMatch(/Unknown agent "no_such_agent"\. Agents on this worker: plain/);
    const events = await r.readEvents(0);
    expect(events.events.at(-1)).toMatchObject({ type: 'done', status: 'invalid_input' });
    expect((await r.snapshot()).status).toBe('invalid_input');
  });

  it('keeps large tool outputs out of history, by reference', async () => {
    const { run: r, result } = await run('big_output');
    const [res] = toolResults(result.messages);
    expect(res!.output.type).toBe('stored');
    expect(result.report.toolCalls[0]).toMatchObject({ stored: true, resultBytes: 64 * 1024 });
    const history = await historyText(r.handle);
    // The scan really reads payloads: the small tool output of the next step's input is there.
    expect(history).toContain('got it');
    expect(history).not.toContain('END-OF-BLOB!');
    expect((await r.handle.describe()).historySize).toBeLessThan(40_000);
  });

  it('keeps the result small on long runs; the store has the whole transcript', async () => {
    const { result } = await run('long_talk');
    expect(result.status).toBe('max_steps');
    const full = await loadTranscript(new FileBlobStore(h.storeDir), result);
    // prompt + 6 × (assistant + tool results), the last tool results included
    expect(full).toHaveLength(13);
    expect(full.at(-1)!.role).toBe('user');
    expect(result.messagesOmitted).toBeGreaterThan(0);
    expect(result.messagesOmitted + result.messages.length).toBe(13);
    expect(JSON.stringify(result.messages).length).toBeLessThanOrEqual(2000);
    expect(full.slice(result.messagesOmitted)).toEqual(result.messages);
  });
});
