/**
 * A long run end to end on the real dev server: many steps with 20 KB tool outputs, continuing as new and
 * compacting on the way. In `npm test` it runs 250 steps with a low continue-as-new threshold; the full
 * campaign of the issue is the same test with more steps, by hand:
 *
 *   DURABLE_AGENT_LONG_STEPS=5000 npx vitest run test/integration/long-run.test.ts
 *
 * (the threshold is then the default 5,000 events). It checks what a week-long agent needs: every
 * execution's history under Temporal's 10k-event warning, a result and report that cover every step,
 * every event delivered exactly once across every continue-as-new, no model call over the window.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../src/agents/define';
import { loadTranscript } from '../../src/client/transcript';
import type { AgentEvent } from '../../src/core/events/events';
import { FileBlobStore } from '../../src/integrations/store/blob-store';
import { ScriptedAgents } from '../helpers/agents';
import { allEvents } from '../helpers/events';
import type { Harness } from '../helpers/harness';
import { startHarness, testId } from '../helpers/harness';

const STEPS = Number(process.env.DURABLE_AGENT_LONG_STEPS ?? 250);
const LONG = STEPS > 1000;
const OUTPUT_BYTES = 20 * 1024;
const WINDOW = 30_000;

/** A different 20 KB page every step. */
const readPage = defineTool({
  name: 'read_page',
  description: 'Read one page of the manual',
  input: z.object({ page: z.number().int() }),
  readOnly: true,
  execute: ({ page }) => `page ${page}: ${'lorem ipsum dolor '.repeat(OUTPUT_BYTES / 18 + 1)}`.slice(0, OUTPUT_BYTES),
});

const S = new ScriptedAgents();
S.add(
  'long_reader',
  (_request, ctx) =>
    ctx.purpose === 'summary'
      ? { text: `The agent has read pages 1 to ${ctx.step - 1} of the manual and should go on with page ${ctx.step}.` }
      : ctx.step <= STEPS
        ? { toolCalls: [{ name: 'read_page', args: { page: ctx.step } }] }
        : { text: `read ${STEPS} pages` },
  {
    tools: [readPage],
    maxSteps: STEPS + 1,
    context: { windowTokens: WINDOW, keepToolResults: 2 },
    ...(LONG ? {} : { continueAsNewAfterEvents: 1_000 }),
  },
);
S.provider.setWindow('long_reader', WINDOW);

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ agents: S.agents, providers: { scripted: S.provider } });
});
afterAll(async () => {
  await h?.stop();
});

describe(`a long run (${STEPS} steps, 20 KB tool outputs)`, () => {
  it(
    'continues as new and compacts: histories stay small, the result covers every step, every event arrives once',
    async () => {
      const run = await h.client.start('long_reader', { input: 'Read the whole manual, page by page.', workflowId: testId('long-run') });
      // Follow the run live while it goes, as a client would.
      const followed: AgentEvent[] = [];
      for await (const e of run.events()) followed.push(e);
      const result = await run.result();
      expect(result.status).toBe('success');
      expect(result.steps).toBe(STEPS + 1);
      expect(result.finalText).toBe(`read ${STEPS} pages`);
      expect(result.report.steps.length + result.report.stepsOmitted).toBe(STEPS + 1);
      expect(result.report.toolCalls.length + result.report.toolCallsOmitted).toBe(STEPS);
      expect(result.report.steps.at(-1)?.step).toBe(STEPS + 1);
      expect(JSON.stringify(result).length).toBeLessThan(512 * 1024);

      const executions: number[] = [];
      for await (const w of h.temporal.workflow.list({ query: `WorkflowId = '${run.workflowId}'` })) {
        executions.push((await h.temporal.workflow.getHandle(run.workflowId, w.runId).describe()).historyLength);
      }
      expect(executions.length).toBeGreaterThanOrEqual(LONG ? Math.floor(STEPS / 500) : 3);
      expect(Math.max(...executions)).toBeLessThan(10_000);

      // Every event exactly once, in order, across every execution — live and read back afterwards.
      const events = await allEvents(run);
      for (const list of [followed, events]) {
        expect(list.map((e) => e.seq)).toEqual(list.map((_, i) => i));
        expect(list.filter((e) => e.type === 'step_finished')).toHaveLength(STEPS + 1);
        expect(list.filter((e) => e.type === 'tool_result')).toHaveLength(STEPS);
        expect(list.filter((e) => e.type === 'continued_as_new')).toHaveLength(executions.length - 1);
      }
      const compactions = events.filter((e) => e.type === 'compacted');
      expect(compactions.length).toBeGreaterThanOrEqual(1);
      expect(events.filter((e) => e.type === 'compaction_failed')).toEqual([]);
      expect(result.report.compactions).toBe(compactions.length);
      expect(S.provider.largestRequest.get('long_reader')).toBeLessThanOrEqual(WINDOW);

      // The transcript keeps the whole conversation: the prompt, every call and result, the answer.
      const transcript = await loadTranscript(new FileBlobStore(h.storeDir), result);
      expect(transcript).toHaveLength(2 * STEPS + 2);
    },
    LONG ? STEPS * 1_000 : 240_000,
  );
});
