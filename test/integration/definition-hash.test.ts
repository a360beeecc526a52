/**
 * The hash of a run's agent definition, in its memo (`durableAgent.definitionHash`), on the real dev
 * server: runs of one definition share it, the same agent with a changed tool schema (on another worker)
 * gets another; `describe()` reads it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../agents/define';
import { AGENT_MEMO, DEFINITION_HASH_MEMO } from '../../core/definition';
import { ScriptedAgents } from '../helpers/agents';
import type { Harness } from '../helpers/harness';
import { startHarness, testId } from '../helpers/harness';
import { echo } from '../helpers/tools';

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
