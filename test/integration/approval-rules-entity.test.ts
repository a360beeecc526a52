/** The namespace's rules entity (issue 26): standing rules stored, changed, listed and pushed to running runs, on the real dev server. */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { z } from 'zod';
import { defaultPayloadConverter } from '@temporalio/common';
import { defineTool } from '../../src/agents/define';
import { RULES_MEMO_KEY, RULES_TASK_QUEUE } from '../../src/core/approvals/rules';
import { putRuleUpdate, ruleChangesQuery, RULES_WORKFLOW, rulesQuery } from '../../src/workflows/rules-definitions';
import { RuleChangeRefusedError } from '../../src/client/rules';
import type { RuleSet } from '../../src/core/approvals/rules';
import { ScriptedAgents } from '../helpers/agents';
import { pollUntil, waitForPending } from '../helpers/events';
import type { Harness } from '../helpers/harness';
import { startHarness, testId } from '../helpers/harness';
import { Keyring } from '../../src/integrations/encryption/keyring';
import { runCli, soleError, tempHome } from '../helpers/cli-run';
import { parseTokens } from '../../apps/http/auth';
import type { ServedApi } from '../helpers/http-api';
import { serveTestApi } from '../helpers/http-api';
import { RULES_TEST_NAMESPACES } from '../setup/namespaces';

/** This file's namespace: its own rules entity (versions here grow only by this file's changes). */
const NAMESPACE = RULES_TEST_NAMESPACES.entity;

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

const token = (name: string): string => `${name}-${Math.random().toString(36).slice(2)}-token`;
const ALICE = token('alice');
const BOB = token('bob');
const MALLORY = token('mallory');
const AUTH = parseTokens(
  JSON.stringify({
    tokens: {
      [ALICE]: { identity: 'ops:alice', permissions: ['read', 'rules', 'decide'] },
      [BOB]: { identity: 'ops:bob', permissions: ['read', 'decide'] },
      [MALLORY]: { identity: 'ops:mallory', permissions: ['read', 'rules'] },
    },
  }),
  'test tokens',
);

let api: ServedApi;
let h: Harness;
beforeAll(async () => {
  api = await serveTestApi(
    { agents: S.agents, providers: { scripted: S.provider }, approvalRules: { editors: ['ops:alice'] }, namespace: NAMESPACE },
    AUTH,
  );
  h = api.h;
});
afterAll(async () => {
  await api?.stop();
});

/** What the rules routes answer (the fields these tests read). */
interface Answer {
  editors?: string[];
  version: number;
  rule: { id: string };
  error: { code: string; message: string };
  missing?: string;
  changes: Array<{ ruleId?: string; op: string; path?: string }>;
}

/** A JSON request to the API with a token. */
async function call_(token: string, method: string, path: string, body?: unknown): Promise<{ status: number; json: Answer }> {
  const res = await fetch(`${api.server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, json: (await res.json()) as Answer };
}

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
    // The run applies the pushed rule to the call that waits: denied by the rule, named with its version.
    const result = await run.result();
    expect(result.report.toolCalls[0]?.approval).toMatchObject({
      decision: 'deny',
      by: `rule:${put.rule!.id}`,
      path: 'rule',
      rule: { id: put.rule!.id, version: put.version, scope: 'agent' },
    });
  });

  it('over HTTP: reads need read; changes need the rules permission and an editor; the maker is the token', async () => {
    const listed = await call_(BOB, 'GET', '/rules');
    expect(listed.status).toBe(200);
    expect(listed.json.editors).toEqual(expect.arrayContaining(['ops:alice']));
    const rule = { scope: 'agent', agent: AGENT, tool: 'deploy', action: 'ask', when: { path: 'service', op: 'eq', value: 'b' } };
    // A token without `rules`: refused before the entity is asked.
    const noPermission = await call_(BOB, 'POST', '/rules', rule);
    expect(noPermission.status).toBe(403);
    expect(noPermission.json).toMatchObject({ error: { code: 'forbidden' }, missing: 'rules' });
    // With `rules` but not an editor: the entity refuses.
    const notEditor = await call_(MALLORY, 'POST', '/rules', rule);
    expect(notEditor.status).toBe(403);
    expect(notEditor.json.error).toMatchObject({
      code: 'rule_refused',
      message: expect.stringContaining('ops:mallory may not change the rules'),
    });
    expect((await call_(ALICE, 'POST', '/rules', { ...rule, by: 'ops:bob' })).status).toBe(400);
    const created = await call_(ALICE, 'POST', '/rules', { ...rule, reason: 'b asks' });
    expect(created.status).toBe(201);
    expect(created.json.rule).toMatchObject({ createdBy: 'ops:alice', path: 'http', reason: 'b asks', version: created.json.version });
    const id = created.json.rule.id;
    const stale = await call_(ALICE, 'PUT', `/rules/${id}`, { ...rule, action: 'deny', expectedVersion: created.json.version - 1 });
    expect(stale.status).toBe(409);
    expect(stale.json.error.code).toBe('rule_conflict');
    const replaced = await call_(ALICE, 'PUT', `/rules/${id}`, { ...rule, action: 'deny', expectedVersion: created.json.version });
    expect(replaced.status).toBe(200);
    expect(replaced.json.rule).toMatchObject({ id, action: 'deny', version: created.json.version + 1 });
    const bad = await call_(ALICE, 'POST', '/rules', { ...rule, when: { path: 'service', op: 'like' } });
    expect(bad.status).toBe(400);
    expect(bad.json.error.message).toMatch(/^rule.when: /);
    expect((await call_(BOB, 'DELETE', `/rules/${id}`)).status).toBe(403);
    const removed = await call_(ALICE, 'DELETE', `/rules/${id}`);
    expect(removed.status).toBe(200);
    expect(removed.json.version).toBe(replaced.json.version + 1);
    const changes = await call_(BOB, 'GET', `/rules/history?after=0`);
    expect(changes.json.changes.filter((e) => e.ruleId === id).map((e) => [e.op, e.path])).toEqual([
      ['put', 'http'],
      ['put', 'http'],
      ['remove', 'http'],
    ]);
  });

  it('from the command line: add (infix --when), list, a refused change, remove, editors', async () => {
    const home = tempHome();
    const cli = (args: string[]) => runCli([...args, '--address', inject('temporalAddress'), '--namespace', NAMESPACE], { home });
    const added = await cli([
      'rules',
      'add',
      '--agent',
      AGENT,
      '--tool',
      'deploy',
      '--action',
      'allow',
      '--when',
      'service=a',
      '--by',
      'ops:alice',
      '--json',
    ]);
    expect(added.stderr).toBe('');
    const receipt = JSON.parse(added.stdout) as { version: number; rule: { id: string } };
    expect(receipt.rule).toMatchObject({
      scope: 'agent',
      agent: AGENT,
      when: { path: 'service', op: 'eq', value: 'a' },
      createdBy: 'ops:alice',
      path: 'cli',
    });
    const listed = await cli(['rules', 'list']);
    expect(listed.stdout).toContain(
      `${receipt.rule.id} v${receipt.version}  [agent ${AGENT}]  allow deploy  when service == "a"  by ops:alice via cli`,
    );
    expect(soleError(await cli(['rules', 'remove', receipt.rule.id, '--by', 'ops:mallory']))).toMatch(
      /^error: refused: ops:mallory may not change the rules/,
    );
    const removed = await cli(['rules', 'remove', receipt.rule.id, '--by', 'ops:alice', '--expected-version', String(receipt.version)]);
    expect(removed.stdout.trim()).toBe(`rules version ${receipt.version + 1}: removed ${receipt.rule.id}`);
    const editors = await cli(['rules', 'editors', '--json']);
    expect((JSON.parse(editors.stdout) as { editors: string[] }).editors).toContain('ops:alice');
  }, 120_000);

  it('decide with scope agent writes the standing rule first, by an editor only (the run side is the gate’s)', async () => {
    const run = await h.client.start(AGENT, { input: 'deploy a', workflowId: testId('rules-decide') });
    const [call] = await waitForPending(run);
    const before = await h.client.rules.list();
    // Not an editor: refused by the entity, nothing written, nothing decided.
    await expect(run.decide({ callId: call!.callId, decision: 'approve', by: 'ops:mallory', scope: 'agent' })).rejects.toMatchObject({
      reason: 'forbidden',
    });
    expect((await h.client.rules.list()).version).toBe(before.version);
    expect((await run.pendingApprovals()).map((p) => p.callId)).toEqual([call!.callId]);
    const t0 = Date.now();
    // The run side applies it (the gate's tests); a worker that does not know scope agent refuses the decision.
    await run
      .decide({ callId: call!.callId, decision: 'approve', by: 'ops:alice', scope: 'agent', match: 'args', for: '8h', reason: 'a is fine' })
      .catch(() => undefined);
    const after = await h.client.rules.list();
    expect(after.version).toBe(before.version + 1);
    const rule = after.rules.at(-1)!;
    expect(rule).toMatchObject({
      scope: 'agent',
      agent: AGENT,
      tool: 'deploy',
      action: 'allow',
      when: { all: [{ path: 'service', op: 'eq', value: 'a' }] },
      createdBy: 'ops:alice',
      path: 'sdk',
      reason: 'a is fine',
    });
    expect(Date.parse(rule.until!) - t0).toBeGreaterThanOrEqual(8 * 3600_000 - 1000);
    await h.client.rules.remove(rule.id, { by: 'ops:alice' });
    if ((await run.pendingApprovals()).length) await run.decide({ callId: call!.callId, decision: 'approve', by: 'ops:alice' });
    expect((await run.result()).status).toBe('success');
  });

  it('over HTTP: a decision with scope agent needs the rules permission too; it writes the rule as the token', async () => {
    const run = await h.client.start(AGENT, { input: 'deploy a', workflowId: testId('rules-http-decide') });
    const [call] = await waitForPending(run);
    const path = `/runs/${run.workflowId}/approvals/${call!.callId}`;
    const refused = await call_(BOB, 'POST', path, { decision: 'approve', scope: 'agent', for: '1h' });
    expect(refused.status).toBe(403);
    expect(refused.json).toMatchObject({ error: { code: 'forbidden' }, missing: 'rules' });
    const before = await h.client.rules.list();
    await call_(ALICE, 'POST', path, { decision: 'approve', scope: 'agent', for: '1h' });
    const after = await h.client.rules.list();
    expect(after.version).toBe(before.version + 1);
    const rule = after.rules.at(-1)!;
    expect(rule).toMatchObject({ scope: 'agent', agent: AGENT, tool: 'deploy', action: 'allow', createdBy: 'ops:alice', path: 'http' });
    await h.client.rules.remove(rule.id, { by: 'ops:alice' });
    if ((await run.pendingApprovals()).length) await run.decide({ callId: call!.callId, decision: 'approve', by: 'ops:alice' });
    expect((await run.result()).status).toBe('success');
  });

  it('continues as new after its changes, carrying the rules, editors, version and change log', async () => {
    // An entity of its own (same workflow type and queue, another id), continuing after every 2 changes.
    const id = testId('rules-can');
    const handle = await h.temporal.workflow.start(RULES_WORKFLOW, {
      workflowId: id,
      taskQueue: RULES_TASK_QUEUE,
      args: [{ editors: ['ops:alice'], changesPerExecution: 2 }],
    });
    try {
      const rule = { scope: 'agent' as const, agent: `${AGENT}-nobody`, tool: 'deploy', action: 'deny' as const };
      for (let i = 0; i < 3; i++) await handle.executeUpdate(putRuleUpdate, { args: [{ rule, by: 'ops:alice' }] });
      const first = h.temporal.workflow.getHandle(id, handle.firstExecutionRunId);
      await pollUntil(
        async () => (await first.describe()).status.name,
        (s) => s === 'CONTINUED_AS_NEW',
        'the first execution',
      );
      const view = await h.temporal.workflow.getHandle(id).query(rulesQuery);
      expect(view).toEqual({
        version: 3,
        rules: [1, 2, 3].map((n) => expect.objectContaining({ id: `r-${n}`, version: n })),
        editors: ['ops:alice'],
      });
      const log = await h.temporal.workflow.getHandle(id).query(ruleChangesQuery);
      expect(log.map((c) => [c.seq, c.op, c.version])).toEqual([
        [1, 'put', 1],
        [2, 'put', 2],
        [3, 'put', 3],
      ]);
    } finally {
      await h.temporal.workflow.getHandle(id).terminate('test done');
    }
  });

  it('publishes the set in its memo through the payload codec: sealed with the keys, readable only with them', async () => {
    // An encrypted worker on a queue of its own runs an entity of its own.
    const keys = Keyring.parse(`k1:${Buffer.alloc(32, 7).toString('base64')}`);
    const sealed = await startHarness({ agents: S.agents, providers: { scripted: S.provider }, encryption: keys, namespace: NAMESPACE });
    const id = testId('rules-sealed');
    try {
      const handle = await sealed.temporal.workflow.start(RULES_WORKFLOW, {
        workflowId: id,
        taskQueue: sealed.taskQueue,
        args: [{ editors: ['ops:alice'] }],
      });
      const secret = `s3cret-${id}`;
      await handle.executeUpdate(putRuleUpdate, {
        args: [{ rule: { scope: 'session', session: secret, tool: 'deploy', action: 'deny' }, by: 'ops:alice' }],
      });
      const withKeys = await pollUntil(
        async () => ((await handle.describe()).memo?.[RULES_MEMO_KEY] as RuleSet | undefined)?.version,
        (v) => v === 1,
        'the published version',
      );
      expect(withKeys).toBe(1);
      // Without the keys: the memo cannot be read, and its bytes hold no rule.
      await expect(h.temporal.workflow.getHandle(id).describe()).rejects.toThrow(/encrypted with key id "k1"/);
      const raw = await h.temporal.workflowService.describeWorkflowExecution({ namespace: NAMESPACE, execution: { workflowId: id } });
      const payload = raw.workflowExecutionInfo?.memo?.fields?.[RULES_MEMO_KEY];
      expect(Buffer.from(payload!.metadata!.encoding!).toString()).not.toBe('json/plain');
      expect(Buffer.from(payload!.data!).toString('latin1')).not.toContain(secret);
    } finally {
      await h.temporal.workflow
        .getHandle(id)
        .terminate('test done')
        .catch(() => undefined);
      await sealed.stop();
    }
  });
});
