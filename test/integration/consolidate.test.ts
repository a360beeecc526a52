/**
 * Consolidate on the real dev server: a `consolidateTool` call runs its agents in parallel as child
 * workflows and aggregates their answers by a summarising agent or by a function (in an activity);
 * a failing child (included, or failing the call) and a child needing approval (listed on and decided
 * through the parent) in the same run; cancelling the parent cancels every child; costs roll up; and
 * `consolidate()` of `durable-agent/workflow` from a user's workflow in the worker's bundle.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consolidateTool } from '../../src/agents/consolidate-tool';
import type { AgentRunResult, ChildRunSummary } from '../../src/core/run/result';
import type { ConsolidatedChild } from '../../src/core/sub-agents/consolidate';
import { messageText, outputText } from '../../src/core/messages/messages';
import type { ConsolidateResult } from '../../src/entry/workflow';
import { buildAgentBundle } from '../../src/worker/build-bundle';
import { launch } from '../fixtures/sub-agents';
import { ScriptedAgents } from '../helpers/agents';
import { allEvents, pollUntil, resultWithin, toolResults, waitForPending } from '../helpers/events';
import type { Harness } from '../helpers/harness';
import { startHarness, testId } from '../helpers/harness';
import { echo } from '../helpers/tools';

const lastUserText = (messages: ReadonlyArray<{ role: string }>) =>
  messageText([...messages].reverse().find((m) => m.role === 'user') as never);
const u = (inputTokens: number, outputTokens: number) => ({ inputTokens, outputTokens });

const S = new ScriptedAgents();
// Each child answers after 600 ms: run one after the other, three would take 1.8 s.
const style = S.add('cn_style', [{ text: 'style: fine', usage: u(10, 2), delayMs: 600 }], { tools: [] });
const facts = S.add('cn_facts', [{ text: 'facts: checked', usage: u(20, 4), delayMs: 600 }], { tools: [] });
const legal = S.add('cn_legal', (req) => ({ text: `legal saw [${lastUserText(req.messages)}]`, usage: u(30, 6), delayMs: 600 }), {
  tools: [],
});
// The summariser answers with the prompt it was given, so the tests read what it was told.
const editor = S.add('cn_editor', (req) => ({ text: `EDITED ${lastUserText(req.messages)}`, usage: u(40, 8) }), { tools: [] });
const looper = S.add('cn_looper', [{ toolCalls: [{ name: 'echo', args: { text: 'again' } }], usage: u(1, 1) }], {
  tools: [echo],
  maxSteps: 1,
});
const launcher = S.add(
  'cn_launcher',
  [
    { toolCalls: [{ name: 'launch', args: { rocket: 'r1' } }], usage: u(2, 2) },
    { text: 'rocket launched', usage: u(3, 3) },
  ],
  {
    tools: [launch],
  },
);
const merge = (children: ConsolidatedChild[]) =>
  children.map((c) => `${c.agent}=${c.status === 'success' ? c.answer : c.status}`).join('; ');

const parentScript = [
  { toolCalls: [{ name: 'review', args: { input: 'the draft' } }], usage: u(5, 5) },
  { text: 'reviewed', usage: u(7, 7) },
];
const parent = (name: string, tool: ReturnType<typeof consolidateTool>) => S.add(name, parentScript, { tools: [tool] });
parent(
  'cn_by_agent',
  consolidateTool('review', {
    description: 'Three reviewers, one editor',
    agents: [style, facts, { agent: legal, input: 'Legal risks of {{input}}', budget: { maxTokens: 5_000, timeout: '1m' } }],
    aggregate: { agent: editor },
  }),
);
parent(
  'cn_by_fn',
  consolidateTool('review', { description: 'Three reviewers, merged', agents: [style, facts, legal], aggregate: { fn: merge } }),
);
for (const name of ['cn_mixed', 'cn_mixed_deny'])
  parent(name, consolidateTool('review', { description: 'Mixed', agents: [style, looper, launcher], aggregate: { agent: editor } }));
parent(
  'cn_mixed_fail',
  consolidateTool('review', { description: 'Strict', agents: [style, looper], aggregate: { agent: editor }, onChildError: 'fail' }),
);
parent('cn_cancel', consolidateTool('review', { description: 'Two launches', agents: [launcher, launcher], aggregate: { agent: editor } }));

const TOP = ['cn_by_agent', 'cn_by_fn', 'cn_mixed', 'cn_mixed_deny', 'cn_mixed_fail', 'cn_cancel'];
// $1,000 / $2,000 per million tokens in / out for every model: a run's cost is (in + 2 × out) / 1000 dollars.
const price = { input: 1000, output: 2000, cacheRead: 0, cacheWrite: 0 };
const costOf = (usage: { inputTokens: number; outputTokens: number }) => (usage.inputTokens + 2 * usage.outputTokens) / 1000;

let h: Harness;
let work: string;
beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'consolidate-bundle-'));
  const bundle = join(work, 'bundle.js');
  await buildAgentBundle(bundle, { entry: join(__dirname, '..', 'fixtures', 'consolidate-workflows.ts') });
  h = await startHarness({
    agents: S.agents.filter((a) => TOP.includes(a.name)), // the consolidated agents are served with their parents
    providers: { scripted: S.provider },
    prices: Object.fromEntries(S.agents.map((a) => [a.name, price])),
    workflowBundlePath: bundle,
  });
}, 120_000);
afterAll(async () => {
  await h?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

const start = (agent: string) => h.client.start(agent, { input: 'go', workflowId: testId(agent) });
const childIds = (parentId: string, n: number) => Array.from({ length: n }, (_, i) => `${parentId}--call_1_0-${i + 1}`);

/** The children's own results, and that they ran at the same time: each started before any ended. */
async function ranTogether(ids: string[]): Promise<AgentRunResult[]> {
  const results = await Promise.all(ids.map((id) => h.client.get(id).result()));
  const lastStart = Math.max(...results.map((r) => Date.parse(r.report.startedAt)));
  const firstEnd = Math.min(...results.map((r) => Date.parse(r.report.endedAt)));
  expect(lastStart).toBeLessThan(firstEnd);
  return results;
}

function sumCost(runs: ReadonlyArray<Pick<ChildRunSummary, 'costUsd'>>): number {
  return runs.reduce((s, r) => s + (r.costUsd ?? 0), 0);
}

describe.concurrent('consolidateTool', () => {
  it(
    'runs three agents in parallel and aggregates their answers with a summarising agent; costs roll up',
    { timeout: 60_000 },
    async () => {
      const run = await start('cn_by_agent');
      const result = await resultWithin(run);
      expect(result.status).toBe('success');
      const ids = childIds(run.workflowId, 3);
      const children = await ranTogether(ids);
      expect(children.map((c) => c.finalText)).toEqual(['style: fine', 'facts: checked', 'legal saw [Legal risks of the draft]']);
      // Each child runs with its own budget: the third was started with the one its entry gives.
      const started = (await h.client.get(ids[2]!).handle.fetchHistory()).events?.[0]?.workflowExecutionStartedEventAttributes;
      const childInput = JSON.parse(Buffer.from(started!.input!.payloads![0]!.data!).toString()) as { budget?: unknown; parent?: unknown };
      expect(childInput.budget).toEqual({ maxTokens: 5_000, timeoutMs: 60_000 });
      expect(childInput.parent).toEqual({ workflowId: run.workflowId, callId: 'call_1_0' });

      // The summariser was told each answer, labelled by agent; its answer is the call's result.
      const [res] = toolResults(result);
      expect(res!.isError).toBe(false);
      const text = outputText(res!.output);
      expect(text).toMatch(/^EDITED 3 agents worked on this task in parallel; 3 of them answered\./);
      expect(text).toContain('<answer agent 1: "cn_style">\nstyle: fine\n</answer>');
      expect(text).toContain('<answer agent 3: "cn_legal">\nlegal saw [Legal risks of the draft]\n</answer>');
      const aggregator = await h.client.get(`${run.workflowId}--call_1_0-aggregate`).result();
      expect(aggregator.finalText).toBe(text);

      // The report entry lists every child run; usage and cost are the parent's own plus all of theirs.
      const entry = result.report.toolCalls[0]!;
      expect(entry.children?.map((c) => [c.workflowId, c.agent, c.status])).toEqual([
        [ids[0], 'cn_style', 'success'],
        [ids[1], 'cn_facts', 'success'],
        [ids[2], 'cn_legal', 'success'],
        [`${run.workflowId}--call_1_0-aggregate`, 'cn_editor', 'success'],
      ]);
      expect(result.usage.inputTokens).toBe(5 + 7 + 10 + 20 + 30 + 40);
      expect(result.usage.outputTokens).toBe(5 + 7 + 2 + 4 + 6 + 8);
      const childCost = sumCost([...children, aggregator]);
      expect(sumCost(entry.children!)).toBeCloseTo(childCost, 8);
      expect(childCost).toBeCloseTo(costOf(u(100, 20)), 8);
      expect(result.costUsd).toBeCloseTo(costOf(u(12, 12)) + childCost, 8);

      // sub_agent_started / sub_agent_finished per child, then the summariser's.
      const events = await allEvents(run);
      const starts = events.filter((e) => e.type === 'sub_agent_started') as Array<{ workflowId: string; agent: string; callId: string }>;
      // The three start together (in the order their starts complete), the summariser after them.
      expect(
        starts
          .slice(0, 3)
          .map((e) => e.workflowId)
          .sort(),
      ).toEqual(ids);
      expect(starts[3]?.workflowId).toBe(`${run.workflowId}--call_1_0-aggregate`);
      expect(starts.every((e) => e.callId === 'call_1_0')).toBe(true);
      expect(events.filter((e) => e.type === 'sub_agent_finished').length).toBe(4);
    },
  );

  it('aggregates with a function run on the worker (its result recorded as an activity result)', { timeout: 60_000 }, async () => {
    const run = await start('cn_by_fn');
    const result = await resultWithin(run);
    expect(result.status).toBe('success');
    await ranTogether(childIds(run.workflowId, 3));
    const expected = 'cn_style=style: fine; cn_facts=facts: checked; cn_legal=legal saw [the draft]';
    expect(outputText(toolResults(result)[0]!.output)).toBe(expected);
    expect(result.report.toolCalls[0]!.children?.map((c) => c.agent)).toEqual(['cn_style', 'cn_facts', 'cn_legal']);
    const history = await run.handle.fetchHistory();
    const scheduled = (history.events ?? []).filter(
      (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'aggregateResults',
    );
    expect(scheduled).toHaveLength(1);
    const completed = (history.events ?? []).find(
      (e) => String(e.activityTaskCompletedEventAttributes?.scheduledEventId) === String(scheduled[0]!.eventId),
    );
    const payload = completed?.activityTaskCompletedEventAttributes?.result?.payloads?.[0]?.data;
    expect(JSON.parse(Buffer.from(payload!).toString())).toEqual({ text: expected });
  });

  it(
    'one child failing and one needing approval: the approval is decided through the parent, the aggregator is told which failed',
    { timeout: 60_000 },
    async () => {
      const run = await start('cn_mixed');
      const [, looperId, launcherId] = childIds(run.workflowId, 3);
      const [p] = await waitForPending(run);
      expect(p).toMatchObject({ callId: 'call_1_0-3/call_1_0', tool: 'launch', child: { workflowId: launcherId, agent: 'cn_launcher' } });
      await run.decide({ callId: 'call_1_0-3/call_1_0', decision: 'approve', by: 'ops:alice' });
      const result = await resultWithin(run);
      expect(result.status).toBe('success');
      expect((await h.client.get(launcherId!).result()).finalText).toBe('rocket launched');
      expect((await h.client.get(looperId!).result()).status).toBe('max_steps');
      const text = outputText(toolResults(result)[0]!.output);
      expect(text).toContain('3 agents worked on this task in parallel; 2 of them answered, 1 did not.');
      expect(text).toContain(
        `<failed agent 2: "cn_looper">\nIt did not answer. "cn_looper" (run ${looperId}) ended max_steps: Reached the step limit (1).`,
      );
      expect(text).toContain('<answer agent 3: "cn_launcher">\nrocket launched\n</answer>');
      expect(result.report.toolCalls[0]!.children?.map((c) => c.status)).toEqual(['success', 'max_steps', 'success', 'success']);
    },
  );

  it('a denial decided through the parent is stated to the aggregator', { timeout: 60_000 }, async () => {
    const run = await start('cn_mixed_deny');
    await waitForPending(run);
    await run.decide({ callId: 'call_1_0-3/call_1_0', decision: 'deny', by: 'ops:bob', reason: 'not today' });
    const result = await resultWithin(run);
    const text = outputText(toolResults(result)[0]!.output);
    expect(text).toContain('in agent 3 ("cn_launcher"), calls to "launch" were denied and not run.');
  });

  it("the parent's run policy reaches every child (a tool of a consolidated agent is a known name)", { timeout: 60_000 }, async () => {
    const run = await h.client.start('cn_mixed', { input: 'go', workflowId: testId('cn_policy'), policy: { launch: 'deny' } });
    const result = await resultWithin(run);
    expect(result.status).toBe('success');
    const text = outputText(toolResults(result)[0]!.output);
    expect(text).toContain('in agent 3 ("cn_launcher"), calls to "launch" were denied and not run.');
  });

  it(
    "onChildError 'fail': a child that fails makes the call an error result naming it, with no aggregation",
    { timeout: 60_000 },
    async () => {
      const run = await start('cn_mixed_fail');
      const result = await resultWithin(run);
      expect(result.status).toBe('success');
      const [res] = toolResults(result);
      expect(res!.isError).toBe(true);
      const [, looperId] = childIds(run.workflowId, 2);
      expect(outputText(res!.output)).toBe(
        `Consolidate "review" failed: 1 of 2 agents did not answer: "cn_looper" (run ${looperId}) ended max_steps: Reached the step limit (1).`,
      );
      const entry = result.report.toolCalls[0]!;
      expect(entry.children?.map((c) => c.agent)).toEqual(['cn_style', 'cn_looper']);
      expect((await allEvents(run)).some((e) => e.type === 'sub_agent_started' && e.agent === 'cn_editor')).toBe(false);
    },
  );

  it('cancelling the parent cancels every child; each ends cancelled', { timeout: 60_000 }, async () => {
    const run = await start('cn_cancel');
    for (let i = 0; i < 100 && (await run.pendingApprovals()).length < 2; i++) await new Promise((r) => setTimeout(r, 100));
    expect((await run.pendingApprovals()).map((p) => p.callId).sort()).toEqual(['call_1_0-1/call_1_0', 'call_1_0-2/call_1_0']);
    await run.cancel();
    const result = await resultWithin(run);
    expect(result.status).toBe('cancelled');
    for (const id of childIds(run.workflowId, 2)) expect((await h.client.get(id).result()).status).toBe('cancelled');
    expect(result.report.toolCalls[0]!.children?.map((c) => c.status)).toEqual(['cancelled', 'cancelled']);
    expect((await allEvents(run)).some((e) => e.type === 'sub_agent_started' && e.agent === 'cn_editor')).toBe(false);
  });
});

describe.concurrent('client.startConsolidate', () => {
  it(
    "runs the agents in parallel, then the summariser: its result with everyone's spend; a child's approval decided through the run",
    { timeout: 60_000 },
    async () => {
      await expect(h.client.startConsolidate([], { input: 'x', aggregate: editor })).rejects.toThrow(/at least one agent/);
      const run = await h.client.startConsolidate([style, launcher, looper], {
        input: 'the draft',
        aggregate: editor,
        workflowId: testId('cn_client'),
      });
      const [p] = await waitForPending(run);
      expect(p).toMatchObject({
        callId: 'consolidate-2/call_1_0',
        tool: 'launch',
        child: { workflowId: `${run.workflowId}--consolidate-2` },
      });
      await run.decide({ callId: 'consolidate-2/call_1_0', decision: 'approve', by: 'ops:alice' });
      const result = await resultWithin(run);
      expect(result.status).toBe('success');
      expect(result.finalText).toMatch(/^EDITED 3 agents worked on this task in parallel; 2 of them answered, 1 did not\./);
      expect(result.finalText).toContain('<answer agent 2: "cn_launcher">\nrocket launched\n</answer>');
      // style 10/2, launcher 2/2 + 3/3, looper 1/1, editor 40/8.
      expect(result.usage).toMatchObject(u(56, 16));
      expect(result.costUsd).toBeCloseTo(costOf(u(56, 16)), 8);
      const events = await allEvents(run);
      expect(
        events
          .filter((e) => e.type === 'sub_agent_started')
          .map((e) => (e as { agent: string }).agent)
          .sort(),
      ).toEqual(['cn_editor', 'cn_launcher', 'cn_looper', 'cn_style']);
      expect(events.at(-1)).toMatchObject({ type: 'done', status: 'success' });
    },
  );
  it(
    "onChildError 'fail': a child that does not succeed ends the run with its result and everyone's spend",
    { timeout: 60_000 },
    async () => {
      const run = await h.client.startConsolidate([style, looper], {
        input: 'the draft',
        aggregate: editor,
        onChildError: 'fail',
        workflowId: testId('cn_client_fail'),
      });
      const result = await resultWithin(run);
      expect(result.status).toBe('max_steps');
      expect(result.report.agent).toBe('cn_looper');
      expect(result.usage).toMatchObject(u(11, 3));
      expect((await allEvents(run)).some((e) => e.type === 'sub_agent_started' && e.agent === 'cn_editor')).toBe(false);
    },
  );
});

describe('consolidate() in a user workflow', () => {
  const runUserWorkflow = (args: { agents: string[]; prompt: string; aggregator?: string; base?: string }) =>
    h.temporal.workflow.execute('consolidateUserWorkflow', {
      taskQueue: h.taskQueue,
      workflowId: testId('cn_user'),
      args: [args],
    }) as Promise<ConsolidateResult>;

  it('aggregates with a workflow function or a summarising agent, with every child and the total spend', { timeout: 60_000 }, async () => {
    const [byFn, byAgent] = await Promise.all([
      runUserWorkflow({ agents: ['cn_style', 'cn_facts', 'cn_looper'], prompt: 'the draft' }),
      runUserWorkflow({ agents: ['cn_style', 'cn_facts'], prompt: 'the draft', aggregator: 'cn_editor' }),
    ]);
    expect(byFn).toMatchObject({
      status: 'success',
      answer: 'cn_style: style: fine\ncn_facts: facts: checked\ncn_looper: failed (max_steps)',
    });
    expect(byFn.children.map((c) => c.status)).toEqual(['success', 'success', 'max_steps']);
    expect(byFn.usage).toMatchObject(u(31, 7));
    expect(byFn.costUsd).toBeCloseTo(costOf(u(31, 7)), 8);
    expect(byAgent.status).toBe('success');
    expect(byAgent.status === 'success' && byAgent.answer).toMatch(
      /^EDITED 2 agents worked on this task in parallel; 2 of them answered\./,
    );
    expect(byAgent.aggregator).toMatchObject({ agent: 'cn_editor', status: 'success' });
    expect(byAgent.usage).toMatchObject(u(70, 14));
    expect(byAgent.costUsd).toBeCloseTo(costOf(u(70, 14)), 8);
  });

  it('cancelling the user workflow cancels every child; the result is a failure with their spend', { timeout: 60_000 }, async () => {
    const workflowId = testId('cn_user_cancel');
    const base = `${workflowId}--both`;
    const handle = await h.temporal.workflow.start('consolidateUserWorkflow', {
      taskQueue: h.taskQueue,
      workflowId,
      args: [{ agents: ['cn_launcher', 'cn_launcher'], prompt: 'launch', aggregator: 'cn_editor', base }],
    });
    for (const id of [`${base}-1`, `${base}-2`])
      await pollUntil(
        () =>
          h.client
            .get(id)
            .pendingApprovals()
            .catch(() => []),
        (p) => p.length > 0,
        `${id} waiting for approval`,
      );
    await handle.cancel();
    const result = (await handle.result()) as ConsolidateResult;
    expect(result).toMatchObject({ status: 'failed', error: 'cancelled before the answers were aggregated' });
    expect(result.children.map((c) => [c.workflowId, c.status])).toEqual([
      [`${base}-1`, 'cancelled'],
      [`${base}-2`, 'cancelled'],
    ]);
    expect(result.usage).toMatchObject(u(4, 4));
  });
});
