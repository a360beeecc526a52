/**
 * Every way a run ends is a typed result with a `done` event and a final snapshot, on the real dev
 * server: malformed input, a worker whose store lacks the run's content, a capped Retry-After; and
 * approval decisions that reach the run before the call they decide.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../src/agents/define';
import type { AgentRun } from '../../src/client';
import { AGENT_WORKFLOW } from '../../src/core/run/contract';
import type { AgentEvent } from '../../src/core/events/events';
import type { AgentRunResult } from '../../src/core/run/result';
import { RUN_STATUS } from '../../src/workflows/search-attributes';
import { ScriptedAgents } from '../helpers/agents';
import type { Harness } from '../helpers/harness';
import { startHarness, testId } from '../helpers/harness';
import { allEvents } from '../helpers/events';
import { echo, recordingDeploy, slowWrite } from '../helpers/tools';

const { deploy, ran } = recordingDeploy();

const S = new ScriptedAgents();
S.add('plain_end', [{ text: 'hello' }], { tools: [] });
S.add('store_gap', [{ toolCalls: [{ name: 'slow_write', args: { key: 'k', ms: 1500 } }] }, { text: 'never reached' }], {
  tools: [slowWrite],
});
S.add(
  'capped',
  [
    {
      text: 'after the wait',
      failures: [{ message: 'slow down', kind: 'rate_limit', status: 429, type: 'rate_limit_error', retryAfterMs: 3_600_000 }],
    },
  ],
  {
    tools: [],
    modelRetry: { maximumAttempts: 3, initialInterval: '50ms', maximumInterval: '300ms' },
  },
);
// The model takes a while to answer step 1, so a decision can be sent before its call exists.
// Ten read-only calls of 250 KiB each: within the agent's inline limit one by one, 2.5 MB together.
const bulky = defineTool({
  name: 'bulky',
  description: 'Return 250 KiB of text',
  input: z.object({ n: z.number() }),
  readOnly: true,
  execute: ({ n }) => `${n}:`.padEnd(250 * 1024, 'x'),
});
S.add('bulky_step', [{ toolCalls: Array.from({ length: 10 }, (_, n) => ({ name: 'bulky', args: { n } })) }, { text: 'read them all' }], {
  tools: [bulky],
  toolResultInlineBytes: 256 * 1024,
});
S.add('early', [{ delayMs: 2500, toolCalls: [{ name: 'deploy', args: { service: 'api' } }] }, { text: 'deployed' }], {
  tools: [deploy, echo],
});
S.add('early_no_ask', [{ delayMs: 2500, toolCalls: [{ name: 'echo', args: { text: 'hi' } }] }, { text: 'echoed' }], {
  tools: [deploy, echo],
});
S.add(
  'earlier_step',
  [
    { toolCalls: [{ name: 'echo', args: { text: 'first' } }] },
    { toolCalls: [{ name: 'deploy', args: { service: 'api' } }] },
    { text: 'done' },
  ],
  {
    tools: [deploy, echo],
  },
);

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ agents: S.agents, providers: { scripted: S.provider } });
});
afterAll(async () => {
  await h?.stop();
});

async function waitForEvent(run: AgentRun, pred: (e: AgentEvent) => boolean, what: string): Promise<AgentEvent> {
  for (let i = 0; i < 300; i++) {
    const found = (await allEvents(run)).find(pred);
    if (found) return found;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${run.workflowId}: no ${what} event`);
}

/** The run ended as a result, with `done` last and the snapshot saying the same status. */
async function expectFinal(run: AgentRun, result: AgentRunResult): Promise<void> {
  const events = await allEvents(run);
  expect(events.at(-1)).toMatchObject({ type: 'done', status: result.status });
  expect((await run.snapshot()).status).toBe(result.status);
}

describe('every ending is a typed result', () => {
  it('malformed input sent by any client ends invalid_input, with done', async () => {
    const workflowId = testId('bad-input');
    const handle = await h.temporal.workflow.start(AGENT_WORKFLOW, {
      taskQueue: h.taskQueue,
      workflowId,
      args: [{ agent: '', prompt: 42, maxSteps: 0 }],
    });
    const result = (await handle.result()) as AgentRunResult;
    expect(result.status).toBe('invalid_input');
    expect(result.error?.type).toBe('InvalidInput');
    expect(result.error?.message).toMatch(
      /agent must be a non-empty string; prompt must be a non-empty string; maxSteps must be a positive integer/,
    );
    await expectFinal(h.client.get(workflowId), result);
  });

  it('a worker whose store lacks the run ends it storage_error, naming the fix, without retrying the model', async () => {
    const first = await startHarness({ agents: S.agents, providers: { scripted: S.provider } });
    const run = await first.client.start('store_gap', { input: 'go', workflowId: testId('store-gap') });
    await waitForEvent(run, (e) => e.type === 'tool_call', 'tool_call');
    // The first worker finishes the tool and goes; the next one has an empty store of its own.
    await first.stop();
    const second = await startHarness({
      agents: S.agents,
      providers: { scripted: S.provider },
      storeDir: mkdtempSync(join(tmpdir(), 'durable-agent-other-store-')),
      taskQueue: first.taskQueue,
    });
    try {
      const result = await second.client.get(run.workflowId).result();
      expect(result.status, JSON.stringify(result.error)).toBe('storage_error');
      expect(result.error?.type).toBe('StorageError');
      expect(result.error?.message).toMatch(/not found/);
      expect(result.error?.message).toMatch(/createWorker\(\{ store \}\)/);
      const events = await allEvents(second.client.get(run.workflowId));
      expect(events.filter((e) => e.type === 'retrying')).toEqual([]);
      await expectFinal(second.client.get(run.workflowId), result);
      const description = await second.client.get(run.workflowId).handle.describe();
      expect(description.typedSearchAttributes.get(RUN_STATUS)).toBe('storage_error');
    } finally {
      await second.stop();
    }
  });

  it("caps a Retry-After longer than the agent's maximum interval, and says so", async () => {
    const run = await h.client.start('capped', { input: 'go', workflowId: testId('capped') });
    const result = await run.result();
    expect(result.status).toBe('success');
    const retrying = (await allEvents(run)).find((e) => e.type === 'retrying');
    expect(retrying).toMatchObject({ type: 'retrying', delayMs: 300, requestedDelayMs: 3_600_000 });
    await expectFinal(run, result);
  });
});

describe("a step's tool outputs together", () => {
  it('never exceed what the next model call can carry: each call gets its share of the step budget, the rest is stored', async () => {
    const run = await h.client.start('bulky_step', { input: 'go', workflowId: testId('bulky') });
    const result = await run.result();
    expect(result.status, JSON.stringify(result.error)).toBe('success');
    expect(result.report.toolCalls).toHaveLength(10);
    expect(result.report.toolCalls.every((c) => c.stored && !c.isError && c.resultBytes === 250 * 1024)).toBe(true);
  });
});

describe('a decision that reaches the run before its call', () => {
  it('is kept and applied when the call asks for approval (signal sent while the model is still answering)', async () => {
    const run = await h.client.start('early', { input: 'deploy', workflowId: testId('early') });
    await waitForEvent(run, (e) => e.type === 'step_started', 'step_started');
    expect(await run.pendingApprovals()).toEqual([]);
    await run.signalDecision({ callId: 'call_1_0', decision: 'approve', by: 'ops:alice' });
    await waitForEvent(run, (e) => e.type === 'approval_queued', 'approval_queued');
    const result = await run.result();
    expect(result.status).toBe('success');
    expect(ran.filter((r) => r.startsWith(`${run.workflowId}/`))).toEqual([`${run.workflowId}/call_1_0`]);
    const types = (await allEvents(run)).map((e) => e.type);
    expect(types.indexOf('approval_queued')).toBeLessThan(types.indexOf('approval_requested'));
    expect(types.indexOf('approval_requested')).toBeLessThan(types.indexOf('approval_decided'));
    expect(types).not.toContain('approval_refused');
  });

  it('is refused once the step is planned if that call does not ask for approval', async () => {
    const run = await h.client.start('early_no_ask', { input: 'echo', workflowId: testId('early-no-ask') });
    await waitForEvent(run, (e) => e.type === 'step_started', 'step_started');
    await run.signalDecision({ callId: 'call_1_0', decision: 'deny', by: 'ops:alice' });
    await waitForEvent(run, (e) => e.type === 'approval_queued', 'approval_queued');
    expect((await run.result()).status).toBe('success');
    const refused = (await allEvents(run)).filter((e) => e.type === 'approval_refused');
    expect(refused).toMatchObject([
      { callId: 'call_1_0', reason: 'no approval is pending for call "call_1_0": it did not ask for approval' },
    ]);
  });

  it('is refused at once when it names a call of an earlier step', async () => {
    const run = await h.client.start('earlier_step', { input: 'go', workflowId: testId('earlier') });
    await waitForEvent(run, (e) => e.type === 'approval_requested', 'approval_requested');
    await run.signalDecision({ callId: 'call_1_0', decision: 'approve', by: 'ops:alice' });
    const refused = await waitForEvent(run, (e) => e.type === 'approval_refused', 'approval_refused');
    expect(refused).toMatchObject({
      callId: 'call_1_0',
      reason: 'no approval is pending for call "call_1_0": it did not ask for approval',
    });
    expect((await allEvents(run)).some((e) => e.type === 'approval_queued')).toBe(false);
    await run.signalDecision({ callId: 'call_2_0', decision: 'approve', by: 'ops:alice' });
    expect((await run.result()).status).toBe('success');
  });
});
