/** Sending to a run that has already ended: one typed error, `RunEndedError`, with the run's status. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentRun } from '../../src/client';
import { RunEndedError, RunNotFoundError } from '../../src/client';
import { ScriptedAgents } from '../helpers/agents';
import type { Harness } from '../helpers/harness';
import { startHarness, testId } from '../helpers/harness';
import { resultWithin } from '../helpers/events';

const S = new ScriptedAgents();
S.add('ended_plain', [{ text: 'hello' }], { tools: [] });
S.add('ended_slow', [{ delayMs: 60_000, text: 'never' }], { tools: [] });

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ agents: S.agents, providers: { scripted: S.provider } });
});
afterAll(async () => {
  await h?.stop();
});

async function expectEnded(p: Promise<unknown>, run: AgentRun, status: string): Promise<void> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(RunEndedError);
  expect(err).not.toBeInstanceOf(RunNotFoundError);
  expect(err).toMatchObject({ code: 'run_ended', workflowId: run.workflowId, status });
  expect((err as Error).message).toBe(`run "${run.workflowId}" has already ended (${status})`);
}

describe('a run that has already ended', () => {
  it('send, decide, end, signalMessage and signalDecision throw RunEndedError (completed)', async () => {
    const run = await h.client.start('ended_plain', { input: 'hi', workflowId: testId('ended') });
    expect((await resultWithin(run)).status).toBe('success');
    await expectEnded(run.send('more?'), run, 'completed');
    await expectEnded(run.decide({ callId: 'call_1_0', decision: 'approve', by: 'ops:alice' }), run, 'completed');
    await expectEnded(run.end(), run, 'completed');
    await expectEnded(run.signalMessage('more?'), run, 'completed');
    await expectEnded(run.signalDecision({ callId: 'call_1_0', decision: 'approve', by: 'ops:alice' }), run, 'completed');
  });

  it('a terminated run says so', async () => {
    const run = await h.client.start('ended_slow', { input: 'hi', workflowId: testId('ended-term') });
    await run.handle.terminate('test');
    await expectEnded(run.send('more?'), run, 'terminated');
    await expectEnded(run.signalDecision({ callId: 'call_1_0', decision: 'approve', by: 'ops:alice' }), run, 'terminated');
  });

  it('an unknown id is still RunNotFoundError', async () => {
    const run = h.client.get(testId('never-started'));
    await expect(run.send('hi')).rejects.toBeInstanceOf(RunNotFoundError);
    await expect(run.send('hi')).rejects.not.toBeInstanceOf(RunEndedError);
  });
});
