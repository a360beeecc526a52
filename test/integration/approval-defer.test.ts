/** Defer ("not now"), escalation and delegation of approval requests, on the real dev server. */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { z } from 'zod';
import type { AgentRun } from '../../src/client';
import { ApprovalRefusedError } from '../../src/client';
import { defineTool } from '../../src/agents/define';
import { agentTool } from '../../src/agents/agent-tool';
import type { PendingApproval } from '../../src/core/approvals/approvals';
import { outputText } from '../../src/core/messages/messages';
import { ScriptedAgents } from '../helpers/agents';
import { runCli, soleError, tempHome } from '../helpers/cli-run';
import { allEvents, pollUntil, resultWithin, toolResults } from '../helpers/events';
import type { Harness } from '../helpers/harness';
import { testId } from '../helpers/harness';
import type { ServedApi } from '../helpers/http-api';
import { serveTestApi } from '../helpers/http-api';
import { parseTokens } from '../../apps/http/auth';
import { randomUUID } from 'node:crypto';

const release = defineTool({
  name: 'release',
  description: 'Release a version',
  input: z.object({ version: z.string() }),
  approvers: ['ops:alice'],
  approvalTimeout: '30s',
  execute: ({ version }) => `released ${version}`,
});

const payout = defineTool({
  name: 'payout',
  description: 'Pay out; escalates to the leads, then expires',
  input: z.object({ amount: z.number() }),
  approvers: ['ops:alice'],
  escalate: { after: '700ms', to: ['ops:leads'] },
  approvalTimeout: '2500ms',
  onApprovalTimeout: 'deny',
  execute: ({ amount }) => `paid ${amount}`,
});

const tools = { tools: [release, payout] };
const oneRelease = [{ toolCalls: [{ name: 'release', args: { version: '1.2' } }] }, { text: 'done' }];
const onePayout = [{ toolCalls: [{ name: 'payout', args: { amount: 900 } }] }, { text: 'done' }];
const S = new ScriptedAgents();
S.add('defer_return', oneRelease, tools);
S.add('defer_decide', oneRelease, tools);
S.add('delegate', oneRelease, tools);
S.add('cli_defer', oneRelease, tools);
S.add('http_defer', oneRelease, tools);
const subChild = S.add('sub_child', oneRelease, tools);
S.add('sub_parent', [{ toolCalls: [{ name: 'sub_child', args: { input: 'release' } }] }, { text: 'the child released' }], {
  tools: [agentTool(subChild)],
});
S.add('escalate_expire', onePayout, tools);
S.add('escalate_decide', onePayout, tools);

const TOKENS = { alice: `alice-${randomUUID()}`, reader: `reader-${randomUUID()}` };
const AUTH = parseTokens(
  JSON.stringify({
    tokens: {
      [TOKENS.alice]: { identity: 'ops:alice', approve: true },
      [TOKENS.reader]: { identity: 'dashboard', permissions: ['read'] },
    },
  }),
  'test tokens',
);

let h: Harness;
let served: ServedApi;
beforeAll(async () => {
  served = await serveTestApi({ agents: S.agents, providers: { scripted: S.provider } }, AUTH);
  h = served.h;
});
afterAll(async () => {
  await served?.stop();
});

const pendingOf = (run: AgentRun, includeDeferred = false): Promise<PendingApproval[]> => run.pendingApprovals({ includeDeferred });
const waiting = (run: AgentRun) =>
  pollUntil(
    () => pendingOf(run),
    (p) => p.length === 1,
    `${run.workflowId} pending`,
  );
const refused = (p: Promise<unknown>, message: RegExp) =>
  expect(p).rejects.toSatisfy((e: unknown) => e instanceof ApprovalRefusedError && message.test(e.message));
const pendingCount = async (run: AgentRun) =>
  (await run.handle.describe()).typedSearchAttributes.getAll().find((p) => p.key.name === 'DurableAgentPendingApprovals')?.value;

describe('defer', () => {
  it('a deferred request leaves the inbox and returns at its time; it is not a decision', async () => {
    const run = await h.client.start('defer_return', { input: 'release', workflowId: testId('defer-return') });
    const [pending] = await waiting(run);
    const callId = pending!.callId;
    await refused(run.defer({ callId, until: new Date(Date.now() + 60_000), by: 'ops:alice' }), /must not be after the request expires/);
    await refused(run.defer({ callId, until: new Date(Date.now() - 1000), by: 'ops:alice' }), /must be in the future/);
    await refused(run.defer({ callId, until: new Date(Date.now() + 5000), by: 'mallory' }), /mallory may not decide/);

    const until = new Date(Date.now() + 1500);
    const receipt = await run.defer({ callId, until, by: 'ops:alice', reason: 'after lunch' });
    expect(receipt).toEqual({ callId, tool: 'release', until: until.toISOString(), by: 'ops:alice' });
    // Out of the inbox, still pending; the run still awaits approval; search attributes count it out.
    expect(await pendingOf(run)).toEqual([]);
    expect(await pendingOf(run, true)).toEqual([expect.objectContaining({ callId, deferredUntil: until.toISOString() })]);
    expect((await run.snapshot()).status).toBe('awaiting_approval');
    expect(await pendingCount(run)).toBe(0);

    // It returns at its time (durable timer).
    const [back] = await waiting(run);
    expect(Date.now()).toBeGreaterThanOrEqual(until.getTime() - 50);
    expect(back!.deferredUntil).toBeUndefined();
    expect(await pendingCount(run)).toBe(1);
    const types = (await allEvents(run)).map((e) => e.type);
    expect(types.filter((t) => t.startsWith('approval_'))).toEqual(['approval_requested', 'approval_deferred', 'approval_returned']);
    const deferred = (await allEvents(run)).find((e) => e.type === 'approval_deferred');
    expect(deferred).toMatchObject({ callId, until: until.toISOString(), by: 'ops:alice', reason: 'after lunch', path: 'sdk' });

    await run.decide({ callId, decision: 'approve', by: 'ops:alice' });
    const result = await resultWithin(run);
    expect(toolResults(result).map((b) => outputText(b.output))).toEqual(['released 1.2']);
  });

  it('a decision while deferred is taken; the request never returns', async () => {
    const run = await h.client.start('defer_decide', { input: 'release', workflowId: testId('defer-decide') });
    const [pending] = await waiting(run);
    await run.defer({ callId: pending!.callId, until: new Date(Date.now() + 800), by: 'ops:alice' });
    await run.decide({ callId: pending!.callId, decision: 'deny', by: 'ops:alice', reason: 'not this week' });
    const result = await resultWithin(run);
    expect(toolResults(result)[0]?.isError).toBe(true);
    await new Promise((r) => setTimeout(r, 900));
    const types = (await allEvents(run)).map((e) => e.type);
    expect(types).toContain('approval_deferred');
    expect(types).not.toContain('approval_returned');
  });
});

describe('delegation', () => {
  it('the delegate decides; a stranger is refused; a refused signal is an event', async () => {
    const run = await h.client.start('delegate', { input: 'release', workflowId: testId('delegate') });
    const [pending] = await waiting(run);
    const callId = pending!.callId;
    await refused(run.delegate({ callId, to: 'mallory', by: 'mallory' }), /mallory may not decide/);
    await run.signalDelegate({ callId, to: 'eve', by: 'eve' });
    expect(await run.delegate({ callId, to: 'ops:bob', by: 'ops:alice', reason: 'on call' })).toEqual({
      callId,
      tool: 'release',
      to: 'ops:bob',
      by: 'ops:alice',
    });
    expect(await pendingOf(run)).toEqual([expect.objectContaining({ callId, assignee: 'ops:bob' })]);
    await refused(
      run.decide({ callId, decision: 'approve', by: 'eve' }),
      /eve may not decide calls of "release" \(allowed: ops:alice, ops:bob\)/,
    );
    await run.decide({ callId, decision: 'approve', by: 'ops:bob' });
    const result = await resultWithin(run);
    expect(toolResults(result).map((b) => outputText(b.output))).toEqual(['released 1.2']);
    const events = await allEvents(run);
    expect(events.find((e) => e.type === 'approval_refused')).toMatchObject({
      callId,
      by: 'eve',
      reason: expect.stringMatching(/may not decide/),
    });
    expect(events.find((e) => e.type === 'approval_delegated')).toMatchObject({ callId, to: 'ops:bob', by: 'ops:alice', path: 'sdk' });
    expect(events.find((e) => e.type === 'approval_decided')).toMatchObject({ by: 'ops:bob', decision: 'approve' });
  });
});

describe('escalation', () => {
  it('after its wait the request escalates to a second group, then expires with its timeout action', async () => {
    const run = await h.client.start('escalate_expire', { input: 'pay', workflowId: testId('escalate-expire') });
    const [pending] = await waiting(run);
    await refused(run.decide({ callId: pending!.callId, decision: 'approve', by: 'ops:leads' }), /ops:leads may not decide/);
    const [escalated] = await pollUntil(
      () => pendingOf(run),
      (p) => p[0]?.escalated !== undefined,
      'escalation',
    );
    expect(escalated!.escalated).toMatchObject({ to: ['ops:leads'] });
    const result = await resultWithin(run);
    expect(toolResults(result)[0]?.isError).toBe(true);
    const types = (await allEvents(run)).map((e) => e.type).filter((t) => t.startsWith('approval_'));
    expect(types).toEqual(['approval_requested', 'approval_escalated', 'approval_expired']);
  });

  it('once escalated, the second group may decide', async () => {
    const run = await h.client.start('escalate_decide', { input: 'pay', workflowId: testId('escalate-decide') });
    const [pending] = await waiting(run);
    await pollUntil(
      () => pendingOf(run),
      (p) => p[0]?.escalated !== undefined,
      'escalation',
    );
    await run.decide({ callId: pending!.callId, decision: 'approve', by: 'ops:leads' });
    const result = await resultWithin(run);
    expect(toolResults(result).map((b) => outputText(b.output))).toEqual(['paid 900']);
  });
});

describe('from the command line', () => {
  it('`defer --until` and `delegate --to` go through the run; a refusal is one clear line', async () => {
    const home = tempHome();
    const cli = (args: string[]) => runCli([...args, '--address', inject('temporalAddress')], { home });
    const run = await h.client.start('cli_defer', { input: 'release', workflowId: testId('cli-defer') });
    const [pending] = await waiting(run);
    const callId = pending!.callId;
    const deferred = await cli(['defer', run.workflowId, callId, '--until', '1s', '--by', 'ops:alice', '--reason', 'later']);
    expect(deferred.stderr).toBe('');
    expect(deferred.stdout).toMatch(new RegExp(`^deferred ${callId} \\(release\\) until \\d{4}-.+ by ops:alice\\n$`));
    expect(await pendingOf(run)).toEqual([]);
    expect(soleError(await cli(['delegate', run.workflowId, callId, '--to', 'ops:bob', '--by', 'mallory']))).toMatch(
      /^error: refused: mallory may not decide calls of "release"/,
    );
    const delegated = await cli(['delegate', run.workflowId, callId, '--to', 'ops:bob', '--by', 'ops:alice', '--json']);
    expect(JSON.parse(delegated.stdout)).toEqual({ callId, tool: 'release', to: 'ops:bob', by: 'ops:alice' });
    await waiting(run);
    await run.decide({ callId, decision: 'approve', by: 'ops:bob' });
    expect((await resultWithin(run)).status).toBe('success');
    const events = await allEvents(run);
    expect(events.find((e) => e.type === 'approval_deferred')).toMatchObject({ path: 'cli', reason: 'later' });
    expect(events.find((e) => e.type === 'approval_delegated')).toMatchObject({ path: 'cli' });
  });
});

describe('over HTTP', () => {
  it("POST …/defer and …/delegate act as the token's identity and need `decide`", async () => {
    const post = (path: string, token: string, body: unknown) =>
      fetch(`${served.server.url}${path}`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
    const run = await h.client.start('http_defer', { input: 'release', workflowId: testId('http-defer') });
    const [pending] = await waiting(run);
    const base = `/runs/${run.workflowId}/approvals/${pending!.callId}`;
    const until = new Date(Date.now() + 1000).toISOString();
    const forbidden = await post(`${base}/defer`, TOKENS.reader, { until });
    expect(forbidden.status).toBe(403);
    expect(await forbidden.json()).toMatchObject({ missing: 'decide' });
    const bad = await post(`${base}/defer`, TOKENS.alice, { until: 'soon' });
    expect(bad.status).toBe(400);
    const tooLate = await post(`${base}/defer`, TOKENS.alice, { until: new Date(Date.now() + 600_000).toISOString() });
    expect(tooLate.status).toBe(403);
    expect(await tooLate.json()).toMatchObject({ error: { code: 'approval_refused' } });
    const ok = await post(`${base}/defer`, TOKENS.alice, { until, reason: 'later' });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ callId: pending!.callId, tool: 'release', until, by: 'ops:alice' });
    const delegated = await post(`${base}/delegate`, TOKENS.alice, { to: 'ops:bob' });
    expect(await delegated.json()).toMatchObject({ to: 'ops:bob', by: 'ops:alice' });
    await waiting(run);
    await run.decide({ callId: pending!.callId, decision: 'approve', by: 'ops:bob' });
    expect((await resultWithin(run)).status).toBe('success');
    const events = await allEvents(run);
    expect(events.find((e) => e.type === 'approval_deferred')).toMatchObject({ by: 'ops:alice', path: 'http' });
    expect(events.find((e) => e.type === 'approval_delegated')).toMatchObject({ by: 'ops:alice', path: 'http' });
  });
});

describe('sub-agents', () => {
  it("a child's request is deferred and delegated through the parent", async () => {
    const run = await h.client.start('sub_parent', { input: 'release through the child', workflowId: testId('sub-defer') });
    const [pending] = await waiting(run);
    const callId = pending!.callId;
    await refused(run.defer({ callId, until: new Date(Date.now() + 5000), by: 'mallory' }), /mallory may not decide/);
    await run.defer({ callId, until: new Date(Date.now() + 1000), by: 'ops:alice' });
    // The child applies it and reports: the parent's inbox leaves it out, then it returns.
    await pollUntil(
      () => pendingOf(run, true),
      (p) => p[0]?.deferredUntil !== undefined,
      'deferred in the child',
    );
    expect(await pendingOf(run)).toEqual([]);
    await pollUntil(
      () => pendingOf(run),
      (p) => p.length === 1,
      'returned from the child',
    );
    await run.delegate({ callId, to: 'ops:bob', by: 'ops:alice' });
    await pollUntil(
      () => pendingOf(run),
      (p) => p[0]?.assignee === 'ops:bob',
      'delegated in the child',
    );
    await run.decide({ callId, decision: 'approve', by: 'ops:bob' });
    expect((await resultWithin(run)).status).toBe('success');
    // The parent's trail says what it forwarded; the child's records follow, tagged with the child.
    const trail = await run.audit({ children: true });
    const [childId] = trail.filter((r) => r.child).map((r) => r.child);
    expect(childId).toBeDefined();
    expect(
      trail.filter((r) => !r.child && r.kind === 'forwarded').map((r) => [r.callId, r.forwarded, r.by, r.decision ?? null, r.path]),
    ).toEqual([
      [callId, { kind: 'defer', workflowId: childId }, 'ops:alice', null, 'sdk'],
      [callId, { kind: 'delegate', workflowId: childId }, 'ops:alice', null, 'sdk'],
      [callId, { kind: 'decision', workflowId: childId }, 'ops:bob', 'approve', 'sdk'],
    ]);
    expect(trail.filter((r) => r.child).map((r) => [r.kind, r.by ?? null, r.path ?? null])).toEqual([
      ['requested', null, null],
      ['deferred', 'ops:alice', 'sdk'],
      ['returned', null, null],
      ['delegated', 'ops:alice', 'sdk'],
      ['decided', 'ops:bob', 'sdk'],
    ]);
  });
});
