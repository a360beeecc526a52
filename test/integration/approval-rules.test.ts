/** Run-scope approval rules (issue 26): "approve and stop asking" (by tool or by arguments) and "always reject", on the real dev server. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { AgentRun } from '../../src/client';
import { agentTool } from '../../src/agents/agent-tool';
import { defineTool } from '../../src/agents/define';
import type { AgentEvent, ApprovalAutoEvent, ApprovalDecidedEvent } from '../../src/core/events/events';
import type { ToolResultBlock } from '../../src/core/messages/messages';
import { outputText } from '../../src/core/messages/messages';
import type { ModelRequest } from '../../src/core/output/native-output';
import type { AgentRunResult } from '../../src/core/run/result';
import type { ScriptedTurn } from '../../src/integrations/providers/scripted';
import { ScriptedAgents } from '../helpers/agents';
import { allEvents, waitForPending } from '../helpers/events';
import { parseTokens } from '../../apps/http/auth';
import type { ServedApi } from '../helpers/http-api';
import { serveTestApi } from '../helpers/http-api';
import type { Harness } from '../helpers/harness';
import { testId } from '../helpers/harness';

const ran: string[] = [];
const deploy = defineTool({
  name: 'deploy',
  description: 'Deploy a service',
  input: z.object({ service: z.string() }),
  needsApproval: true,
  execute: ({ service }, ctx) => {
    ran.push(`${ctx.workflowId}/${service}`);
    return `deployed ${service}`;
  },
});
const tools = { tools: [deploy] };
const S = new ScriptedAgents();
const call = (service: string) => ({ name: 'deploy', args: { service } });
S.add('stop_asking_args', [{ toolCalls: [call('a'), call('b')] }, { toolCalls: [call('a'), call('c')] }, { text: 'done' }], tools);
S.add('always_reject', [{ toolCalls: [call('a'), call('b')] }, { toolCalls: [call('c')] }, { text: 'gave up' }], tools);
S.add(
  'reject_across_can',
  (request: ModelRequest): ScriptedTurn => {
    const answered = request.messages.filter((m) => m.role === 'assistant').length;
    return answered < 12 ? { toolCalls: [call(`s${answered + 1}`)] } : { text: 'all tried' };
  },
  { tools: [deploy], maxSteps: 50, continueAsNewAfterEvents: 50 },
);

const TOKEN = `alice-${Math.random().toString(36).slice(2)}`;
const AUTH = parseTokens(JSON.stringify({ tokens: { [TOKEN]: { identity: 'ops:alice', approve: true } } }), 'test tokens');
const child = S.add('rules_child', [{ toolCalls: [call('x')] }, { text: 'child done' }], tools);
S.add(
  'rules_parent',
  [{ toolCalls: [call('a')] }, { toolCalls: [{ name: 'rules_child', args: { input: 'deploy x' } }] }, { text: 'parent done' }],
  { tools: [deploy, agentTool(child)] },
);

let api: ServedApi;
let h: Harness;
beforeAll(async () => {
  api = await serveTestApi({ agents: S.agents, providers: { scripted: S.provider } }, AUTH);
  h = api.h;
});
afterAll(async () => {
  await api?.stop();
});

const results = (result: AgentRunResult): string[] =>
  result.messages.flatMap((m) => m.content.filter((b): b is ToolResultBlock => b.type === 'tool_result')).map((b) => outputText(b.output));
const ranFor = (run: AgentRun) => ran.filter((r) => r.startsWith(`${run.workflowId}/`)).map((r) => r.slice(run.workflowId.length + 1));
const of = <T extends AgentEvent['type']>(evts: AgentEvent[], type: T) =>
  evts.filter((e) => e.type === type) as Array<Extract<AgentEvent, { type: T }>>;

describe('run-scope approval rules', () => {
  it('approve and stop asking for these arguments: later calls with the same arguments run, others ask', async () => {
    const run = await h.client.start('stop_asking_args', { input: 'deploy', workflowId: testId('rules-args') });
    await waitForPending(run);
    const receipt = await run.decide({
      callId: 'call_1_0',
      decision: 'approve',
      by: 'ops:alice',
      scope: 'run',
      match: 'args',
      path: 'sdk',
    });
    // The other waiting call has other arguments: the rule does not decide it.
    expect(receipt.applied).toEqual(['call_1_0']);
    await run.decide({ callId: 'call_1_1', decision: 'approve', by: 'ops:bob' });
    const pending = await waitForPending(run);
    expect(pending.map((p) => p.callId)).toEqual(['call_2_1']);
    await run.decide({ callId: 'call_2_1', decision: 'approve', by: 'ops:bob' });
    const result = await run.result();
    expect(result.status).toBe('success');
    expect(results(result)).toEqual(['deployed a', 'deployed b', 'deployed a', 'deployed c']);
    // The report says how each call's approval was settled, naming the rule.
    // (The standing rule set's version is left out: other tests on a shared server may have written rules.)
    expect(result.report.toolCalls.map((t) => t.approval && { ...t.approval, rulesVersion: undefined })).toEqual([
      { decision: 'approve', by: 'ops:alice', path: 'sdk', rule: { id: 'run-1', scope: 'run' } },
      { decision: 'approve', by: 'ops:bob', path: 'sdk' },
      { decision: 'approve', by: 'ops:alice', path: 'rule', rule: { id: 'run-1', scope: 'run' } },
      { decision: 'approve', by: 'ops:bob', path: 'sdk' },
    ]);
    const evts = await allEvents(run);
    expect(of(evts, 'approval_requested').map((e) => e.callId)).toEqual(['call_1_0', 'call_1_1', 'call_2_1']);
    const rule = { id: 'run-1', scope: 'run' as const };
    expect(of(evts, 'approval_decided')[0]).toMatchObject({ callId: 'call_1_0', by: 'ops:alice', path: 'sdk', rule, sticky: false });
    expect(of(evts, 'approval_auto')).toEqual([
      expect.objectContaining<Partial<ApprovalAutoEvent>>({ callId: 'call_2_0', decision: 'allow', path: 'rule', rule, by: 'ops:alice' }),
    ]);
  });

  it('always reject (HTTP): the waiting call of the tool is denied at once, later calls are denied by the rule, named', async () => {
    const run = await h.client.start('always_reject', { input: 'deploy', workflowId: testId('rules-reject') });
    await waitForPending(run);
    // Through the HTTP API: the approver is the token's identity.
    const res = await fetch(`${api.server.url}/runs/${run.workflowId}/approvals/call_1_0`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ decision: 'deny', scope: 'run', reason: 'frozen today' }),
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { applied: string[] }).applied).toEqual(['call_1_0', 'call_1_1']);
    const result = await run.result();
    expect(result.status).toBe('success');
    expect(result.finalText).toBe('gave up');
    expect(results(result)).toEqual([
      'Denied by ops:alice: frozen today. The tool was not run.',
      'Denied by ops:alice: frozen today. The tool was not run.',
      'Denied by ops:alice: frozen today (rule run-1). The tool was not run.',
    ]);
    expect(ranFor(run)).toEqual([]);
    expect(result.report.toolCalls.map((t) => [t.approval?.decision, t.approval?.path, t.approval?.rule?.id])).toEqual([
      ['deny', 'http', 'run-1'],
      ['deny', 'rule', 'run-1'],
      ['deny', 'rule', 'run-1'],
    ]);
    const evts = await allEvents(run);
    const rule = { id: 'run-1', scope: 'run' as const };
    expect(of(evts, 'approval_decided').map((e) => [e.callId, e.path ?? null, e.sticky])).toEqual([
      ['call_1_0', 'http', false],
      ['call_1_1', 'rule', true],
    ]);
    expect(of(evts, 'approval_decided').every((e: ApprovalDecidedEvent) => e.rule?.id === 'run-1')).toBe(true);
    expect(of(evts, 'approval_auto')).toEqual([expect.objectContaining({ callId: 'call_2_0', decision: 'deny', path: 'rule', rule })]);
    expect(of(evts, 'approval_requested')).toHaveLength(2);
  });

  it('an always-reject rule is carried across continue-as-new', async () => {
    const run = await h.client.start('reject_across_can', { input: 'deploy', workflowId: testId('rules-can') });
    const [first] = await waitForPending(run);
    await run.decide({ callId: first!.callId, decision: 'deny', by: 'ops:alice', scope: 'run' });
    const result = await run.result();
    expect(result.status).toBe('success');
    expect(result.steps).toBe(13);
    const statuses: string[] = [];
    for await (const w of h.temporal.workflow.list({ query: `WorkflowId = '${run.workflowId}'` })) statuses.push(w.status.name);
    expect(statuses.length).toBeGreaterThan(1);
    const evts = await allEvents(run);
    expect(of(evts, 'approval_requested')).toHaveLength(1);
    const autos = of(evts, 'approval_auto');
    expect(autos).toHaveLength(11);
    expect(autos.every((e) => e.decision === 'deny' && e.rule?.id === 'run-1')).toBe(true);
    expect(ranFor(run)).toEqual([]);
  });

  it('a sub-agent follows the run rules its parent had when it started it', async () => {
    const run = await h.client.start('rules_parent', { input: 'deploy', workflowId: testId('rules-child') });
    await waitForPending(run);
    await run.decide({ callId: 'call_1_0', decision: 'deny', by: 'ops:alice', scope: 'run' });
    const result = await run.result();
    expect(result.status).toBe('success');
    const started = of(await allEvents(run), 'sub_agent_started');
    expect(started).toHaveLength(1);
    const childRun = h.client.get(started[0]!.workflowId);
    const childEvents = await allEvents(childRun);
    expect(of(childEvents, 'approval_requested')).toHaveLength(0);
    expect(of(childEvents, 'approval_auto')).toEqual([
      expect.objectContaining({ callId: 'call_1_0', decision: 'deny', path: 'rule', rule: { id: 'run-1', scope: 'run' }, by: 'ops:alice' }),
    ]);
    expect(ranFor(childRun)).toEqual([]);
  });
});
