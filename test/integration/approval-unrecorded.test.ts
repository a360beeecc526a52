/**
 * A decision for a call its sender saw before the run's history held it: the model's answer is
 * recorded, but the workflow task that turns it into a pending approval has not run yet when the
 * `decide` update arrives (no worker was up; the update lands in the same workflow task). The run
 * refuses it as "not reached"; `run.decide()` must ask again and get it applied, not lose it.
 * Found by the chaos campaign: a person's decision refused that way left the run waiting forever.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { AgentClient } from '../../src/client';
import type { ModelRequest } from '../../src/core/output/native-output';
import { ScriptedAgents } from '../helpers/agents';
import type { Harness } from '../helpers/harness';
import { startHarness, testId } from '../helpers/harness';
import { recordingDeploy } from '../helpers/tools';

const { deploy, ran } = recordingDeploy();

let modelStarted: () => void = () => undefined;
const S = new ScriptedAgents();
S.add(
  'unrecorded_call',
  async (request: ModelRequest) => {
    const answered = request.messages.some((m) => Array.isArray(m.content) && m.content.some((b) => b.type === 'tool_result'));
    if (answered) return { text: 'deployed' };
    modelStarted();
    // Long enough for the test to stop the worker while this call runs; the worker's grace lets it finish.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    return { toolCalls: [{ name: 'deploy', args: { service: 'web' } }] };
  },
  { tools: [deploy] },
);

describe('a decision for a call the run has not recorded yet', () => {
  const harnesses: Harness[] = [];
  let connection: Connection | undefined;
  afterAll(async () => {
    for (const h of harnesses) await h.stop().catch(() => undefined);
    await connection?.close();
  });

  it('run.decide() asks again until the run reaches the call, and the decision is applied once', async () => {
    const storeDir = mkdtempSync(join(tmpdir(), 'durable-agent-store-'));
    const started = new Promise<void>((resolve) => (modelStarted = resolve));
    const first = await startHarness({
      agents: S.agents,
      providers: { scripted: S.provider },
      storeDir,
      temporal: { shutdownGraceTime: '10s' },
    });
    const workflowId = testId('unrecorded');
    await first.client.start('unrecorded_call', { input: 'deploy web', workflowId });
    await started;
    // Graceful stop: the model call finishes and its answer is recorded; no worker runs the next workflow task.
    await first.stop();

    connection = await Connection.connect({ address: inject('temporalAddress') });
    const client = new AgentClient(new Client({ connection }), first.taskQueue);
    const run = client.get(workflowId);
    const deciding = run.decide({ callId: 'call_1_0', decision: 'approve', by: 'ops:alice', reason: 'seen in the inbox' });
    // Let the update reach the server before a worker exists, so it joins the pending workflow task.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    harnesses.push(await startHarness({ agents: S.agents, providers: { scripted: S.provider }, storeDir, taskQueue: first.taskQueue }));

    const receipt = await deciding;
    expect(receipt).toMatchObject({ callId: 'call_1_0', decision: 'approve', by: 'ops:alice', applied: ['call_1_0'] });
    const result = await run.result();
    expect(result.status).toBe('success');
    expect(ran).toEqual([`${workflowId}/call_1_0`]);
  });
});
