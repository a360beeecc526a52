/**
 * Context compaction on the real dev server, with scripted models whose context windows are small and
 * enforced (a request over the window fails with HTTP 400 "prompt is too long", as real APIs do).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadTranscript } from '../../src/client/transcript';
import type { AgentEvent } from '../../src/core/events/events';
import type { Message } from '../../src/core/messages/messages';
import type { ModelRequest } from '../../src/core/output/native-output';
import type { ScriptedTurn } from '../../src/integrations/providers/scripted';
import type { ModelCallContext } from '../../src/integrations/providers/types';
import { FileBlobStore } from '../../src/integrations/store/blob-store';
import { ScriptedAgents } from '../helpers/agents';
import { allEvents, resultWithin } from '../helpers/events';
import type { Harness } from '../helpers/harness';
import { startHarness, testId } from '../helpers/harness';
import { big } from '../helpers/tools';

const WINDOW = 6_000;

/** Problems seen in requests: a tool result not right after its call, or a call without its result. */
const splitPairs: string[] = [];

function checkPairs(messages: Message[], where: string): void {
  messages.forEach((m, i) => {
    for (const b of m.content) {
      if (b.type === 'tool_result' && !messages[i - 1]?.content.some((u) => u.type === 'tool_use' && u.id === b.toolUseId))
        splitPairs.push(`${where}: result ${b.toolUseId} without its call`);
      if (
        b.type === 'tool_use' &&
        i < messages.length - 1 &&
        !messages[i + 1]?.content.some((r) => r.type === 'tool_result' && r.toolUseId === b.id)
      )
        splitPairs.push(`${where}: call ${b.id} without its result`);
    }
  });
}

/** `steps` steps reading 2 KB each, then an answer; every request's tool pairs are checked. */
function reader(steps: number, name: string) {
  return (request: ModelRequest, ctx: ModelCallContext): ScriptedTurn => {
    if (ctx.purpose === 'summary') return { text: `Summary ${ctx.step}: the agent read ${ctx.step - 1} pages of 2 KB; keep reading.` };
    checkPairs(request.messages, `${name} step ${ctx.step}`);
    return ctx.step <= steps ? { toolCalls: [{ name: 'big', args: { kb: 2 } }] } : { text: `read ${steps} pages` };
  };
}

/** What the micro-compacting agent was sent at step 9. */
let seenAtStep9: Message[] | undefined;

const S = new ScriptedAgents();
S.add('compacting', reader(30, 'compacting'), {
  tools: [big],
  maxSteps: 40,
  context: { windowTokens: WINDOW, keepRecentTokens: 1_500, keepToolResults: 0 },
});
S.add('failing_summary', reader(20, 'failing_summary'), {
  tools: [big],
  maxSteps: 40,
  context: {
    windowTokens: WINDOW,
    keepRecentTokens: 1_500,
    keepToolResults: 0,
    summaryModel: { provider: 'scripted', model: 'broken_summarizer' },
  },
});
S.provider.set('broken_summarizer', () => ({ failures: [{ message: 'summariser down', retryable: false, status: 400 }] }));
S.add('overflowing', reader(14, 'overflowing'), { tools: [big], maxSteps: 40, context: { keepRecentTokens: 1_500, keepToolResults: 0 } });
S.add('no_summaries', reader(14, 'no_summaries'), { tools: [big], maxSteps: 40, context: { keepToolResults: 0, summarize: false } });
S.add(
  'stubbing',
  (request, ctx) => {
    if (ctx.step === 9) seenAtStep9 = request.messages;
    return ctx.step <= 10 ? { toolCalls: [{ name: 'big', args: { kb: 2 } }] } : { text: 'done' };
  },
  { tools: [big], maxSteps: 20, context: { windowTokens: 100_000, keepToolResults: 2 } },
);
for (const name of ['compacting', 'overflowing', 'no_summaries']) S.provider.setWindow(name, WINDOW);

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ agents: S.agents, providers: { scripted: S.provider } });
});
afterAll(async () => {
  await h?.stop();
});

const ofType = <T extends AgentEvent['type']>(events: AgentEvent[], type: T) =>
  events.filter((e): e is Extract<AgentEvent, { type: T }> => e.type === type);

async function activityTypes(workflowId: string): Promise<string[]> {
  const history = await h.temporal.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? []).flatMap((e) =>
    e.activityTaskScheduledEventAttributes?.activityType?.name ? [e.activityTaskScheduledEventAttributes.activityType.name] : [],
  );
}

describe('compaction', () => {
  it('keeps every call within the window: summaries by an activity, tool pairs never split, the transcript whole', async () => {
    const run = await h.client.start('compacting', { input: 'Read the manual.', workflowId: testId('compacting') });
    const result = await run.result();
    expect(result.status).toBe('success');
    expect(result.steps).toBe(31);
    expect(S.provider.largestRequest.get('compacting')).toBeLessThanOrEqual(WINDOW);
    expect(splitPairs.filter((p) => p.startsWith('compacting'))).toEqual([]);

    const events = await allEvents(run);
    const compactions = ofType(events, 'compacted');
    expect(compactions.length).toBeGreaterThanOrEqual(2);
    for (const c of compactions) {
      expect(c).toMatchObject({ reason: 'threshold', summaryModel: 'scripted/compacting' });
      expect(c.tokensAfter).toBeLessThan(c.tokensBefore);
      expect(c.messagesSummarized).toBeGreaterThan(0);
    }
    expect(ofType(events, 'compaction_failed')).toEqual([]);
    expect(result.report.compactions).toBe(compactions.length);
    // The summaries' tokens count in the run's usage: more than its steps reported.
    const stepInput = result.report.steps.reduce((n, s) => n + s.usage.inputTokens, 0);
    expect(result.usage.inputTokens).toBeGreaterThan(stepInput);

    expect((await activityTypes(run.workflowId)).filter((t) => t === 'compactContext')).toHaveLength(compactions.length);
    // The transcript keeps the whole conversation: the prompt, 30 calls and results, the answer.
    const transcript = await loadTranscript(new FileBlobStore(h.storeDir), result);
    expect(transcript).toHaveLength(62);
    expect(JSON.stringify(transcript)).not.toMatch(/Summary \d+:/);
  });

  it('a failing summariser leaves the run going unchanged, and is not retried every step', async () => {
    const run = await h.client.start('failing_summary', { input: 'Read the manual.', workflowId: testId('failing-summary') });
    const result = await run.result();
    expect(result.status).toBe('success');
    expect(result.steps).toBe(21);
    const failed = ofType(await allEvents(run), 'compaction_failed');
    expect(failed.length).toBeGreaterThanOrEqual(2);
    expect(failed[0]!.error).toMatch(/summariser down/);
    for (let i = 1; i < failed.length; i++) expect(failed[i]!.step - failed[i - 1]!.step).toBeGreaterThanOrEqual(5);
    expect(result.report.compactions).toBeUndefined();
  });

  it('a provider\'s "prompt is too long" compacts once and retries the call, with no window configured', async () => {
    const run = await h.client.start('overflowing', { input: 'Read the manual.', workflowId: testId('overflowing') });
    const result = await resultWithin(run);
    expect(result.status).toBe('success');
    expect(result.steps).toBe(15);
    const events = await allEvents(run);
    const compactions = ofType(events, 'compacted');
    expect(compactions.length).toBeGreaterThanOrEqual(1);
    expect(compactions.every((c) => c.reason === 'overflow')).toBe(true);
    // The step that overflowed was tried again after the compaction.
    const overflowStep = compactions[0]!.step;
    expect(ofType(events, 'step_started').filter((e) => e.step === overflowStep)).toHaveLength(2);
    expect(splitPairs.filter((p) => p.startsWith('overflowing'))).toEqual([]);
  });

  it('without summaries an overflow ends the run provider_error, saying why', async () => {
    const result = await (await h.client.start('no_summaries', { input: 'Read the manual.', workflowId: testId('no-summaries') })).result();
    expect(result.status).toBe('provider_error');
    expect(result.error?.message).toMatch(/prompt is too long: \d+ tokens > 6000 maximum/);
  });

  it('shows old tool results as stubs and the recent ones whole (micro-compaction)', async () => {
    const result = await (await h.client.start('stubbing', { input: 'Read the manual.', workflowId: testId('stubbing') })).result();
    expect(result.status).toBe('success');
    const outputs = (seenAtStep9 ?? []).flatMap((m) =>
      m.content.flatMap((b) => (b.type === 'tool_result' && b.output.type === 'text' ? [b.output.text] : [])),
    );
    expect(outputs).toHaveLength(8);
    // Step 9 keeps whole the results of steps 7 and 8 (the last 2, moved in blocks of 2); 1-6 are stubs.
    expect(
      outputs
        .slice(0, 6)
        .every((t) => /^\[Earlier tool result omitted to save context: 2048 characters, kept in the run's transcript \(call .+\)/.test(t)),
    ).toBe(true);
    expect(outputs.slice(6).every((t) => t.length === 2048 && t.endsWith('END-OF-BLOB!'))).toBe(true);
  });
});
