/**
 * Continue-as-new on the real dev server: a long run hands itself over to fresh executions at step
 * boundaries, and clients notice nothing — the same workflow id, one result covering every step, every
 * event exactly once across the boundaries, approvals for the rest of the run and queued messages kept.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../src/agents/define';
import { loadTranscript } from '../../src/client/transcript';
import type { AgentEvent } from '../../src/core/events/events';
import type { Message } from '../../src/core/messages/messages';
import { messageText } from '../../src/core/messages/messages';
import type { ModelRequest } from '../../src/core/output/native-output';
import type { ScriptedTurn } from '../../src/integrations/providers/scripted';
import { FileBlobStore } from '../../src/integrations/store/blob-store';
import { ScriptedAgents } from '../helpers/agents';
import type { Harness } from '../helpers/harness';
import { startHarness, testId } from '../helpers/harness';
import { allEvents, waitForPending } from '../helpers/events';
import { echo } from '../helpers/tools';

const STEPS = 40;
/** Echo a tool call each step until step STEPS, then answer. */
const loopScript = (request: ModelRequest): ScriptedTurn => {
  const answered = request.messages.filter((m) => m.role === 'assistant').length;
  return answered < STEPS
    ? { toolCalls: [{ name: 'echo', args: { text: `step ${answered + 1}` } }] }
    : { text: `done after ${answered} tool steps` };
};

const deployed: string[] = [];
const deploy = defineTool({
  name: 'deploy',
  description: 'Deploy a service',
  input: z.object({ n: z.number() }),
  needsApproval: true,
  execute: ({ n }) => {
    deployed.push(String(n));
    return `deployed ${n}`;
  },
});

const lastUserText = (messages: readonly Message[]) =>
  messageText([...messages].reverse().find((m) => m.role === 'user') ?? { role: 'user', content: [] });

const S = new ScriptedAgents();
S.add('long_loop', loopScript, { tools: [echo], maxSteps: 100, continueAsNewAfterEvents: 50 });
S.add('long_loop_reference', loopScript, { tools: [echo], maxSteps: 100 });
S.add(
  'deploys',
  (request: ModelRequest): ScriptedTurn => {
    const answered = request.messages.filter((m) => m.role === 'assistant').length;
    return answered < 12 ? { toolCalls: [{ name: 'deploy', args: { n: answered + 1 } }] } : { text: 'all deployed' };
  },
  { tools: [deploy], maxSteps: 50, continueAsNewAfterEvents: 50 },
);
// Echo steps with deploys between them: step 7's deploy is decided by update, step 13's by signal, and
// step 21's by a signal sent at the start of the run (queued, carried across every switch).
const LATE_DEPLOYS = [7, 13, 21];
S.add(
  'deploys_late',
  (request: ModelRequest): ScriptedTurn => {
    const step = request.messages.filter((m) => m.role === 'assistant').length + 1;
    if (step > 21) return { text: 'deployed late' };
    return LATE_DEPLOYS.includes(step)
      ? { toolCalls: [{ name: 'deploy', args: { n: step } }] }
      : { toolCalls: [{ name: 'echo', args: { text: `step ${step}` } }] };
  },
  { tools: [deploy, echo], maxSteps: 50, continueAsNewAfterEvents: 50 },
);
S.add('long_chat', (request: ModelRequest): ScriptedTurn => ({ text: `re: ${lastUserText(request.messages)}` }), {
  tools: [],
  maxSteps: 100,
  continueAsNewAfterEvents: 50,
});

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ agents: S.agents, providers: { scripted: S.provider } });
});
afterAll(async () => {
  await h?.stop();
});

async function executions(workflowId: string): Promise<string[]> {
  const statuses: string[] = [];
  for await (const w of h.temporal.workflow.list({ query: `WorkflowId = '${workflowId}'` })) statuses.push(w.status.name);
  return statuses;
}

describe('continue-as-new', () => {
  it('a 40-step run continues as new many times; its result, report and events cover every step exactly once', async () => {
    const run = await h.client.start('long_loop', { input: 'go', workflowId: testId('can') });
    const result = await run.result();
    const reference = await (await h.client.start('long_loop_reference', { input: 'go', workflowId: testId('can-ref') })).result();

    expect(result.status).toBe('success');
    expect(result.steps).toBe(STEPS + 1);
    expect(result.finalText).toBe(`done after ${STEPS} tool steps`);
    // The same usage and conversation as one execution doing it all.
    expect(result.usage).toEqual(reference.usage);
    expect(result.report.stepsOmitted + result.report.steps.length).toBe(STEPS + 1);
    expect(result.report.toolCallsOmitted + result.report.toolCalls.length).toBe(STEPS);
    const transcript = await loadTranscript(new FileBlobStore(h.storeDir), result);
    expect(transcript).toEqual(await loadTranscript(new FileBlobStore(h.storeDir), reference));
    expect(transcript).toHaveLength(2 + 2 * STEPS);

    const runs = await executions(run.workflowId);
    expect(runs.length).toBeGreaterThan(4);
    expect(runs.filter((s) => s === 'CONTINUED_AS_NEW')).toHaveLength(runs.length - 1);

    const events = await allEvents(run);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i));
    expect(events.filter((e) => e.type === 'run_started')).toHaveLength(1);
    // Each switch names the execution it starts: the second, the third…
    expect(events.flatMap((e) => (e.type === 'continued_as_new' ? [e.execution] : []))).toEqual(runs.slice(1).map((_, i) => i + 2));
    expect(events.filter((e) => e.type === 'step_finished')).toHaveLength(STEPS + 1);
    expect(events.filter((e) => e.type === 'tool_result')).toHaveLength(STEPS);
    expect(events.at(-1)).toMatchObject({ type: 'done', status: 'success', steps: STEPS + 1 });

    // events() follows the run across every boundary too.
    const streamed: number[] = [];
    for await (const e of run.events()) streamed.push(e.seq);
    expect(streamed).toEqual(events.map((e) => e.seq));
  });

  it('keeps "approve all calls of this tool" across executions', async () => {
    const run = await h.client.start('deploys', { input: 'deploy everything', workflowId: testId('can-approve') });
    const pending = await waitForPending(run);
    await run.decide({ callId: pending[0]!.callId, decision: 'approve', by: 'ops:alice', scope: 'tool' });
    const result = await run.result();
    expect(result.status).toBe('success');
    expect(result.steps).toBe(13);
    expect((await executions(run.workflowId)).length).toBeGreaterThan(1);
    const events = await allEvents(run);
    expect(events.filter((e) => e.type === 'approval_requested')).toHaveLength(1);
    expect(events.filter((e) => e.type === 'tool_result' && !e.isError)).toHaveLength(12);
  });

  it('approvals asked after a switch are decided by update and by signal; a decision queued before the switches applies after them', async () => {
    const deployedBefore = deployed.length;
    const run = await h.client.start('deploys_late', { input: 'deploy late', workflowId: testId('can-late') });
    // Call ids are call_<step>_<index>: decide step 21's deploy now, long before the run reaches it.
    await run.signalDecision({ callId: 'call_21_0', decision: 'approve', by: 'ops:early' });
    const first = await waitForPending(run);
    expect(first.map((p) => p.callId)).toEqual(['call_7_0']);
    await run.decide({ callId: 'call_7_0', decision: 'approve', by: 'ops:alice' });
    let second = await waitForPending(run);
    for (let i = 0; i < 200 && second[0]?.callId === 'call_7_0'; i++) second = await waitForPending(run);
    expect(second.map((p) => p.callId)).toEqual(['call_13_0']);
    await run.signalDecision({ callId: 'call_13_0', decision: 'approve', by: 'ops:bob' });
    const result = await run.result();
    expect(result.status).toBe('success');
    expect(result.finalText).toBe('deployed late');

    const events = await allEvents(run);
    const at = (pred: (e: AgentEvent) => boolean) => events.findIndex(pred);
    const asked = (callId: string) => at((e) => e.type === 'approval_requested' && e.callId === callId);
    const switches = events.flatMap((e, i) => (e.type === 'continued_as_new' ? [i] : []));
    // The run switched before step 7 asked, again between 7 and 13, and again before 21.
    expect(switches.some((i) => i < asked('call_7_0'))).toBe(true);
    expect(switches.some((i) => i > asked('call_7_0') && i < asked('call_13_0'))).toBe(true);
    expect(switches.some((i) => i > asked('call_13_0') && i < asked('call_21_0'))).toBe(true);
    expect(events.filter((e) => e.type === 'approval_queued')).toMatchObject([{ callId: 'call_21_0' }]);
    expect(events.filter((e) => e.type === 'approval_decided').map((e) => e.type === 'approval_decided' && [e.callId, e.by])).toEqual([
      ['call_7_0', 'ops:alice'],
      ['call_13_0', 'ops:bob'],
      ['call_21_0', 'ops:early'],
    ]);
    // Each deploy ran once, none was refused or lost.
    expect(events.filter((e) => e.type === 'approval_refused')).toEqual([]);
    expect(result.report.toolCalls.filter((c) => c.tool === 'deploy').map((c) => [c.args, c.isError])).toEqual(
      LATE_DEPLOYS.map((n) => [{ n }, false]),
    );
    expect(deployed.slice(deployedBefore)).toEqual(LATE_DEPLOYS.map(String));
  });

  it('messages signalled while a long run continues as new reach the model, each once, in order', async () => {
    const run = await h.client.start('long_loop', { input: 'go', workflowId: testId('can-inbox') });
    const sent: string[] = [];
    for (let i = 1; i <= 8; i++) {
      sent.push(`note ${i}`);
      await run.signalMessage({ text: `note ${i}`, by: 'user:1' });
      await new Promise((r) => setTimeout(r, 150));
    }
    const result = await run.result();
    expect(result.status).toBe('success');
    const events = await allEvents(run);
    expect(events.filter((e) => e.type === 'continued_as_new').length).toBeGreaterThan(2);
    // The messages came in over several executions: a switch happened between the first and the last.
    const arrivals = events.flatMap((e, i) => (e.type === 'user_message' ? [i] : []));
    const [firstIn, lastIn] = [arrivals[0], arrivals.at(-1)];
    expect(events.slice(firstIn, lastIn).some((e) => e.type === 'continued_as_new')).toBe(true);
    expect(events.filter((e) => e.type === 'user_message').map((e) => e.type === 'user_message' && e.text)).toEqual(sent);
    const transcript = await loadTranscript(new FileBlobStore(h.storeDir), result);
    const said = transcript.filter((m) => m.role === 'user').flatMap((m) => m.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])));
    expect(said).toEqual(['go', ...sent]);
  });

  it('a session goes on across executions, every message answered once', async () => {
    const run = await h.client.start('long_chat', { input: 'hello', session: true, workflowId: testId('can-chat') });
    // Follow the events from a cursor (only new ones are read each time).
    let cursor = 0;
    const seen: AgentEvent[] = [];
    for (let i = 1; i <= 15; i++) {
      await run.send(`message ${i}`);
      for (let j = 0; j < 400 && !seen.some((e) => e.type === 'text' && e.text === `re: message ${i}`); j++) {
        const page = await run.readEvents(cursor);
        seen.push(...page.events);
        cursor = page.next;
        if (page.events.length === 0) await new Promise((r) => setTimeout(r, 25));
      }
    }
    await run.end();
    const result = await run.result();
    expect(result.status).toBe('success');
    expect(result.finalText).toBe('re: message 15');
    expect((await executions(run.workflowId)).length).toBeGreaterThan(1);
    const events = await allEvents(run);
    expect(events.filter((e) => e.type === 'user_message').map((e) => (e as { text: string }).text)).toEqual(
      Array.from({ length: 15 }, (_, i) => `message ${i + 1}`),
    );
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i));
  });
});
