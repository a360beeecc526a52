/**
 * Decisions sent while a call is being gated (its `tool_call` recorded, its approval predicate still
 * running in `checkApprovals`) are kept and applied when the call asks, by signal and by update; refused
 * only when the call turns out not to need approval.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { AgentRun } from '../../src/client';
import { ApprovalRefusedError } from '../../src/client';
import { defineTool } from '../../src/agents/define';
import type { AgentEvent } from '../../src/core/events/events';
import { ScriptedAgents } from '../helpers/agents';
import { allEvents, resultWithin } from '../helpers/events';
import type { Harness } from '../helpers/harness';
import { startHarness, testId } from '../helpers/harness';

const ran: string[] = [];
/** A tool whose approval predicate takes 2 s: amounts over 100 ask. */
const slowRefund = defineTool({
  name: 'refund',
  description: 'Refund; the approval check is slow',
  input: z.object({ amount: z.number() }),
  needsApproval: async ({ amount }) => {
    await new Promise((r) => setTimeout(r, 2000));
    return amount > 100;
  },
  execute: ({ amount }, ctx) => {
    ran.push(`${ctx.workflowId}/${ctx.callId}`);
    return `refunded ${amount}`;
  },
});

const S = new ScriptedAgents();
S.add('gated_big', [{ toolCalls: [{ name: 'refund', args: { amount: 500 } }] }, { text: 'done' }], { tools: [slowRefund] });
S.add('gated_small', [{ toolCalls: [{ name: 'refund', args: { amount: 5 } }] }, { text: 'done' }], { tools: [slowRefund] });

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ agents: S.agents, providers: { scripted: S.provider } });
});
afterAll(async () => {
  await h?.stop();
});

/** Wait until the run has recorded its tool_call for `callId`. */
async function untilToolCall(run: AgentRun, callId: string): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if ((await allEvents(run)).some((e) => e.type === 'tool_call' && e.callId === callId)) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('no tool_call');
}

const types = (events: AgentEvent[]) => events.map((e) => e.type);

describe('decisions for a call being gated', () => {
  it('a signal sent while the predicate runs is queued and applied when the call asks', async () => {
    const run = await h.client.start('gated_big', { input: 'refund', workflowId: testId('gate-sig') });
    await untilToolCall(run, 'call_1_0');
    await run.signalDecision({ callId: 'call_1_0', decision: 'approve', by: 'ops:alice' });
    const result = await resultWithin(run);
    expect(result.status).toBe('success');
    const events = await allEvents(run);
    expect(types(events)).not.toContain('approval_refused');
    expect(events.find((e) => e.type === 'approval_queued')).toMatchObject({ callId: 'call_1_0', decision: 'approve' });
    expect(events.find((e) => e.type === 'approval_decided')).toMatchObject({ callId: 'call_1_0', decision: 'approve', by: 'ops:alice' });
    expect(ran).toContain(`${run.workflowId}/call_1_0`);
  });

  it('an update sent while the predicate runs waits for the gate and is applied', async () => {
    const run = await h.client.start('gated_big', { input: 'refund', workflowId: testId('gate-upd') });
    await untilToolCall(run, 'call_1_0');
    const receipt = await run.decide({ callId: 'call_1_0', decision: 'approve', by: 'ops:bob' });
    expect(receipt).toMatchObject({ callId: 'call_1_0', tool: 'refund', decision: 'approve', by: 'ops:bob', applied: ['call_1_0'] });
    expect((await resultWithin(run)).status).toBe('success');
    expect(types(await allEvents(run))).not.toContain('approval_refused');
    expect(ran).toContain(`${run.workflowId}/call_1_0`);
  });

  it('a call that turns out not to need approval: the signal and the update are refused, saying so', async () => {
    const run = await h.client.start('gated_small', { input: 'refund', workflowId: testId('gate-no') });
    await untilToolCall(run, 'call_1_0');
    await run.signalDecision({ callId: 'call_1_0', decision: 'deny', by: 'ops:alice' });
    const refused = run.decide({ callId: 'call_1_0', decision: 'deny', by: 'ops:bob' });
    await expect(refused).rejects.toBeInstanceOf(ApprovalRefusedError);
    await expect(refused).rejects.toThrow('it did not ask for approval');
    expect((await resultWithin(run)).status).toBe('success');
    const events = await allEvents(run);
    expect(events.filter((e) => e.type === 'approval_refused').map((e) => (e as { reason: string }).reason)).toEqual([
      'no approval is pending for call "call_1_0": it did not ask for approval',
    ]);
    expect(types(events)).not.toContain('approval_requested');
    expect(ran).toContain(`${run.workflowId}/call_1_0`);
  });
});
