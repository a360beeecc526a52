/**
 * Rules on tool arguments inside a run (issue 26): run policy entries on arguments, standing rules the run
 * is sent (`rulesChanged`, as the rules entity sends them), and a rule changed while a call waits — on the
 * real dev server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { AgentRun } from '../../src/client';
import { defineTool } from '../../src/agents/define';
import { agentTool } from '../../src/agents/agent-tool';
import type { ModelRequest } from '../../src/core/output/native-output';
import type { ScriptedTurn } from '../../src/integrations/providers/scripted';
import type { AgentEvent } from '../../src/core/events/events';
import type { ToolResultBlock } from '../../src/core/messages/messages';
import { outputText } from '../../src/core/messages/messages';
import type { AgentRunResult } from '../../src/core/run/result';
import type { RuleSet } from '../../src/core/approvals/rules';
import { rulesChangedSignal } from '../../src/workflows/definitions';
import { ScriptedAgents } from '../helpers/agents';
import { allEvents, waitForPending } from '../helpers/events';
import type { Harness } from '../helpers/harness';
import { startHarness, testId } from '../helpers/harness';
import { RULES_TEST_NAMESPACES } from '../setup/namespaces';

const ran: string[] = [];
const tool = <T extends z.ZodRawShape>(name: string, shape: T, needsApproval: boolean) =>
  defineTool({
    name,
    description: `The ${name} tool`,
    input: z.object(shape),
    needsApproval,
    execute: (args, ctx) => {
      ran.push(`${ctx.workflowId}/${name}:${JSON.stringify(args)}`);
      return `${name} done`;
    },
  });
const refund = tool('refund', { amount: z.number() }, true);
const deploy = tool('deploy', { env: z.string() }, true);
const shell = tool('shell', { command: z.string() }, false);
const tools = { tools: [refund, deploy, shell] };

const S = new ScriptedAgents();
S.add(
  'pe_refunds',
  [
    {
      toolCalls: [
        { name: 'refund', args: { amount: 30 } },
        { name: 'refund', args: { amount: 80 } },
        { name: 'shell', args: { command: 'rm -rf /var' } },
        { name: 'shell', args: { command: 'ls' } },
      ],
    },
    { text: 'refunds done' },
  ],
  tools,
);
S.add(
  'sr_deploy',
  [
    { toolCalls: [{ name: 'deploy', args: { env: 'prod' } }] },
    {
      toolCalls: [
        { name: 'deploy', args: { env: 'staging' } },
        { name: 'shell', args: { command: 'rm -rf /srv' } },
      ],
    },
    { text: 'deployed' },
  ],
  tools,
);
S.add(
  'sr_wait',
  [
    {
      toolCalls: [
        { name: 'deploy', args: { env: 'prod' } },
        { name: 'deploy', args: { env: 'staging' } },
      ],
    },
    { text: 'waited' },
  ],
  tools,
);

S.add(
  'ar_refunds',
  [
    {
      toolCalls: [
        { name: 'refund', args: { amount: 20 } },
        { name: 'refund', args: { amount: 200 } },
        { name: 'refund', args: { amount: 5000 } },
      ],
    },
    { text: 'refunded' },
  ],
  {
    ...tools,
    approvalRules: [
      { id: 'small-refunds', tool: 'refund', when: { path: 'amount', op: 'lte', value: 50 }, action: 'allow' },
      {
        id: 'big-refunds',
        tool: 'refund',
        when: { path: 'amount', op: 'gt', value: 1000 },
        action: 'ask',
        ask: { approvers: ['ops:carol'], timeoutMs: 600_000 },
      },
    ],
  },
);

// Names of their own: rules written to the shared rules entity apply only to these agents' runs.
const SESSION_AGENT = `sr_session_${Math.random().toString(36).slice(2, 8)}`;
S.add(SESSION_AGENT, [{ toolCalls: [{ name: 'deploy', args: { env: 'prod' } }] }, { text: 'deployed' }], tools);
const TIMED_AGENT = `sr_timed_${Math.random().toString(36).slice(2, 8)}`;
S.add(TIMED_AGENT, [{ toolCalls: [{ name: 'deploy', args: { env: 'prod' } }] }, { text: 'deployed' }], tools);

S.add(
  'sr_can',
  (request: ModelRequest): ScriptedTurn => {
    const answered = request.messages.filter((m) => m.role === 'assistant').length;
    return answered < 12 ? { toolCalls: [{ name: 'deploy', args: { env: `e${answered + 1}` } }] } : { text: 'all tried' };
  },
  { tools: [deploy], maxSteps: 50, continueAsNewAfterEvents: 50 },
);
const CHILD = `sr_child_${Math.random().toString(36).slice(2, 8)}`;
const child = S.add(CHILD, [{ toolCalls: [{ name: 'deploy', args: { env: 'prod' } }] }, { text: 'child done' }], tools);
S.add(`${CHILD}_parent`, [{ toolCalls: [{ name: CHILD, args: { input: 'deploy prod' } }] }, { text: 'parent done' }], {
  tools: [agentTool(child)],
});

S.add(
  'fn_rules',
  [
    {
      toolCalls: [
        { name: 'refund', args: { amount: 5 } },
        { name: 'refund', args: { amount: 500 } },
        { name: 'shell', args: { command: 'sudo reboot' } },
        { name: 'shell', args: { command: 'whoami' } },
      ],
    },
    { text: 'checked' },
  ],
  {
    ...tools,
    approvalRules: [
      { id: 'tiny-refunds', tool: 'refund', when: (args) => (args.amount as number) < 10, action: 'allow' },
      { id: 'no-sudo', tool: 'shell', when: (args) => String(args.command).startsWith('sudo '), action: 'deny', reason: 'no sudo' },
      {
        id: 'broken',
        tool: 'shell',
        when: () => {
          throw new Error('cannot tell');
        },
        action: 'allow',
      },
    ],
  },
);

let h: Harness;
beforeAll(async () => {
  // The namespace's rules entity too (editors seeded as the other rules tests do).
  h = await startHarness({
    agents: S.agents,
    providers: { scripted: S.provider },
    approvalRules: { editors: ['ops:alice'] },
    namespace: RULES_TEST_NAMESPACES.standing,
  });
});
afterAll(async () => h?.stop());

const results = (result: AgentRunResult): string[] =>
  result.messages.flatMap((m) => m.content.filter((b): b is ToolResultBlock => b.type === 'tool_result')).map((b) => outputText(b.output));
const ranFor = (run: AgentRun) => ran.filter((r) => r.startsWith(`${run.workflowId}/`)).map((r) => r.slice(run.workflowId.length + 1));
const of = <T extends AgentEvent['type']>(evts: AgentEvent[], type: T) =>
  evts.filter((e) => e.type === type) as Array<Extract<AgentEvent, { type: T }>>;
const send = (run: AgentRun, set: RuleSet) => h.temporal.workflow.getHandle(run.workflowId).signal(rulesChangedSignal, set);

describe('run policy entries on arguments', () => {
  it('refund allowed up to 50 and asked above; shell denied for commands matching rm -rf *', async () => {
    const run = await h.client.start('pe_refunds', {
      input: 'refund',
      workflowId: testId('policy-args'),
      policy: {
        refund: [{ when: { path: 'amount', op: 'lte', value: 50 }, action: 'allow' }],
        shell: [{ when: { path: 'command', op: 'glob', value: 'rm -rf *' }, action: 'deny', id: 'no-rm' }],
      },
      approvalWaiver: { by: 'ops:alice' },
    });
    const pending = await waitForPending(run);
    expect(pending.map((p) => [p.callId, p.args])).toEqual([['call_1_1', { amount: 80 }]]);
    await run.decide({ callId: 'call_1_1', decision: 'approve', by: 'ops:bob' });
    const result = await run.result();
    expect(result.status).toBe('success');
    expect(ranFor(run).sort()).toEqual(['refund:{"amount":30}', 'refund:{"amount":80}', 'shell:{"command":"ls"}']);
    expect(results(result)[2]).toMatch(/policy/i);
    const evts = await allEvents(run);
    expect(of(evts, 'approval_auto').map((e) => [e.callId, e.decision, e.path, e.rule])).toEqual([
      ['call_1_0', 'allow', 'policy', { id: 'policy:refund:0', scope: 'run' }],
      ['call_1_2', 'deny', 'policy', { id: 'no-rm', scope: 'run' }],
    ]);
    expect(result.report.toolCalls.find((t) => t.callId === 'call_1_0')?.approval).toEqual({
      decision: 'approve',
      by: 'run policy',
      path: 'policy',
      rule: { id: 'policy:refund:0', scope: 'run' },
    });
  });

  it('an entry on arguments that loosens a tool needing approval needs a waiver', async () => {
    const run = await h.client.start('pe_refunds', {
      input: 'refund',
      workflowId: testId('policy-args-refused'),
      policy: { refund: [{ when: { path: 'amount', op: 'lte', value: 50 }, action: 'allow' }] },
    });
    const result = await run.result();
    expect(result.status).toBe('invalid_input');
    expect(result.error?.message).toMatch(/"refund": "allow"|may only tighten/);
    expect(ranFor(run)).toEqual([]);
  });
});

describe("rules in the agent's code", () => {
  it('refund allowed up to 50 by the agent rule, asked above; an ask rule names who is asked and the expiry', async () => {
    const run = await h.client.start('ar_refunds', { input: 'refund', workflowId: testId('agent-rules') });
    let pending = await waitForPending(run);
    for (let i = 0; i < 100 && pending.length < 2; i++) {
      await new Promise((r) => setTimeout(r, 50));
      pending = await run.pendingApprovals();
    }
    expect(pending.map((p) => [p.callId, p.approvers ?? null, p.rule ?? null, p.expiresAt !== undefined])).toEqual([
      ['call_1_1', null, null, false],
      ['call_1_2', ['ops:carol'], { id: 'big-refunds', scope: 'agent' }, true],
    ]);
    await expect(run.decide({ callId: 'call_1_2', decision: 'approve', by: 'ops:bob' })).rejects.toThrow(/ops:carol/);
    await run.decide({ callId: 'call_1_2', decision: 'approve', by: 'ops:carol' });
    await run.decide({ callId: 'call_1_1', decision: 'deny', by: 'ops:bob' });
    const result = await run.result();
    expect(result.status).toBe('success');
    expect(ranFor(run).sort()).toEqual(['refund:{"amount":20}', 'refund:{"amount":5000}']);
    const evts = await allEvents(run);
    expect(of(evts, 'approval_auto').map((e) => [e.callId, e.decision, e.rule, e.by])).toEqual([
      ['call_1_0', 'allow', { id: 'small-refunds', scope: 'agent' }, 'agent:ar_refunds'],
    ]);
    expect(of(evts, 'approval_requested').map((e) => [e.callId, e.rule ?? null])).toEqual([
      ['call_1_1', null],
      ['call_1_2', { id: 'big-refunds', scope: 'agent' }],
    ]);
  });
});

describe("function rules in the agent's code", () => {
  it('run in checkApprovals, answers recorded: a tiny refund runs unasked, sudo is denied, a throwing allow rule does not apply', async () => {
    const run = await h.client.start('fn_rules', { input: 'check', workflowId: testId('fn-rules') });
    const pending = await waitForPending(run);
    expect(pending.map((p) => p.callId)).toEqual(['call_1_1']);
    await run.decide({ callId: 'call_1_1', decision: 'deny', by: 'ops:bob' });
    const result = await run.result();
    expect(result.status).toBe('success');
    expect(ranFor(run).sort()).toEqual(['refund:{"amount":5}', 'shell:{"command":"whoami"}']);
    const evts = await allEvents(run);
    expect(of(evts, 'approval_auto').map((e) => [e.callId, e.decision, e.rule?.id])).toEqual([
      ['call_1_0', 'allow', 'tiny-refunds'],
      ['call_1_2', 'deny', 'no-sudo'],
    ]);
  });
});

describe('standing rules in a run', () => {
  it('rules sent to the run apply from its next gate: deploy allowed for staging, shell denied for rm -rf *, versions recorded', async () => {
    const run = await h.client.start('sr_deploy', { input: 'deploy', workflowId: testId('standing') });
    await waitForPending(run);
    await send(run, {
      version: 1,
      rules: [
        {
          id: 'r-1',
          version: 1,
          scope: 'session',
          session: run.workflowId,
          tool: 'deploy',
          when: { path: 'env', op: 'eq', value: 'staging' },
          action: 'allow',
          createdBy: 'ops:alice',
        },
        {
          id: 'r-2',
          version: 1,
          scope: 'agent',
          agent: 'sr_deploy',
          tool: 'shell',
          when: { path: 'command', op: 'glob', value: 'rm -rf *' },
          action: 'deny',
          createdBy: 'ops:alice',
          reason: 'no recursive deletes',
        },
        // Another session's rule and an expired one do not apply.
        { id: 'r-3', version: 1, scope: 'session', session: 'someone-else', tool: 'deploy', action: 'deny', createdBy: 'ops:eve' },
        { id: 'r-4', version: 1, scope: 'namespace', tool: 'deploy', action: 'deny', until: '2000-01-01T00:00:00Z', createdBy: 'ops:eve' },
      ],
    });
    // The waiting production deploy is not covered by any rule: it still waits for a person.
    await new Promise((r) => setTimeout(r, 300));
    expect((await run.pendingApprovals()).map((p) => p.callId)).toEqual(['call_1_0']);
    await run.decide({ callId: 'call_1_0', decision: 'approve', by: 'ops:bob' });
    const result = await run.result();
    expect(result.status).toBe('success');
    expect(ranFor(run)).toEqual(['deploy:{"env":"prod"}', 'deploy:{"env":"staging"}']);
    expect(results(result)[2]).toBe('Denied by ops:alice: no recursive deletes (rule r-2). The tool was not run.');
    const evts = await allEvents(run);
    expect(of(evts, 'approval_auto').map((e) => [e.callId, e.decision, e.rule, e.rulesVersion])).toEqual([
      ['call_2_0', 'allow', { id: 'r-1', version: 1, scope: 'session' }, 1],
      ['call_2_1', 'deny', { id: 'r-2', version: 1, scope: 'agent' }, 1],
    ]);
    expect(result.report.toolCalls.find((t) => t.callId === 'call_2_0')?.approval).toMatchObject({
      decision: 'approve',
      path: 'rule',
      rule: { id: 'r-1', version: 1, scope: 'session' },
      rulesVersion: 1,
    });
  });

  it('a rule changed while calls wait decides them (by rule, version recorded); an older version is ignored', async () => {
    const run = await h.client.start('sr_wait', { input: 'deploy', workflowId: testId('standing-wait') });
    await waitForPending(run);
    const session = run.workflowId;
    const denyProd = {
      id: 'r-1',
      version: 1,
      scope: 'session' as const,
      session,
      tool: 'deploy',
      when: { path: 'env', op: 'eq' as const, value: 'prod' },
      action: 'deny' as const,
      createdBy: 'ops:alice',
    };
    await send(run, { version: 1, rules: [denyProd] });
    let left = await run.pendingApprovals();
    for (let i = 0; i < 100 && left.length !== 1; i++) {
      await new Promise((r) => setTimeout(r, 50));
      left = await run.pendingApprovals();
    }
    expect(left.map((p) => p.callId)).toEqual(['call_1_1']);
    // An older set (a late second announcement) changes nothing.
    await send(run, { version: 0, rules: [{ ...denyProd, id: 'r-0', when: { path: 'env', op: 'eq', value: 'staging' } }] });
    const allowStaging = {
      id: 'r-3',
      version: 2,
      scope: 'agent' as const,
      agent: 'sr_wait',
      tool: 'deploy',
      action: 'allow' as const,
      createdBy: 'ops:alice',
    };
    await send(run, { version: 2, rules: [denyProd, allowStaging] });
    const result = await run.result();
    expect(result.status).toBe('success');
    expect(ranFor(run)).toEqual(['deploy:{"env":"staging"}']);
    const evts = await allEvents(run);
    expect(of(evts, 'approval_decided').map((e) => [e.callId, e.decision, e.by, e.path, e.rule])).toEqual([
      ['call_1_0', 'deny', 'rule:r-1', 'rule', { id: 'r-1', version: 1, scope: 'session' }],
      ['call_1_1', 'approve', 'rule:r-3', 'rule', { id: 'r-3', version: 2, scope: 'agent' }],
    ]);
    expect(result.report.toolCalls.map((t) => [t.callId, t.approval?.by, t.approval?.rule?.version])).toEqual([
      ['call_1_0', 'rule:r-1', 1],
      ['call_1_1', 'rule:r-3', 2],
    ]);
  });
});

describe('standing rules across continue-as-new and in sub-agents', () => {
  it('a rule set the run was sent is carried across continue-as-new', async () => {
    const run = await h.client.start('sr_can', { input: 'deploy', workflowId: testId('standing-can') });
    await waitForPending(run);
    const rule = {
      id: 'r-1',
      version: 1,
      scope: 'session' as const,
      session: run.workflowId,
      tool: 'deploy',
      action: 'deny' as const,
      createdBy: 'ops:alice',
    };
    await send(run, { version: 1, rules: [rule] });
    const result = await run.result();
    expect(result.status).toBe('success');
    expect(result.steps).toBe(13);
    const executions: string[] = [];
    for await (const w of h.temporal.workflow.list({ query: `WorkflowId = '${run.workflowId}'` })) executions.push(w.runId);
    expect(executions.length).toBeGreaterThan(1);
    const evts = await allEvents(run);
    expect(of(evts, 'approval_requested')).toHaveLength(1);
    const autos = of(evts, 'approval_auto');
    expect(autos).toHaveLength(11);
    expect(autos.every((e) => e.decision === 'deny' && e.rule?.id === 'r-1' && e.rulesVersion === 1)).toBe(true);
    expect(ranFor(run)).toEqual([]);
  });
});

describe('standing rules from the rules entity', () => {
  it("a sub-agent reads the rules at its own start and is in its root run's session", async () => {
    const session = testId('standing-parent');
    await h.client.rules.put(
      { scope: 'session', session, tool: 'deploy', action: 'deny', reason: 'not from this chat' },
      { by: 'ops:alice' },
    );
    const run = await h.client.start(`${CHILD}_parent`, { input: 'go', workflowId: session });
    const result = await run.result();
    expect(result.status).toBe('success');
    const started = of(await allEvents(run), 'sub_agent_started');
    expect(started).toHaveLength(1);
    const childRun = h.client.get(started[0]!.workflowId);
    const autos = of(await allEvents(childRun), 'approval_auto');
    expect(autos.map((e) => [e.decision, e.rule?.scope])).toEqual([['deny', 'session']]);
    expect(ranFor(childRun)).toEqual([]);
  });

  it('approve and stop asking for a session: the waiting call is approved, a second run of the same session id is not asked', async () => {
    const session = testId('session-rule');
    const first = await h.client.start(SESSION_AGENT, { input: 'deploy', workflowId: session });
    const [pending] = await waitForPending(first);
    // The client writes the rule first, then decides naming it.
    const receipt = await h.client.rules.put({ scope: 'session', session, tool: 'deploy', action: 'allow' }, { by: 'ops:alice' });
    const rule = { id: receipt.rule!.id, version: receipt.version, scope: 'session' as const };
    await first.decide({ callId: pending!.callId, decision: 'approve', by: 'ops:alice', scope: 'session', rule });
    expect((await first.result()).status).toBe('success');
    const second = await h.client.start(SESSION_AGENT, { input: 'deploy again', workflowId: session });
    const result = await second.result();
    expect(result.status).toBe('success');
    const evts = await allEvents(second);
    expect(of(evts, 'approval_requested')).toEqual([]);
    expect(of(evts, 'approval_auto').map((e) => [e.decision, e.rule, e.rulesVersion])).toEqual([['allow', rule, expect.any(Number)]]);
    expect(of(evts, 'approval_auto')[0]!.rulesVersion).toBeGreaterThanOrEqual(receipt.version);
    // Other sessions of the agent still ask.
    const other = await h.client.start(SESSION_AGENT, { input: 'deploy', workflowId: testId('session-other') });
    expect((await waitForPending(other)).map((p) => p.tool)).toEqual(['deploy']);
    await other.cancel();
  });

  it('an agent rule for a time: runs started before its until are not asked, a run after it is', async () => {
    const until = new Date(Date.now() + 2500).toISOString();
    await h.client.rules.put({ scope: 'agent', agent: TIMED_AGENT, tool: 'deploy', action: 'allow', until }, { by: 'ops:alice' });
    const within = await h.client.start(TIMED_AGENT, { input: 'deploy', workflowId: testId('timed-within') });
    expect((await within.result()).status).toBe('success');
    expect(of(await allEvents(within), 'approval_auto').map((e) => e.rule?.scope)).toEqual(['agent']);
    await new Promise((r) => setTimeout(r, Math.max(0, Date.parse(until) - Date.now() + 100)));
    const after = await h.client.start(TIMED_AGENT, { input: 'deploy', workflowId: testId('timed-after') });
    expect((await waitForPending(after)).map((p) => p.tool)).toEqual(['deploy']);
    // The request says which rule set version it was gated under; so does the report once decided.
    const [requested] = of(await allEvents(after), 'approval_requested');
    expect(requested?.rulesVersion).toBeGreaterThan(0);
    await after.decide({ callId: requested!.callId, decision: 'deny', by: 'ops:bob' });
    expect((await after.result()).report.toolCalls[0]?.approval).toMatchObject({ decision: 'deny', rulesVersion: requested!.rulesVersion });
  });
});
