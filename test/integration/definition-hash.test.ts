/**
 * The hash of a run's agent definition, in its memo (`durableAgent.definitionHash`), on the real dev
 * server: runs of one definition share it, the same agent with a changed tool schema (on another worker)
 * gets another; `describe()` reads it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../src/agents/define';
import { AGENT_MEMO, DEFINITION_HASH_MEMO } from '../../src/core/run/definition';
import { ScriptedAgents } from '../helpers/agents';
import type { Harness } from '../helpers/harness';
import { startHarness, testId } from '../helpers/harness';
import { waitForPending } from '../helpers/events';
import { deploy, echo } from '../helpers/tools';

const echoLoud = defineTool({
  name: 'echo',
  description: 'Echo the text back',
  input: z.object({ text: z.string(), loud: z.boolean() }),
  readOnly: true,
  execute: ({ text }) => text,
});

const before = new ScriptedAgents();
before.add('hashed', () => ({ text: 'hi' }), { tools: [echo] });
const after = new ScriptedAgents();
after.add('hashed', () => ({ text: 'hi' }), { tools: [echoLoud] });

let a: Harness;
let b: Harness;

beforeAll(async () => {
  a = await startHarness({ agents: before.agents, providers: { scripted: before.provider } });
  b = await startHarness({ agents: after.agents, providers: { scripted: after.provider } });
});

afterAll(async () => {
  await a?.stop();
  await b?.stop();
});

async function memoOf(h: Harness): Promise<Record<string, unknown> | undefined> {
  const run = await h.client.start('hashed', { input: 'hello', workflowId: testId('hashed') });
  expect((await run.result()).status).toBe('success');
  return (await h.temporal.workflow.getHandle(run.workflowId).describe()).memo;
}

describe('the definition hash in the memo', () => {
  it('is the same for two runs of one definition and differs once a tool schema changes', async () => {
    const first = await memoOf(a);
    const second = await memoOf(a);
    const changed = await memoOf(b);
    expect(first?.[AGENT_MEMO]).toBe('hashed');
    expect(first?.[DEFINITION_HASH_MEMO]).toMatch(/^[0-9a-f]{64}$/);
    expect(second?.[DEFINITION_HASH_MEMO]).toBe(first?.[DEFINITION_HASH_MEMO]);
    expect(changed?.[AGENT_MEMO]).toBe('hashed');
    expect(changed?.[DEFINITION_HASH_MEMO]).toMatch(/^[0-9a-f]{64}$/);
    expect(changed?.[DEFINITION_HASH_MEMO]).not.toBe(first?.[DEFINITION_HASH_MEMO]);
  });
});

describe('the definition, recorded at the start of the run', () => {
  it('an agent this worker does not know ends the run with an error naming it', async () => {
    const run = await a.client.start('no_such_agent', { input: 'hello', workflowId: testId('described-unknown') });
    const result = await run.result();
    expect(result.status).not.toBe('success');
    expect(result.error?.message).toMatch(/no_such_agent/);
  });

  it('replays on a new worker mid-run: a query, then the decision and the rest of the run', async () => {
    const agents = new ScriptedAgents();
    agents.add(
      'gated',
      (_req, ctx) => (ctx.step === 1 ? { toolCalls: [{ name: 'deploy', args: { service: 'api' } }] } : { text: 'deployed' }),
      { tools: [deploy] },
    );
    const first = await startHarness({ agents: agents.agents, providers: { scripted: agents.provider } });
    let second: Harness | undefined;
    try {
      const run = await first.client.start('gated', { input: 'ship it', workflowId: testId('described-replayed') });
      const [pending] = await waitForPending(run);
      await first.stop();
      // A worker with an empty cache answers by replaying the history, the recorded definition included.
      second = await startHarness({
        agents: agents.agents,
        providers: { scripted: agents.provider },
        taskQueue: first.taskQueue,
        storeDir: first.storeDir,
      });
      const again = second.client.get(run.workflowId);
      expect((await again.pendingApprovals()).map((p) => p.callId)).toEqual([pending!.callId]);
      await again.decide({ callId: pending!.callId, decision: 'approve', by: 'ops:test' });
      const result = await again.result();
      expect(result.status).toBe('success');
      expect(result.finalText).toBe('deployed');
    } finally {
      await second?.stop();
    }
  });
});
