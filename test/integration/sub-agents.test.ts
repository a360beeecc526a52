/**
 * Sub-agents as child workflows on the real dev server: an agent tool's call runs the agent as a child
 * (its answer is the result, its usage rolls up), approvals inside the child decided through the parent
 * and from the inbox, cancellation reaching the child, the parent's stream following the child, a failing
 * child, and `chain(a, b)`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { agentTool } from '../../src/agents/agent-tool';
import { chain } from '../../src/agents/chain';
import type { AgentRun } from '../../src/client';
import type { ChildAgentEvent } from '../../src/client/child-events';
import type { AgentEvent } from '../../src/core/events/events';
import type { ToolResultBlock } from '../../src/core/messages/messages';
import { messageText, outputText } from '../../src/core/messages/messages';
import type { ChildPendingApproval } from '../../src/core/sub-agents/sub-agent';
import { ScriptedAgents } from '../helpers/agents';
import { allEvents, resultWithin, waitForPending } from '../helpers/events';
import type { Harness } from '../helpers/harness';
import { startHarness, testId } from '../helpers/harness';
import { echo } from '../helpers/tools';
import { launch } from '../fixtures/sub-agents';

const S = new ScriptedAgents();
const researcher = S.add('sa_researcher', [{ text: 'Paris has 2.1 million people.', usage: { inputTokens: 100, outputTokens: 20 } }], {
  tools: [echo],
});
S.add(
  'sa_parent',
  [
    {
      toolCalls: [{ name: 'sa_researcher', args: { input: 'How many people live in Paris?' } }],
      usage: { inputTokens: 10, outputTokens: 5 },
    },
    { text: 'About 2.1 million.', usage: { inputTokens: 30, outputTokens: 6 } },
  ],
  {
    tools: [agentTool(researcher, { description: 'Research a question' })],
  },
);
const launcher = S.add('sa_launcher', [{ toolCalls: [{ name: 'launch', args: { rocket: 'r1' } }] }, { text: 'rocket launched' }], {
  tools: [launch],
});
for (const name of ['sa_mission', 'sa_mission_inbox', 'sa_mission_cancel']) {
  S.add(name, [{ toolCalls: [{ name: 'sa_launcher', args: { input: 'launch r1' } }] }, { text: 'mission over' }], {
    tools: [agentTool(launcher)],
  });
}
const looper = S.add('sa_looper', [{ toolCalls: [{ name: 'echo', args: { text: 'again' } }] }], { tools: [echo], maxSteps: 1 });
S.add('sa_boss', [{ toolCalls: [{ name: 'ask_looper', args: { input: 'loop' } }] }, { text: 'the helper failed' }], {
  tools: [agentTool(looper, { name: 'ask_looper' })],
});
S.add('sa_bad_args', [{ toolCalls: [{ name: 'sa_researcher', args: { question: 'no input field' } }] }, { text: 'ok' }], {
  tools: [agentTool(researcher)],
});
// A child with an output schema answers through final_answer; the parent reads its validated output as JSON.
const analyst = S.add('sa_analyst', [{ toolCalls: [{ name: 'final_answer', args: { city: 'Paris', people: 2.1 } }] }], {
  tools: [],
  output: z.object({ city: z.string(), people: z.number() }),
});
S.add('sa_typed_parent', [{ toolCalls: [{ name: 'sa_analyst', args: { input: 'Size of Paris?' } }] }, { text: 'done' }], {
  tools: [agentTool(analyst)],
});
const first = S.add('sa_first', [{ text: 'draft: durable agents', usage: { inputTokens: 11, outputTokens: 4 } }], { tools: [] });
const lastUserText = (messages: ReadonlyArray<{ role: string }>) =>
  messageText([...messages].reverse().find((m) => m.role === 'user') as never);
const second = S.add(
  'sa_second',
  (req) => ({ text: `polished(${lastUserText(req.messages)})`, usage: { inputTokens: 13, outputTokens: 5 } }),
  { tools: [] },
);

let h: Harness;
beforeAll(async () => {
  // Only the top-level agents are listed: the agents of agent tools are served with them.
  const top = S.agents.filter((a) => !['sa_researcher', 'sa_launcher', 'sa_looper', 'sa_analyst'].includes(a.name));
  // Prices for the parent's and the researcher's models ($1,000 / $2,000 per million tokens in / out): the
  // researcher's 100 in + 20 out cost $0.14; the parent's own 40 in + 11 out, $0.062.
  const price = { input: 1000, output: 2000, cacheRead: 0, cacheWrite: 0 };
  h = await startHarness({ agents: top, providers: { scripted: S.provider }, prices: { sa_parent: price, sa_researcher: price } });
});
afterAll(async () => h?.stop());

const start = (agent: string, input = 'go') => h.client.start(agent, { input, workflowId: testId(agent) });

function toolResults(result: { messages: ReadonlyArray<{ role: string; content: ReadonlyArray<{ type: string }> }> }): ToolResultBlock[] {
  return result.messages.flatMap((m) => m.content.filter((b): b is ToolResultBlock => b.type === 'tool_result'));
}

describe('agent tools run as child workflows', () => {
  it("the child's answer is the tool result; its usage and cost roll up into the parent's report", { timeout: 60_000 }, async () => {
    const run = await start('sa_parent');
    const result = await resultWithin(run);
    expect(result.status).toBe('success');
    expect(result.finalText).toBe('About 2.1 million.');
    const [res] = toolResults(result);
    expect(outputText(res!.output)).toBe('Paris has 2.1 million people.');
    expect(res!.isError).toBe(false);

    const childId = `${run.workflowId}--call_1_0`;
    const entry = result.report.toolCalls[0]!;
    expect(entry.child).toMatchObject({
      workflowId: childId,
      agent: 'sa_researcher',
      status: 'success',
      usage: { inputTokens: 100, outputTokens: 20 },
    });
    // The parent's own steps (10+30 in, 5+6 out) plus the child's (100 in, 20 out).
    expect(result.usage.inputTokens).toBe(140);
    expect(result.usage.outputTokens).toBe(31);
    expect(result.report.usage).toEqual(result.usage);
    expect(result.report.steps.map((s) => s.usage.inputTokens)).toEqual([10, 30]);

    const child = await h.client.get(childId).result();
    expect(child.status).toBe('success');
    expect(child.finalText).toBe('Paris has 2.1 million people.');
    expect(child.report.agent).toBe('sa_researcher');

    // Cost: the parent's report counts its own priced steps and the child's cost.
    const own = result.report.steps.reduce((sum, s) => sum + (s.costUsd ?? 0), 0);
    expect(own).toBeCloseTo(0.062, 8);
    expect(child.costUsd).toBeCloseTo(0.14, 8);
    expect(entry.child?.costUsd).toBeCloseTo(0.14, 8);
    expect(result.report.costUsd).toBeCloseTo(own + child.costUsd!, 8);
    expect(result.report.costUsd).toBeGreaterThan(own);
    expect(result.costUsd).toBe(result.report.costUsd);
    expect(result.report.unpricedSteps).toBe(0);

    const events = await allEvents(run);
    const started = events.find((e) => e.type === 'sub_agent_started');
    expect(started).toMatchObject({ callId: 'call_1_0', tool: 'sa_researcher', agent: 'sa_researcher', workflowId: childId });
    const finished = events.find((e) => e.type === 'sub_agent_finished');
    expect(finished).toMatchObject({ workflowId: childId, status: 'success', usage: { inputTokens: 100 } });
    expect(events.findIndex((e) => e.type === 'sub_agent_finished')).toBeLessThan(events.findIndex((e) => e.type === 'tool_result'));
  });

  it("the parent's events and stream follow the child's, tagged with its workflow id", { timeout: 60_000 }, async () => {
    const run = await start('sa_parent');
    const childId = `${run.workflowId}--call_1_0`;
    const seen: Array<AgentEvent | ChildAgentEvent> = [];
    for await (const e of run.events({ children: true })) seen.push(e);
    const own = seen.filter((e) => !('child' in e));
    const fromChild = seen.filter((e): e is ChildAgentEvent => 'child' in e);
    expect(own.at(-1)?.type).toBe('done');
    expect(own.map((e) => e.seq)).toEqual(own.map((_, i) => i));
    expect(fromChild.every((e) => e.child === childId)).toBe(true);
    expect(fromChild.map((e) => e.type)).toContain('run_started');
    expect(fromChild.map((e) => e.seq)).toEqual(fromChild.map((_, i) => i));
    expect(fromChild.at(-1)).toMatchObject({ type: 'done', status: 'success', finalText: 'Paris has 2.1 million people.' });
    // Without the option, only the run's own events.
    expect((await allEvents(run)).length).toBe(own.length);

    const streamed = [];
    for await (const e of run.stream({ children: true, deltas: false })) streamed.push(e);
    expect(streamed.filter((e) => 'child' in e).length).toBe(fromChild.length);
    expect(streamed.filter((e) => !('child' in e)).at(-1)).toMatchObject({ type: 'done' });
  });

  it("a child that does not succeed gives the parent's model an error result with its status and why", { timeout: 60_000 }, async () => {
    const run = await start('sa_boss');
    const result = await resultWithin(run);
    expect(result.status).toBe('success');
    const [res] = toolResults(result);
    expect(res!.isError).toBe(true);
    expect(outputText(res!.output)).toMatch(/^Sub-agent "sa_looper" ended max_steps: Reached the step limit \(1\)\./);
    expect(result.report.toolCalls[0]!.child).toMatchObject({ status: 'max_steps', agent: 'sa_looper' });
  });

  it('a child with an output schema gives the parent its validated output as JSON', { timeout: 60_000 }, async () => {
    const run = await start('sa_typed_parent');
    const result = await resultWithin(run);
    expect(result.status).toBe('success');
    const [res] = toolResults(result);
    expect(res!.isError).toBe(false);
    expect(JSON.parse(outputText(res!.output))).toEqual({ city: 'Paris', people: 2.1 });
    const child = await h.client.get(`${run.workflowId}--call_1_0`).result();
    expect(child.status === 'success' && child.output).toEqual({ city: 'Paris', people: 2.1 });
  });

  it('arguments without an "input" string start no child and get an error result', { timeout: 60_000 }, async () => {
    const run = await start('sa_bad_args');
    const result = await resultWithin(run);
    const [res] = toolResults(result);
    expect(res!.isError).toBe(true);
    expect(outputText(res!.output)).toMatch(/"input" must be a non-empty string/);
    expect((await allEvents(run)).some((e) => e.type === 'sub_agent_started')).toBe(false);
  });
});

describe('approvals inside a child', () => {
  async function pendingOnParent(run: AgentRun): Promise<ChildPendingApproval> {
    const [p] = await waitForPending(run);
    return p as ChildPendingApproval;
  }

  it('are listed on the parent (tagged with the child) and decided through the parent', { timeout: 60_000 }, async () => {
    const run = await start('sa_mission');
    const childId = `${run.workflowId}--call_1_0`;
    const p = await pendingOnParent(run);
    // Listed by the parent's call that started the child, then the child's call id.
    expect(p).toMatchObject({
      callId: 'call_1_0/call_1_0',
      tool: 'launch',
      args: { rocket: 'r1' },
      child: { workflowId: childId, agent: 'sa_launcher' },
    });
    // The parent itself waits for nobody: its snapshot lists only its own approvals.
    expect((await run.snapshot()).pendingApprovals).toEqual([]);
    const receipt = await run.decide({ callId: 'call_1_0/call_1_0', decision: 'approve', by: 'ops:alice' });
    expect(receipt).toMatchObject({ callId: 'call_1_0/call_1_0', tool: 'launch', decision: 'approve', applied: ['call_1_0/call_1_0'] });
    const result = await resultWithin(run);
    expect(result.status).toBe('success');
    expect(outputText(toolResults(result)[0]!.output)).toBe('rocket launched');
    const child = await h.client.get(childId).result();
    expect(outputText(toolResults(child)[0]!.output)).toBe('launched r1');
    expect((await allEvents(h.client.get(childId))).find((e) => e.type === 'approval_decided')).toMatchObject({
      by: 'ops:alice',
      via: 'signal',
    });
    expect(await run.pendingApprovals()).toEqual([]);
  });

  // The child's own id still reaches it when the parent has no approval of that id (as runs recorded before qualified ids did).
  it('a decision the child would refuse is refused by the parent', { timeout: 60_000 }, async () => {
    const run = await start('sa_mission');
    await pendingOnParent(run);
    await expect(run.decide({ callId: 'call_1_0', decision: 'approve', by: '' })).rejects.toThrow(/by/);
    await run.signalDecision({ callId: 'call_1_0', decision: 'deny', by: 'ops:bob', reason: 'not today' });
    const result = await resultWithin(run);
    expect(outputText(toolResults(result)[0]!.output)).toBe('rocket launched');
    const child = await h.client.get(`${run.workflowId}--call_1_0`).result();
    expect(outputText(toolResults(child)[0]!.output)).toMatch(/^Denied by ops:bob: not today/);
  });

  it('are in the approval inbox with their parent named, and decided there', { timeout: 60_000 }, async () => {
    const run = await start('sa_mission_inbox');
    const childId = `${run.workflowId}--call_1_0`;
    await pendingOnParent(run);
    let listed;
    for (let i = 0; i < 100 && !listed; i++) {
      listed = (await h.client.awaitingApproval()).find((r) => r.workflowId === childId);
      if (!listed) await new Promise((r) => setTimeout(r, 100));
    }
    expect(listed).toMatchObject({
      agent: 'sa_launcher',
      parent: { workflowId: run.workflowId },
      pending: [{ callId: 'call_1_0', tool: 'launch' }],
    });
    // The parent is not listed on its own: its child's entry names it.
    expect((await h.client.awaitingApproval()).some((r) => r.workflowId === run.workflowId)).toBe(false);
    await h.client.get(childId).decide({ callId: 'call_1_0', decision: 'approve', by: 'ops:carol' });
    const result = await resultWithin(run);
    expect(result.status).toBe('success');
    expect(outputText(toolResults(result)[0]!.output)).toBe('rocket launched');
  });

  it('cancelling the parent cancels the child, whose result is cancelled', { timeout: 60_000 }, async () => {
    const run = await start('sa_mission_cancel');
    const childId = `${run.workflowId}--call_1_0`;
    await pendingOnParent(run);
    await run.cancel();
    const result = await resultWithin(run);
    expect(result.status).toBe('cancelled');
    const child = await h.client.get(childId).result();
    expect(child.status).toBe('cancelled');
    expect(result.report.toolCalls[0]!.child).toMatchObject({ workflowId: childId, status: 'cancelled' });
    expect(toolResults(result)[0]!.isError).toBe(true);
  });
});

describe('chain(a, b)', () => {
  it("gives b a's answer; the result is b's with the chain's usage", { timeout: 60_000 }, async () => {
    const run = await h.client.startChain(chain(first, second), { input: 'write about agents', workflowId: testId('chain') });
    const result = await resultWithin(run);
    expect(result.status).toBe('success');
    expect(result.finalText).toBe('polished(draft: durable agents)');
    expect(result.usage.inputTokens).toBe(24);
    expect(result.usage.outputTokens).toBe(9);
    const events = await allEvents(run);
    expect(events.filter((e) => e.type === 'sub_agent_finished').map((e) => (e as { agent: string }).agent)).toEqual([
      'sa_first',
      'sa_second',
    ]);
    expect(events.at(-1)).toMatchObject({ type: 'done', status: 'success' });
  });
});
