/** Human approvals of tool calls, decided by signal, update and the real `temporal` CLI, on the real dev server. */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { z } from 'zod';
import type { AgentRun } from '../../src/client';
import { ApprovalRefusedError } from '../../src/client';
import { defineTool } from '../../src/agents/define';
import type { PendingApproval } from '../../src/core/approvals/approvals';
import type { AgentEvent } from '../../src/core/events/events';
import type { ToolResultBlock } from '../../src/core/messages/messages';
import { outputText } from '../../src/core/messages/messages';
import type { AgentRunResult } from '../../src/core/run/result';
import { ScriptedAgents } from '../helpers/agents';
import type { Harness } from '../helpers/harness';
import { startHarness, testId } from '../helpers/harness';
import { echo } from '../helpers/tools';

const exec = promisify(execFile);

/** Executions of the guarded tools in this process, by call id. */
const ran: string[] = [];
const record = (ctx: { workflowId: string; callId: string }, value: string) => {
  ran.push(`${ctx.workflowId}/${ctx.callId}`);
  return value;
};

const deploy = defineTool({
  name: 'deploy',
  description: 'Deploy a service',
  input: z.object({ service: z.string() }),
  needsApproval: true,
  execute: ({ service }, ctx) => record(ctx, `deployed ${service}`),
});

const refund = defineTool({
  name: 'refund',
  description: 'Refund a customer; amounts over 100 need ops approval',
  input: z.object({ amount: z.number() }),
  needsApproval: ({ amount }) => amount > 100,
  approvers: ['ops:alice'],
  approvalTimeout: '2s',
  onApprovalTimeout: 'deny',
  execute: ({ amount }, ctx) => record(ctx, `refunded ${amount}`),
});

const wire = defineTool({
  name: 'wire',
  description: 'Wire money; an unanswered request fails the run',
  input: z.object({ amount: z.number() }),
  needsApproval: true,
  approvalTimeout: '1500ms',
  onApprovalTimeout: 'fail',
  execute: ({ amount }, ctx) => record(ctx, `wired ${amount}`),
});

const lookup = defineTool({
  name: 'lookup',
  description: 'Read-only lookup, no approval',
  input: z.object({ key: z.string() }),
  readOnly: true,
  execute: ({ key }, ctx) => record(ctx, `value of ${key}`),
});

const tools = { tools: [deploy, refund, wire, lookup, echo] };
const S = new ScriptedAgents();
const oneDeploy = [{ toolCalls: [{ name: 'deploy', args: { service: 'api' } }] }, { text: 'finished' }];
S.add('approve_one', oneDeploy, tools);
S.add('deny_one', oneDeploy, tools);
S.add('skip_one', oneDeploy, tools);
S.add('by_cli', oneDeploy, tools);
S.add('by_cli_update', oneDeploy, tools);
S.add('offline', oneDeploy, tools);
S.add(
  'sticky',
  [
    {
      toolCalls: [
        { name: 'deploy', args: { service: 'a' } },
        { name: 'deploy', args: { service: 'b' } },
      ],
    },
    { toolCalls: [{ name: 'deploy', args: { service: 'c' } }] },
    { text: 'all deployed' },
  ],
  tools,
);
S.add(
  'two_pending',
  [
    {
      toolCalls: [
        { name: 'lookup', args: { key: 'before' } },
        { name: 'deploy', args: { service: 'first' } },
        { name: 'deploy', args: { service: 'second' } },
      ],
    },
    { text: 'both decided' },
  ],
  tools,
);
S.add(
  'parallel_wait',
  [
    {
      toolCalls: [
        { name: 'lookup', args: { key: 'x' } },
        { name: 'refund', args: { amount: 500 } },
        { name: 'lookup', args: { key: 'y' } },
      ],
    },
    { text: 'done' },
  ],
  { ...tools, tools: [lookup, defineTool({ ...refund, readOnly: true })] },
);
S.add(
  'conditional',
  [
    {
      toolCalls: [
        { name: 'refund', args: { amount: 50 } },
        { name: 'refund', args: { amount: 500 } },
      ],
    },
    { text: 'refunds handled' },
  ],
  tools,
);
S.add('refusals', oneDeploy, tools);
S.add('expire_deny', [{ toolCalls: [{ name: 'refund', args: { amount: 900 } }] }, { text: 'ok, not refunded' }], tools);
S.add('expire_fail', [{ toolCalls: [{ name: 'wire', args: { amount: 900 } }] }, { text: 'never reached' }], tools);
S.add(
  'policy',
  [
    {
      toolCalls: [
        { name: 'deploy', args: { service: 'api' } },
        { name: 'lookup', args: { key: 'k' } },
      ],
    },
    { text: 'done' },
  ],
  tools,
);

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ agents: S.agents, providers: { scripted: S.provider } });
});
afterAll(async () => {
  await h?.stop();
});

async function waitForPending(run: AgentRun, count = 1): Promise<PendingApproval[]> {
  for (let i = 0; i < 200; i++) {
    const pending = await run.pendingApprovals();
    if (pending.length >= count) return pending;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no ${count} pending approvals for ${run.workflowId}`);
}

async function events(run: AgentRun): Promise<AgentEvent[]> {
  return (await run.readEvents(0)).events;
}

function results(result: AgentRunResult): ToolResultBlock[] {
  return result.messages.flatMap((m) => m.content.filter((b): b is ToolResultBlock => b.type === 'tool_result'));
}

const ranFor = (run: AgentRun) => ran.filter((r) => r.startsWith(`${run.workflowId}/`));

/** How many times the history scheduled `runTool` for `callId`. */
async function toolSchedules(run: AgentRun, callId: string): Promise<number> {
  const history = await run.handle.fetchHistory();
  return (history.events ?? []).filter((e) => {
    const a = e.activityTaskScheduledEventAttributes;
    if (a?.activityType?.name !== 'runTool') return false;
    const payload = a.input?.payloads?.[0]?.data;
    return payload ? Buffer.from(payload).toString('utf8').includes(`"callId":"${callId}"`) : false;
  }).length;
}

describe('approvals', () => {
  it('approve: the tool runs exactly once after a person approves; the run is findable meanwhile', async () => {
    const run = await h.client.start('approve_one', { input: 'deploy', workflowId: testId('approve') });
    const [pending] = await waitForPending(run);
    expect(pending).toMatchObject({ callId: 'call_1_0', tool: 'deploy', args: { service: 'api' }, step: 1 });
    expect(pending!.requestedAt).toMatch(/^\d{4}-/);
    expect((await run.snapshot()).status).toBe('awaiting_approval');
    expect(ranFor(run)).toEqual([]);

    // Visibility: the run shows up among runs waiting for people (search attributes are eventually consistent).
    let listed = false;
    for (let i = 0; i < 100 && !listed; i++) {
      listed = (await h.client.awaitingApproval()).some(
        (r) => r.workflowId === run.workflowId && r.agent === 'approve_one' && r.pending.length === 1,
      );
      if (!listed) await new Promise((r) => setTimeout(r, 100));
    }
    expect(listed).toBe(true);

    const receipt = await run.decide({ callId: 'call_1_0', decision: 'approve', by: 'ops:alice', reason: 'looks fine' });
    expect(receipt).toEqual({ callId: 'call_1_0', tool: 'deploy', decision: 'approve', by: 'ops:alice', applied: ['call_1_0'] });
    const result = await run.result();
    expect(result.status).toBe('success');
    expect(results(result).map((b) => outputText(b.output))).toEqual(['deployed api']);
    expect(ranFor(run)).toEqual([`${run.workflowId}/call_1_0`]);
    expect(await toolSchedules(run, 'call_1_0')).toBe(1);
    const types = (await events(run)).map((e) => e.type);
    expect(types).toContain('approval_requested');
    expect(types.indexOf('approval_requested')).toBeLessThan(types.indexOf('approval_decided'));
    expect(types.indexOf('approval_decided')).toBeLessThan(types.indexOf('tool_result'));
    const described = await run.handle.describe();
    expect(described.typedSearchAttributes.getAll().map((p) => [p.key.name, p.value])).toEqual(
      expect.arrayContaining([
        ['DurableAgentAwaitingApproval', false],
        ['DurableAgentPendingApprovals', 0],
        ['DurableAgentStatus', 'success'],
        ['DurableAgentName', 'approve_one'],
      ]),
    );
  });

  it('deny: the model is told who denied it and why; the tool never runs', async () => {
    const run = await h.client.start('deny_one', { input: 'deploy', workflowId: testId('deny') });
    await waitForPending(run);
    await run.decide({ callId: 'call_1_0', decision: 'deny', by: 'ops:bob', reason: 'change freeze' });
    const result = await run.result();
    expect(result.status).toBe('success');
    const [r] = results(result);
    expect(r!.isError).toBe(true);
    expect(outputText(r!.output)).toBe('Denied by ops:bob: change freeze. The tool was not run.');
    expect(ranFor(run)).toEqual([]);
    expect(await toolSchedules(run, 'call_1_0')).toBe(0);
  });

  it('skip: the model is told the call was skipped', async () => {
    const run = await h.client.start('skip_one', { input: 'deploy', workflowId: testId('skip') });
    await waitForPending(run);
    await run.signalDecision({ callId: 'call_1_0', decision: 'skip', by: 'ops:carol' });
    const result = await run.result();
    const [r] = results(result);
    expect(r!.isError).toBe(false);
    expect(outputText(r!.output)).toBe('Skipped by ops:carol. The tool was not run.');
    expect(ranFor(run)).toEqual([]);
  });

  it('approve all calls of a tool: pending ones and later steps run without asking again', async () => {
    const run = await h.client.start('sticky', { input: 'deploy all', workflowId: testId('sticky') });
    await waitForPending(run, 2);
    const receipt = await run.decide({ callId: 'call_1_0', decision: 'approve', by: 'ops:alice', scope: 'tool' });
    expect(receipt.applied).toEqual(['call_1_0', 'call_1_1']);
    const result = await run.result();
    expect(result.status).toBe('success');
    expect(results(result).map((b) => outputText(b.output))).toEqual(['deployed a', 'deployed b', 'deployed c']);
    const evts = await events(run);
    expect(evts.filter((e) => e.type === 'approval_requested').map((e) => (e as { callId: string }).callId)).toEqual([
      'call_1_0',
      'call_1_1',
    ]);
    expect(
      evts.filter((e) => e.type === 'approval_decided').map((e) => [(e as { callId: string }).callId, (e as { sticky: boolean }).sticky]),
    ).toEqual([
      ['call_1_0', false],
      ['call_1_1', true],
    ]);
  });

  it('two pending calls decided in reverse order: each decided on its own, results in call order', async () => {
    const run = await h.client.start('two_pending', { input: 'go', workflowId: testId('two') });
    const pending = await waitForPending(run, 2);
    expect(pending.map((p) => p.callId)).toEqual(['call_1_1', 'call_1_2']);
    // The read-only call that needs no approval runs while both wait (requests go out first, then it runs).
    for (let i = 0; i < 200 && ranFor(run).length === 0; i++) await new Promise((r) => setTimeout(r, 25));
    expect(ranFor(run)).toEqual([`${run.workflowId}/call_1_0`]);
    expect((await run.pendingApprovals()).map((p) => p.callId)).toEqual(['call_1_1', 'call_1_2']);
    await run.decide({ callId: 'call_1_2', decision: 'approve', by: 'ops:alice' });
    expect((await run.pendingApprovals()).map((p) => p.callId)).toEqual(['call_1_1']);
    await run.decide({ callId: 'call_1_1', decision: 'approve', by: 'ops:bob' });
    const result = await run.result();
    expect(results(result).map((b) => outputText(b.output))).toEqual(['value of before', 'deployed first', 'deployed second']);
    // Serial calls keep the model's order even though the second was approved first.
    expect(ranFor(run)).toEqual([`${run.workflowId}/call_1_0`, `${run.workflowId}/call_1_1`, `${run.workflowId}/call_1_2`]);
  });

  it('read-only calls that need no approval run while another waits', async () => {
    const run = await h.client.start('parallel_wait', { input: 'go', workflowId: testId('pw') });
    await waitForPending(run);
    for (let i = 0; i < 100 && ranFor(run).length < 2; i++) await new Promise((r) => setTimeout(r, 50));
    expect(ranFor(run).sort()).toEqual([`${run.workflowId}/call_1_0`, `${run.workflowId}/call_1_2`]);
    await run.decide({ callId: 'call_1_1', decision: 'approve', by: 'ops:alice' });
    const result = await run.result();
    expect(results(result).map((b) => outputText(b.output))).toEqual(['value of x', 'refunded 500', 'value of y']);
  });

  it('asks only when the predicate says so, and only allowed approvers may decide', async () => {
    const run = await h.client.start('conditional', { input: 'refunds', workflowId: testId('cond') });
    const [pending] = await waitForPending(run);
    expect(pending).toMatchObject({ callId: 'call_1_1', args: { amount: 500 }, approvers: ['ops:alice'] });
    expect(pending!.expiresAt).toBeDefined();
    await expect(run.decide({ callId: 'call_1_1', decision: 'approve', by: 'ops:mallory' })).rejects.toThrow(
      'ops:mallory may not decide calls of "refund" (allowed: ops:alice)',
    );
    await run.decide({ callId: 'call_1_1', decision: 'approve', by: 'ops:alice' });
    const result = await run.result();
    expect(results(result).map((b) => outputText(b.output))).toEqual(['refunded 50', 'refunded 500']);
  });

  it('refuses bad decisions with a clear reason and writes nothing to history', async () => {
    const run = await h.client.start('refusals', { input: 'deploy', workflowId: testId('refuse') });
    await waitForPending(run);
    const before = (await run.handle.fetchHistory()).events?.length ?? 0;
    await expect(run.decide({ callId: 'call_9_9', decision: 'approve', by: 'ops:alice' })).rejects.toThrow(
      'no approval is pending for call "call_9_9"',
    );
    await expect(run.decide({ callId: 'call_1_0', decision: 'maybe' as 'approve', by: 'ops:alice' })).rejects.toThrow(
      'malformed decision: decision must be one of approve, deny, skip',
    );
    await expect(run.decide({ callId: 'call_1_0', decision: 'approve', by: '' })).rejects.toThrow(/by must name who decided/);
    await expect(run.decide({ callId: 'call_1_0', decision: 'approve', by: 'x' })).resolves.toMatchObject({ applied: ['call_1_0'] });
    const second = await run.decide({ callId: 'call_1_0', decision: 'deny', by: 'y' }).catch((e: unknown) => e);
    expect(second).toBeInstanceOf(ApprovalRefusedError);
    expect((second as Error).message).toBe('call "call_1_0" was already decided (approve by x)');
    const result = await run.result();
    expect(result.status).toBe('success');
    expect(ranFor(run)).toHaveLength(1);
    // Rejected updates left no trace in history: only the accepted one did (accepted + completed events).
    const history = (await run.handle.fetchHistory()).events ?? [];
    const updates = history.filter((e) => e.workflowExecutionUpdateAcceptedEventAttributes);
    expect(updates).toHaveLength(1);
    expect(history.length).toBeGreaterThan(before);
  });

  it('a signal that cannot apply is recorded as approval_refused, changing nothing; one for a call not reached waits', async () => {
    const run = await h.client.start('approve_one', { input: 'deploy', workflowId: testId('badsig') });
    await waitForPending(run);
    await run.handle.signal('approval', { callId: 'nope', decision: 'approve', by: 'ops:alice' });
    await run.handle.signal('approval', { decision: 'approve' });
    for (let i = 0; i < 100; i++) {
      if ((await events(run)).filter((e) => e.type === 'approval_refused').length >= 1) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const refused = (await events(run)).filter((e) => e.type === 'approval_refused');
    expect(refused.map((e) => (e as { reason: string }).reason)).toEqual([
      'malformed decision: callId must be a non-empty string; by must name who decided (e.g. "ops:alice")',
    ]);
    // "nope" may be a call of a step not reached yet: it is kept, not applied.
    expect((await events(run)).find((e) => e.type === 'approval_queued')).toMatchObject({
      callId: 'nope',
      by: 'ops:alice',
      decision: 'approve',
    });
    expect(await run.pendingApprovals()).toHaveLength(1);
    await run.signalDecision({ callId: 'call_1_0', decision: 'approve', by: 'ops:alice' });
    expect((await run.result()).status).toBe('success');
    // The run ended without reaching it: the queued decision is refused, saying so.
    expect((await events(run)).filter((e) => e.type === 'approval_refused').map((e) => (e as { reason: string }).reason)).toContain(
      'the run ended before call "nope" asked for approval',
    );
  });

  it('an expired approval denies the call when so configured', async () => {
    const run = await h.client.start('expire_deny', { input: 'refund', workflowId: testId('expd') });
    const [pending] = await waitForPending(run);
    const result = await run.result();
    expect(result.status).toBe('success');
    expect(outputText(results(result)[0]!.output)).toMatch(/expired/);
    expect(ranFor(run)).toEqual([]);
    const evts = await events(run);
    expect(evts.find((e) => e.type === 'approval_expired')).toMatchObject({ callId: 'call_1_0', outcome: 'deny' });
    await expect(run.decide({ callId: pending!.callId, decision: 'approve', by: 'ops:alice' })).rejects.toThrow();
  });

  it('an expired approval fails the run when so configured', async () => {
    const run = await h.client.start('expire_fail', { input: 'wire', workflowId: testId('expf') });
    const result = await run.result();
    expect(result.status).toBe('approval_expired');
    expect(result.error?.message).toMatch(/before its approval expired/);
    expect(ranFor(run)).toEqual([]);
  });

  it('the run policy overrides tools: allow (with an approval waiver) skips approval, deny refuses, ask asks', async () => {
    const allowed = await h.client.start('policy', {
      input: 'go',
      workflowId: testId('pol-allow'),
      policy: { deploy: 'allow' },
      approvalWaiver: { by: 'ops:root' },
    });
    const a = await allowed.result();
    expect(results(a).map((b) => outputText(b.output))).toEqual(['deployed api', 'value of k']);

    const denied = await h.client.start('policy', {
      input: 'go',
      workflowId: testId('pol-deny'),
      policy: { deploy: 'deny', '*': 'allow' },
      approvalWaiver: { by: 'ops:root' },
    });
    const d = await denied.result();
    expect(outputText(results(d)[0]!.output)).toMatch(/Denied by the run's policy/);
    expect(ranFor(denied)).toEqual([`${denied.workflowId}/call_1_1`]);

    const asked = await h.client.start('policy', { input: 'go', workflowId: testId('pol-ask'), policy: { '*': 'ask' } });
    const pending = await waitForPending(asked, 2);
    expect(pending.map((p) => p.tool)).toEqual(['deploy', 'lookup']);
    await asked.decide({ callId: 'call_1_0', decision: 'approve', by: 'x' });
    await asked.decide({ callId: 'call_1_1', decision: 'approve', by: 'x' });
    expect((await asked.result()).status).toBe('success');
  });

  it('a decision sent with the real temporal CLI (signal) is applied', async () => {
    const run = await h.client.start('by_cli', { input: 'deploy', workflowId: testId('tcli') });
    await waitForPending(run);
    const cli = inject('temporalCliPath');
    expect(cli).not.toBe('');
    const decision = JSON.stringify({ callId: 'call_1_0', decision: 'approve', by: 'ops:cli', reason: 'from the terminal' });
    await exec(cli, [
      'workflow',
      'signal',
      '--address',
      inject('temporalAddress'),
      '--workflow-id',
      run.workflowId,
      '--name',
      'approval',
      '--input',
      decision,
    ]);
    const result = await run.result();
    expect(result.status).toBe('success');
    expect(ranFor(run)).toEqual([`${run.workflowId}/call_1_0`]);
    expect((await events(run)).find((e) => e.type === 'approval_decided')).toMatchObject({
      by: 'ops:cli',
      reason: 'from the terminal',
      via: 'signal',
    });
  });

  it('the real temporal CLI can list pending calls (query) and decide by update; a refused update fails the command', async () => {
    const run = await h.client.start('by_cli_update', { input: 'deploy', workflowId: testId('tcli-upd') });
    await waitForPending(run);
    const cli = inject('temporalCliPath');
    const common = ['--address', inject('temporalAddress'), '--workflow-id', run.workflowId];
    const query = await exec(cli, ['workflow', 'query', ...common, '--name', 'pendingApprovals', '--output', 'json']);
    expect(query.stdout).toContain('"callId": "call_1_0"');
    const refused = await exec(cli, [
      'workflow',
      'update',
      'execute',
      ...common,
      '--name',
      'decide',
      '--input',
      JSON.stringify({ callId: 'call_7_7', decision: 'deny', by: 'ops:cli' }),
    ]).catch((e: { code?: number; stderr?: string }) => e);
    expect((refused as { code?: number }).code).not.toBe(0);
    const stderr = String((refused as { stderr?: string }).stderr);
    expect(stderr).toContain('no approval is pending for call "call_7_7"');
    // A refusal is final and typed: the CLI shows its type, and it is not retryable.
    expect(stderr).toContain('ApprovalRefused');
    expect(stderr).not.toMatch(/retryable: true/);
    const decided = await exec(cli, [
      'workflow',
      'update',
      'execute',
      ...common,
      '--name',
      'decide',
      '--input',
      JSON.stringify({ callId: 'call_1_0', decision: 'deny', by: 'ops:cli', reason: 'not now' }),
    ]);
    expect(decided.stdout).toContain('Result');
    expect(decided.stdout).toMatch(/Result +map\[applied:\[call_1_0\] by:ops:cli callId:call_1_0 decision:deny tool:deploy\]/);
    const result = await run.result();
    expect(outputText(results(result)[0]!.output)).toBe('Denied by ops:cli: not now. The tool was not run.');
  });

  it('a decision sent while no worker runs is applied when a worker starts', async () => {
    const local = await startHarness({ agents: S.agents, providers: { scripted: S.provider }, storeDir: h.storeDir });
    const started = await local.client.start('offline', { input: 'deploy', workflowId: testId('offline') });
    await waitForPending(started);
    await local.stop();
    const run = h.client.get(started.workflowId);
    // No worker polls this task queue now; the server still accepts the signal.
    await run.signalDecision({ callId: 'call_1_0', decision: 'approve', by: 'ops:night-shift' });
    expect(ranFor(run)).toEqual([]);
    const again = await startHarness({
      agents: S.agents,
      providers: { scripted: S.provider },
      storeDir: h.storeDir,
      taskQueue: local.taskQueue,
    });
    try {
      const result = await again.client.get(run.workflowId).result();
      expect(result.status).toBe('success');
      expect(ranFor(run)).toEqual([`${run.workflowId}/call_1_0`]);
      expect(await toolSchedules(run, 'call_1_0')).toBe(1);
    } finally {
      await again.stop();
    }
  });
});

describe('search attributes', () => {
  it('the temporal CLI finds runs waiting for a person', async () => {
    const run = await h.client.start('approve_one', { input: 'deploy', workflowId: testId('list') });
    await waitForPending(run);
    const cli = inject('temporalCliPath');
    let found = false;
    for (let i = 0; i < 100 && !found; i++) {
      const { stdout } = await exec(cli, [
        'workflow',
        'list',
        '--address',
        inject('temporalAddress'),
        '--query',
        `DurableAgentAwaitingApproval = true AND DurableAgentName = 'approve_one'`,
        '--output',
        'json',
      ]);
      found = stdout.includes(run.workflowId);
      if (!found) await new Promise((r) => setTimeout(r, 100));
    }
    expect(found).toBe(true);
    await run.decide({ callId: 'call_1_0', decision: 'approve', by: 'x' });
    await run.result();
  });
});
