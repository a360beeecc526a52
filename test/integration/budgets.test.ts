/**
 * Budgets held in the workflow, on the real dev server: total tokens, cost, wall-clock time and user
 * turns. Each ends the run with its own status and a result; calls the model asked for are not run.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScriptedAgents } from '../helpers/agents';
import type { Harness } from '../helpers/harness';
import { startHarness, testId } from '../helpers/harness';
import { allEvents, waitForPending } from '../helpers/events';
import { echo, executions, waitForever } from '../helpers/tools';

const echoForever = () => ({ text: 'again', toolCalls: [{ name: 'echo', args: { text: 'x'.repeat(400) } }] });
const S = new ScriptedAgents();
S.add('token_budget', echoForever, { tools: [echo], maxSteps: 50 });
S.add('agent_budget', echoForever, { tools: [echo], maxSteps: 50, budget: { maxTokens: 2_000 } });
S.add('cost_budget', echoForever, { tools: [echo], maxSteps: 50 });
S.add('time_budget', [{ toolCalls: [{ name: 'wait_forever', args: {} }] }, { text: 'never' }], { tools: [waitForever] });
// Six echo steps, then an answer; its token budget runs out on the way, and it asks a person.
S.add(
  'asks_budget',
  (request) =>
    request.messages.filter((m) => m.role === 'assistant').length < 6
      ? { toolCalls: [{ name: 'echo', args: { text: 'x'.repeat(400) } }] }
      : { text: 'finished' },
  { tools: [echo], maxSteps: 50, budget: { maxTokens: 800 }, onBudgetExhausted: 'ask' },
);
S.add('turn_budget', () => ({ text: 'noted' }), { tools: [] });

let h: Harness;
beforeAll(async () => {
  // A price for the cost budget's model: $1,000 per million tokens in and out.
  h = await startHarness({
    agents: S.agents,
    providers: { scripted: S.provider },
    prices: { cost_budget: { input: 1000, output: 1000, cacheRead: 0, cacheWrite: 0 } },
  });
});
afterAll(async () => {
  await h?.stop();
});

describe('budgets', () => {
  it('maxTokens: the run ends budget_exceeded once the total is spent, and the calls of that step do not run', async () => {
    const run = await h.client.start('token_budget', { input: 'loop', budget: { maxTokens: 1_500 }, workflowId: testId('tokens') });
    const result = await run.result();
    expect(result.status).toBe('budget_exceeded');
    expect(result.error).toMatchObject({
      type: 'BudgetExceeded',
      message: expect.stringMatching(/^The run's token budget is spent: [\d,]+ of 1,500 tokens\.$/),
    });
    const total = result.usage.inputTokens + result.usage.outputTokens;
    expect(total).toBeGreaterThanOrEqual(1_500);
    // The last step's call was closed, not run: every call has a result, the last one says why.
    const last = result.report.toolCalls.at(-1);
    expect(last).toMatchObject({ isError: true, latencyMs: 0, attempts: 0 });
    expect(last?.error).toMatch(/^Not executed: The run's token budget is spent/);
    expect(result.report.toolCalls).toHaveLength(result.steps);
    expect((await allEvents(run)).at(-1)).toMatchObject({ type: 'done', status: 'budget_exceeded' });
  });

  it("an agent's own budget applies, and a run may only lower it", async () => {
    const own = await (await h.client.start('agent_budget', { input: 'loop', workflowId: testId('agent-budget') })).result();
    const lowered = await (
      await h.client.start('agent_budget', { input: 'loop', budget: { maxTokens: 700 }, workflowId: testId('lowered') })
    ).result();
    const raised = await (
      await h.client.start('agent_budget', { input: 'loop', budget: { maxTokens: 1_000_000 }, workflowId: testId('raised') })
    ).result();
    expect([own.status, lowered.status, raised.status]).toEqual(['budget_exceeded', 'budget_exceeded', 'budget_exceeded']);
    expect(own.error?.message).toMatch(/of 2,000 tokens/);
    expect(lowered.error?.message).toMatch(/of 700 tokens/);
    expect(raised.error?.message).toMatch(/of 2,000 tokens/);
    expect(lowered.steps).toBeLessThan(own.steps);
  });

  it('maxCostUsd: priced steps count; the run ends when the cost is spent', async () => {
    const result = await (
      await h.client.start('cost_budget', { input: 'loop', budget: { maxCostUsd: 0.5 }, workflowId: testId('cost') })
    ).result();
    expect(result.status).toBe('budget_exceeded');
    expect(result.costUsd).toBeGreaterThanOrEqual(0.5);
    expect(result.error?.message).toMatch(/^The run's cost budget is spent: \$[\d.]+ of \$0\.5000 \(USD\)\.$/);
  });

  it('timeout: a durable timer ends the run `timeout`, cancelling the tool in flight', async () => {
    const started = Date.now();
    const run = await h.client.start('time_budget', { input: 'wait', budget: { timeout: '1500ms' }, workflowId: testId('timeout') });
    const result = await run.result();
    expect(result.status).toBe('timeout');
    expect(result.error).toMatchObject({ type: 'Timeout', message: "The run's time budget (1500 ms) ran out." });
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(result.report.toolCalls).toMatchObject([{ tool: 'wait_forever', isError: true }]);
    expect(result.report.toolCalls[0]?.error).toMatch(/time budget ran out/);
    // The tool saw the cancellation (its attempt was aborted), rather than running on.
    expect(executions.find((e) => e.tool === 'wait_forever' && result.report.toolCalls[0]?.callId === e.callId)?.aborted).toBe(true);
  });

  it('timeout across a worker restart: the durable timer fires while no worker runs, and the next worker ends the run on it', async () => {
    // A worker of its own, stopped mid-run; a new one takes over on the same task queue.
    const first = await startHarness({ agents: S.agents, providers: { scripted: S.provider } });
    const run = await first.client.start('turn_budget', {
      input: 'one',
      session: true,
      budget: { timeout: '2s' },
      workflowId: testId('timeout-restart'),
    });
    for (let i = 0; i < 200 && !(await allEvents(run)).some((e) => e.type === 'awaiting_message'); i++)
      await new Promise((r) => setTimeout(r, 50));
    await first.stop();
    await new Promise((r) => setTimeout(r, 3_000));
    const restartedAt = Date.now();
    const second = await startHarness({
      agents: S.agents,
      providers: { scripted: S.provider },
      storeDir: first.storeDir,
      taskQueue: first.taskQueue,
    });
    try {
      const again = second.client.get(run.workflowId);
      const result = await again.result();
      expect(result.status).toBe('timeout');
      expect(result.error?.message).toBe("The run's time budget (2000 ms) ran out.");
      expect(result.steps).toBe(1);
      // One timer for the budget, started once (the restart did not start it again), fired before the new worker came.
      const history = (await again.handle.fetchHistory()).events ?? [];
      const started = history.filter((e) => e.timerStartedEventAttributes);
      expect(started.map((e) => Number(e.timerStartedEventAttributes?.startToFireTimeout?.seconds))).toEqual([2]);
      const fired = history.find((e) => e.timerFiredEventAttributes);
      expect(fired).toBeDefined();
      const firedAt = Number(fired!.eventTime!.seconds) * 1000 + Math.floor((fired!.eventTime!.nanos ?? 0) / 1e6);
      expect(firedAt).toBeLessThan(restartedAt);
    } finally {
      await second.stop();
    }
  });

  it("onBudgetExhausted 'ask': the run pauses on a budget approval; approving extends it, denying ends the run", async () => {
    const run = await h.client.start('asks_budget', { input: 'loop', workflowId: testId('ask-budget') });
    const [request] = await waitForPending(run);
    expect(request).toMatchObject({ tool: 'budget', args: { budget: 'maxTokens', limit: 800 } });
    expect(request!.callId).toMatch(/^budget_\d+_1$/);
    expect((await run.snapshot()).status).toBe('awaiting_approval');
    await run.decide({ callId: request!.callId, decision: 'approve', by: 'ops:alice', extendBy: 100_000 });
    const result = await run.result();
    expect(result.status).toBe('success');
    expect(result.finalText).toBe('finished');
    expect((await allEvents(run)).filter((e) => e.type === 'approval_decided')).toMatchObject([
      { tool: 'budget', decision: 'approve', by: 'ops:alice' },
    ]);

    const denied = await h.client.start('asks_budget', { input: 'loop', workflowId: testId('deny-budget') });
    const pending = await waitForPending(denied);
    await denied.decide({ callId: pending[0]!.callId, decision: 'deny', by: 'ops:bob', reason: 'too expensive' });
    const ended = await denied.result();
    expect(ended.status).toBe('budget_exceeded');
    expect(ended.error?.message).toMatch(
      /token budget is spent: [\d,]+ of 800 tokens\. Not extended: deny by ops:bob \(too expensive\)\.$/,
    );
  });

  it('maxTurns: a session answers its turns, and a turn beyond the budget ends it budget_exceeded', async () => {
    const run = await h.client.start('turn_budget', { input: 'one', session: true, budget: { maxTurns: 2 }, workflowId: testId('turns') });
    for (let i = 0; i < 200 && !(await allEvents(run)).some((e) => e.type === 'awaiting_message'); i++)
      await new Promise((r) => setTimeout(r, 50));
    await run.send('two');
    for (let i = 0; i < 200 && (await allEvents(run)).filter((e) => e.type === 'awaiting_message').length < 2; i++)
      await new Promise((r) => setTimeout(r, 50));
    await run.send('three');
    const result = await run.result();
    expect(result.status).toBe('budget_exceeded');
    expect(result.steps).toBe(2);
    expect(result.error?.message).toBe("The run's turn budget is spent: 2 of 2 user turns used; turn 3 was refused.");
  });
});
