/** Run-scope approval rules (issue 26): "approve and stop asking" (by tool or by arguments) and "always reject", on the real dev server. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { AgentRun } from '../../src/client';
import { defineTool } from '../../src/agents/define';
import type { AgentEvent, ApprovalAutoEvent, ApprovalDecidedEvent } from '../../src/core/events/events';
import type { ToolResultBlock } from '../../src/core/messages/messages';
import { outputText } from '../../src/core/messages/messages';
import type { ModelRequest } from '../../src/core/output/native-output';
import type { AgentRunResult } from '../../src/core/run/result';
import type { ScriptedTurn } from '../../src/integrations/providers/scripted';
import { ScriptedAgents } from '../helpers/agents';
import { allEvents, waitForPending } from '../helpers/events';
import type { Harness } from '../helpers/harness';
import { startHarness, testId } from '../helpers/harness';

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

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ agents: S.agents, providers: { scripted: S.provider } });
});
afterAll(async () => {
  await h?.stop();
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
    const evts = await allEvents(run);
    expect(of(evts, 'approval_requested').map((e) => e.callId)).toEqual(['call_1_0', 'call_1_1', 'call_2_1']);
    const rule = { id: 'run-1', scope: 'run' as const };
    expect(of(evts, 'approval_decided')[0]).toMatchObject({ callId: 'call_1_0', by: 'ops:alice', path: 'sdk', rule, sticky: false });
    expect(of(evts, 'approval_auto')).toEqual([
      expect.objectContaining<Partial<ApprovalAutoEvent>>({ callId: 'call_2_0', decision: 'allow', path: 'rule', rule, by: 'ops:alice' }),
    ]);
  });

  it('always reject: the waiting call of the tool is denied at once, later calls are denied by the rule, named', async () => {
    const run = await h.client.start('always_reject', { input: 'deploy', workflowId: testId('rules-reject') });
    await waitForPending(run);
    const receipt = await run.decide({ callId: 'call_1_0', decision: 'deny', by: 'ops:alice', scope: 'run', reason: 'frozen today' });
    expect(receipt.applied).toEqual(['call_1_0', 'call_1_1']);
    const result = await run.result();
    expect(result.status).toBe('success');
    expect(result.finalText).toBe('gave up');
    expect(results(result)).toEqual([
      'Denied by ops:alice: frozen today. The tool was not run.',
      'Denied by ops:alice: frozen today. The tool was not run.',
      'Denied by ops:alice: frozen today (rule run-1). The tool was not run.',
    ]);
    expect(ranFor(run)).toEqual([]);
    const evts = await allEvents(run);
    const rule = { id: 'run-1', scope: 'run' as const };
    expect(of(evts, 'approval_decided').map((e) => [e.callId, e.path ?? null, e.sticky])).toEqual([
      ['call_1_0', 'sdk', false],
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
});
