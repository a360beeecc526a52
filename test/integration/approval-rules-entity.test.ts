/** The namespace's rules entity (issue 26): standing rules stored, changed, listed and pushed to running runs, on the real dev server. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defaultPayloadConverter } from '@temporalio/common';
import { defineTool } from '../../src/agents/define';
import { RuleChangeRefusedError } from '../../src/client/rules';
import type { RuleSet } from '../../src/core/approvals/rules';
import { ScriptedAgents } from '../helpers/agents';
import { pollUntil, waitForPending } from '../helpers/events';
import type { Harness } from '../helpers/harness';
import { startHarness, testId } from '../helpers/harness';

const deploy = defineTool({
  name: 'deploy',
  description: 'Deploy a service',
  input: z.object({ service: z.string() }),
  needsApproval: true,
  execute: ({ service }) => `deployed ${service}`,
});
const S = new ScriptedAgents();
// A name of its own: an agent rule is pushed only to the runs of its agent.
const AGENT = `rules_entity_${Math.random().toString(36).slice(2, 8)}`;
S.add(AGENT, [{ toolCalls: [{ name: 'deploy', args: { service: 'a' } }] }, { text: 'done' }], { tools: [deploy] });

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ agents: S.agents, providers: { scripted: S.provider }, approvalRules: { editors: ['ops:alice'] } });
});
afterAll(async () => {
  await h?.stop();
});

describe('the rules entity', () => {
  it('puts, lists and removes rules; versions grow; the memo and the change log follow', async () => {
    const rules = h.client.rules;
    const before = await rules.list();
    expect(before.editors).toEqual(['ops:alice']);
    const put = await rules.put(
      { scope: 'agent', agent: AGENT, tool: 'deploy', action: 'allow', when: { path: 'service', op: 'eq', value: 'a' } },
      { by: 'ops:alice', reason: 'a is safe' },
    );
    expect(put.version).toBe(before.version + 1);
    expect(put.rule).toMatchObject({
      id: expect.stringMatching(/^r-\d+$/),
      version: put.version,
      createdBy: 'ops:alice',
      path: 'sdk',
      reason: 'a is safe',
    });
    const id = put.rule!.id;
    // Replace by id.
    const replaced = await rules.put({ id, scope: 'agent', agent: AGENT, tool: 'deploy', action: 'ask' }, { by: 'ops:alice' });
    expect(replaced.version).toBe(put.version + 1);
    const listed = await rules.list();
    expect(listed.version).toBe(replaced.version);
    expect(listed.rules.filter((r) => r.id === id)).toEqual([replaced.rule]);
    expect(await rules.published()).toEqual({ version: listed.version, rules: listed.rules });
    const removed = await rules.remove(id, { by: 'ops:alice', path: 'cli', reason: 'done' });
    expect(removed.version).toBe(replaced.version + 1);
    expect((await rules.list()).rules.some((r) => r.id === id)).toBe(false);
    const log = (await rules.history()).filter((c) => c.ruleId === id);
    expect(log.map((c) => [c.op, c.version, c.by, c.path ?? null])).toEqual([
      ['put', put.version, 'ops:alice', 'sdk'],
      ['put', replaced.version, 'ops:alice', 'sdk'],
      ['remove', removed.version, 'ops:alice', 'cli'],
    ]);
    expect(log[2]!.reason).toBe('done');
  });

  it('refuses, writing nothing: a stale expectedVersion, a non-editor, a malformed rule', async () => {
    const rules = h.client.rules;
    const { version } = await rules.list();
    const rule = { scope: 'namespace' as const, tool: 'deploy', action: 'deny' as const };
    await expect(rules.put(rule, { by: 'ops:alice', expectedVersion: version - 1 })).rejects.toThrow(
      new RuleChangeRefusedError(`the rules changed: version is ${version}, not the expected ${version - 1} (read them again)`, 'conflict'),
    );
    await expect(rules.put(rule, { by: 'ops:alice', expectedVersion: version - 1 })).rejects.toMatchObject({ reason: 'conflict' });
    await expect(rules.put(rule, { by: 'ops:mallory' })).rejects.toThrow(/ops:mallory may not change the rules/);
    await expect(rules.put(rule, { by: 'ops:mallory' })).rejects.toMatchObject({ reason: 'forbidden', code: 'invalid_input' });
    await expect(rules.setEditors(['ops:mallory'], { by: 'ops:mallory' })).rejects.toThrow(/may not change the rules/);
    await expect(rules.put({ ...rule, scope: 'session' }, { by: 'ops:alice' })).rejects.toThrow(/rule.session/);
    await expect(rules.put({ ...rule, when: { path: 'x', op: 'like', value: 1 } as never }, { by: 'ops:alice' })).rejects.toThrow(
      /rule.when/,
    );
    await expect(rules.put({ ...rule, until: '2001-01-01T00:00:00Z' }, { by: 'ops:alice' })).rejects.toThrow(/has passed/);
    expect((await rules.list()).version).toBe(version);
    // An editor may hand the right on (and keep it).
    await rules.setEditors(['ops:alice', 'ops:bob'], { by: 'ops:alice' });
    expect(await rules.editors()).toEqual(['ops:alice', 'ops:bob']);
    expect((await rules.list()).version).toBe(version);
  });

  it('pushes each new version to the running runs of the rule’s agent (rulesChanged in their history)', async () => {
    const run = await h.client.start(AGENT, { input: 'deploy a', workflowId: testId('rules-push') });
    await waitForPending(run);
    const put = await h.client.rules.put({ scope: 'agent', agent: AGENT, tool: 'deploy', action: 'deny' }, { by: 'ops:alice' });
    const handle = h.temporal.workflow.getHandle(run.workflowId);
    const signalled = async (): Promise<RuleSet[]> => {
      const sets: RuleSet[] = [];
      for (const e of (await handle.fetchHistory()).events ?? []) {
        const s = e.workflowExecutionSignaledEventAttributes;
        if (s?.signalName === 'rulesChanged') sets.push(defaultPayloadConverter.fromPayload(s.input!.payloads![0]!));
      }
      return sets;
    };
    const sets = await pollUntil(signalled, (s) => s.some((x) => x.version === put.version), 'the rulesChanged signal');
    expect(sets.find((x) => x.version === put.version)!.rules).toContainEqual(put.rule);
    await h.client.rules.remove(put.rule!.id, { by: 'ops:alice' });
    await run.decide({ callId: 'call_1_0', decision: 'approve', by: 'ops:alice' });
    await run.result();
  });
});
