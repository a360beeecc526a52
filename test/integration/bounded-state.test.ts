/**
 * A run whose conversation outgrows what the workflow keeps in memory (the result's recent messages):
 * the workflow trims its loop state as it goes (the `bounded-loop-state` patch is in its history), and the
 * run's result, report and stored transcript are still complete — and an approval late in the run works.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadTranscript } from '../../src/client/transcript';
import type { ModelRequest } from '../../src/core/output/native-output';
import { recentMessages } from '../../src/core/run/report';
import type { ScriptedTurn } from '../../src/integrations/providers/scripted';
import { FileBlobStore } from '../../src/integrations/store/blob-store';
import { ScriptedAgents } from '../helpers/agents';
import type { Harness } from '../helpers/harness';
import { startHarness, testId } from '../helpers/harness';
import { waitForPending } from '../helpers/events';
import { deploy, echo } from '../helpers/tools';

const STEPS = 50;
/** Bytes of recent messages the result (and so the workflow) keeps: a few steps' worth. */
const INLINE = 2048;

const S = new ScriptedAgents();
S.add(
  'bounded_loop',
  (request: ModelRequest): ScriptedTurn => {
    const step = request.messages.filter((m) => m.role === 'assistant').length + 1;
    if (step === STEPS) return { toolCalls: [{ name: 'deploy', args: { service: 'api' }, id: 'late_deploy' }] };
    return step < STEPS
      ? { toolCalls: [{ name: 'echo', args: { text: `step ${step} ${'x'.repeat(100)}` } }] }
      : { text: `done after ${step - 1} tool steps` };
  },
  { tools: [echo, deploy], maxSteps: STEPS + 1, resultMessagesInlineBytes: INLINE },
);

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ agents: S.agents, providers: { scripted: S.provider } });
});
afterAll(async () => {
  await h?.stop();
});

/** The `patched()` ids recorded in a run's history. */
async function patches(workflowId: string): Promise<string[]> {
  const history = await h.temporal.workflow.getHandle(workflowId).fetchHistory();
  const ids: string[] = [];
  for (const e of history.events ?? []) {
    const marker = e.markerRecordedEventAttributes;
    if (marker?.markerName !== 'core_patch') continue;
    for (const p of marker.details?.['patch-data']?.payloads ?? [])
      ids.push((JSON.parse(Buffer.from(p.data ?? []).toString('utf8')) as { id: string }).id);
  }
  return ids;
}

describe('a run longer than the state its workflow keeps', () => {
  it('trims its loop state, and its result, report and transcript are complete', async () => {
    const run = await h.client.start('bounded_loop', { input: 'go', workflowId: testId('bounded') });
    // The approval comes after the state was trimmed many times: the call is still known and runs.
    const [pending] = await waitForPending(run);
    expect(pending).toMatchObject({ callId: 'late_deploy', tool: 'deploy' });
    await run.decide({ callId: 'late_deploy', decision: 'approve', by: 'test' });
    const result = await run.result();

    expect(result.status).toBe('success');
    expect(result.finalText).toBe(`done after ${STEPS} tool steps`);
    expect(await patches(run.workflowId)).toContain('bounded-loop-state');
    const transcript = await loadTranscript(new FileBlobStore(h.storeDir), result);
    expect(transcript).toHaveLength(2 + 2 * STEPS);
    // Exactly the recent messages the whole transcript gives, the rest counted.
    const recent = recentMessages(transcript, INLINE);
    expect(recent.omitted).toBeGreaterThan(0);
    expect(result.messages).toEqual(recent.messages);
    expect(result.messagesOmitted).toBe(recent.omitted);
    expect(result.steps).toBe(STEPS + 1);
    expect(result.report.steps.length + result.report.stepsOmitted).toBe(STEPS + 1);
    expect(result.report.toolCalls.length + result.report.toolCallsOmitted).toBe(STEPS);
    expect(result.report.toolCalls.at(-1)).toMatchObject({ callId: 'late_deploy', tool: 'deploy', isError: false });
  });
});
