/**
 * Many waiting runs on a worker whose workflow cache is tiny (maxCachedWorkflows 2), on the real dev
 * server: runs waiting for a person and sessions waiting for a message are evicted while they wait,
 * replay their history when their decision or message arrives, and each resumes to its own decision
 * (README "Many waiting runs on one worker: the workflow cache"; the scale is measured by
 * bench/waiting-runs.ts). No timing is asserted.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../src/agents/define';
import type { AgentRun } from '../../src/client';
import type { Message, ToolResultBlock } from '../../src/core/messages/messages';
import { messageText, outputText } from '../../src/core/messages/messages';
import type { ModelRequest } from '../../src/core/output/native-output';
import type { ScriptedTurn } from '../../src/integrations/providers/scripted';
import { ScriptedAgents } from '../helpers/agents';
import { resultWithin, waitForPending } from '../helpers/events';
import type { Harness } from '../helpers/harness';
import { startHarness, testId } from '../helpers/harness';

/** Executions of `publish` in this process: `<workflowId>:<doc>`. */
const ran: string[] = [];

const publish = defineTool({
  name: 'publish',
  description: 'Publish a document (a person approves it first)',
  input: z.object({ doc: z.string() }),
  needsApproval: true,
  execute: ({ doc }, ctx) => {
    ran.push(`${ctx.workflowId}:${doc}`);
    return `published ${doc}`;
  },
});

/** The last user message's text, or its tool results' text. */
function lastUserWords(messages: readonly Message[]): string {
  const last = [...messages].reverse().find((m) => m.role === 'user');
  if (!last) return '';
  const results = last.content.filter((b): b is ToolResultBlock => b.type === 'tool_result');
  return results.length > 0 ? results.map((r) => outputText(r.output)).join(' | ') : messageText(last);
}

const S = new ScriptedAgents();
// Asks to publish the document named in its prompt, then repeats the tool's result (or refusal).
S.add(
  'cache_publish',
  (request: ModelRequest): ScriptedTurn =>
    request.messages.some((m) => m.role === 'assistant')
      ? { text: `after: ${lastUserWords(request.messages)}` }
      : { toolCalls: [{ name: 'publish', args: { doc: lastUserWords(request.messages) } }] },
  { tools: [publish] },
);
// A session answering each message with what it was sent.
S.add('cache_chat', (request: ModelRequest): ScriptedTurn => ({ text: `re: ${lastUserWords(request.messages)}` }), {
  tools: [],
  maxSteps: 10,
});

const CACHE = 2;
let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    agents: S.agents,
    providers: { scripted: S.provider },
    temporal: { maxCachedWorkflows: CACHE, maxConcurrentWorkflowTaskExecutions: CACHE },
  });
});
afterAll(async () => {
  await h?.stop();
});

describe('a worker with a workflow cache of 2', () => {
  it('resumes 10 runs waiting for approval and 4 sessions waiting for a message, each to its own decision', async () => {
    const docs = Array.from({ length: 10 }, (_, i) => `doc-${i}`);
    const runs: AgentRun[] = await Promise.all(
      docs.map((doc) => h.client.start('cache_publish', { input: doc, workflowId: testId(`cache-${doc}`) })),
    );
    const sessions: AgentRun[] = await Promise.all(
      [0, 1, 2, 3].map((i) => h.client.start('cache_chat', { input: `hello ${i}`, session: true, workflowId: testId(`cache-chat-${i}`) })),
    );

    // Every run waits at once; the worker holds at most 2 of them, so the others were evicted.
    for (const run of runs) expect((await waitForPending(run)).map((p) => p.callId)).toEqual(['call_1_0']);
    for (const run of sessions) await untilAwaitingMessage(run);
    expect(h.worker.worker.getStatus().numCachedWorkflows).toBeLessThanOrEqual(CACHE);

    // Even runs approved, odd runs denied with a reason naming them; each session sent its own message.
    await Promise.all(
      runs.map((run, i) =>
        run.signalDecision({ callId: 'call_1_0', decision: i % 2 === 0 ? 'approve' : 'deny', by: 'test', reason: `reason ${i}` }),
      ),
    );
    await Promise.all(sessions.map((run, i) => run.send(`message ${i}`)));
    await Promise.all(sessions.map((run) => run.end()));

    const results = await Promise.all(runs.map((run) => resultWithin(run)));
    results.forEach((result, i) => {
      expect(result.status).toBe('success');
      expect(result.finalText).toBe(
        i % 2 === 0 ? `after: published doc-${i}` : `after: Denied by test: reason ${i}. The tool was not run.`,
      );
    });
    expect(ran.sort()).toEqual(
      runs
        .filter((_, i) => i % 2 === 0)
        .map((run, j) => `${run.workflowId}:doc-${2 * j}`)
        .sort(),
    );

    const chats = await Promise.all(sessions.map((run) => resultWithin(run)));
    chats.forEach((result, i) => {
      expect(result.status).toBe('success');
      expect(result.finalText).toBe(`re: message ${i}`);
    });
  });
});

/** Poll the run's snapshot until the session waits for a message (10 s at most). */
async function untilAwaitingMessage(run: AgentRun): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if ((await run.snapshot()).status === 'awaiting_message') return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${run.workflowId}: the session does not wait for a message`);
}
