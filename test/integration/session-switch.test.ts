/**
 * Sessions across continue-as-new, on the real dev server: a message queued while a run hands itself
 * over to a new execution is grouped, numbered and budgeted exactly as the same message arriving at the
 * same point of a run that does not switch (during the next model call).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../src/agents/define';
import type { AgentRun } from '../../src/client';
import type { AgentEvent } from '../../src/core/events/events';
import type { Message } from '../../src/core/messages/messages';
import { messageText } from '../../src/core/messages/messages';
import type { ModelRequest } from '../../src/core/output/native-output';
import type { AgentRunResult } from '../../src/core/run/result';
import type { ScriptedTurn } from '../../src/integrations/providers/scripted';
import { FileBlobStore } from '../../src/integrations/store/blob-store';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ScriptedAgents } from '../helpers/agents';
import { allEvents } from '../helpers/events';
import type { Harness } from '../helpers/harness';
import { startHarness, testId } from '../helpers/harness';

/** Text that makes the store slow to write a message holding it: the window in which the test sends. */
const SLOW = 'SLOW-WRITE';
/** A real file store that takes its time over messages holding {@link SLOW}. */
class SlowFileBlobStore extends FileBlobStore {
  override async put(data: string): Promise<string> {
    if (data.includes(SLOW)) await new Promise((r) => setTimeout(r, 700));
    return super.put(data);
  }
}

const marked = defineTool({
  name: 'marked',
  description: 'Answers with a marked text',
  input: z.object({ n: z.number() }),
  // Unique per run: the store writes a blob it knows already at once.
  execute: ({ n }, ctx) => `${SLOW} ${ctx.workflowId} ${n}`,
});

const TOOL_STEPS = 6;
const lastUserText = (messages: readonly Message[]) =>
  messageText(
    [...messages].reverse().find((m) => m.role === 'user' && m.content.some((b) => b.type === 'text')) ?? { role: 'user', content: [] },
  );
const script = (request: ModelRequest): ScriptedTurn => {
  const answered = request.messages.filter((m) => m.role === 'assistant').length;
  return answered < TOOL_STEPS
    ? { toolCalls: [{ name: 'marked', args: { n: answered + 1 } }] }
    : { text: `re: ${lastUserText(request.messages)}` };
};

const S = new ScriptedAgents();
S.add('switches', script, { tools: [marked], maxSteps: 50, continueAsNewAfterEvents: 50 });
S.add('stays', script, { tools: [marked], maxSteps: 50 });

let h: Harness;
beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'durable-agent-store-'));
  h = await startHarness({ agents: S.agents, providers: { scripted: S.provider }, storeDir: dir, store: new SlowFileBlobStore(dir) });
});
afterAll(async () => {
  await h?.stop();
});

async function until<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  for (let i = 0; i < 1000; i++) {
    const found = await probe();
    if (found !== undefined) return found;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** The activity types pending in the run's current execution. */
async function pending(run: AgentRun): Promise<string[]> {
  const d = await h.temporal.workflow.getHandle(run.workflowId).describe();
  return (d.raw.pendingActivities ?? []).map((a) => a.activityType?.name ?? '');
}

/** What clients see of a run: the conversation's shape, user turns, steps by turn, the answer. */
function seen(result: AgentRunResult, events: readonly AgentEvent[]) {
  return {
    status: result.status,
    messages: result.messages.map((m) => `${m.role}: ${m.content.map((b) => (b.type === 'text' ? b.text : b.type)).join(' | ')}`),
    userTurns: events.flatMap((e) => (e.type === 'user_message' ? [[e.turn, e.text]] : [])),
    stepTurns: result.report.steps.map((s) => [s.step, s.turn]),
    steps: result.steps,
    finalText: result.finalText,
  };
}

async function finish(run: AgentRun, budgeted: boolean) {
  if (!budgeted) {
    await until('the answer to the late message', async () =>
      (await allEvents(run)).some((e) => e.type === 'text' && e.text.includes('late message')) ? true : undefined,
    );
    await run.end();
  }
  const result = await run.result();
  return seen(result, await allEvents(run));
}

describe('a message queued at the switch to a new execution', () => {
  it.each([
    ['within budget', undefined],
    ['with maxTurns: 1', 1],
  ])('is grouped, numbered and counted as without the switch (%s)', async (_name, maxTurns) => {
    const budget = maxTurns ? { budget: { maxTurns } } : {};
    // The switching run: the message arrives while the old execution stores the transcript to hand over.
    const a = await h.client.start('switches', { input: 'start', session: true, workflowId: testId('switches'), ...budget });
    await until('the hand-over', async () => ((await pending(a)).includes('commitTranscript') ? true : undefined));
    const receiptA = await a.send('late message');
    const switched = await finish(a, maxTurns !== undefined);
    const handedOver = (await allEvents(a)).find((e) => e.type === 'continued_as_new');
    expect(handedOver).toBeDefined();
    const k = handedOver!.type === 'continued_as_new' ? handedOver!.step : 0;

    // The same traffic without a switch: the message arrives during the next model call (step k + 1).
    const b = await h.client.start('stays', { input: 'start', session: true, workflowId: testId('stays'), ...budget });
    await until(`the model call of step ${k + 1}`, async () => {
      const events = await allEvents(b);
      const ready =
        events.some((e) => e.type === 'tool_result' && e.step === k) && !events.some((e) => e.type === 'step_finished' && e.step === k + 1);
      const p = await pending(b);
      return ready && p.includes('callModel') ? true : undefined;
    });
    const receiptB = await b.send('late message');
    const stayed = await finish(b, maxTurns !== undefined);

    expect(receiptA.turn).toBe(receiptB.turn);
    expect(switched).toEqual(stayed);
    // Never two user messages in a row.
    expect(switched.messages.some((m, i) => m.startsWith('user') && switched.messages[i + 1]?.startsWith('user'))).toBe(false);
  });
});
