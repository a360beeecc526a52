/**
 * One long agent run whose tool returns a sizable text every step, and the size of its history step by
 * step: what history holds per step should not grow with the conversation, which the blob store holds.
 */
import { performance } from 'node:perf_hooks';
import { loadTranscript } from '../src/client/transcript';
import { jsonBytes } from '../src/core/messages/json';
import type { Message } from '../src/core/messages/messages';
import { LONG_AGENT } from './agents';
import type { BenchEnvironment } from './environment';
import type { HistorySummary } from './history';
import { summarizeHistory } from './history';

/** What the long run measured. */
export interface HistoryRun {
  workflowId: string;
  toolSteps: number;
  seconds: number;
  history: HistorySummary;
  /** History size as the server reports it (describe), when it does. */
  serverHistoryBytes: number | undefined;
  serverHistoryEvents: number;
  /** Bytes of the conversation the model was sent at step `k` (prompt, then k-1 assistant/tool pairs). */
  conversationBytesAt(step: number): number;
}

/** Run the long agent for `toolSteps` tool steps (and its answer), then fetch and summarise its history. */
export async function historyRun(env: BenchEnvironment, toolSteps: number, id: string): Promise<HistoryRun> {
  const started = performance.now();
  const run = await env.agents.start(LONG_AGENT, { input: 'Read the manual page by page.', workflowId: `bench-long-${id}` });
  const result = await run.result();
  const seconds = (performance.now() - started) / 1000;
  if (result.status !== 'success' || result.steps !== toolSteps + 1) {
    throw new Error(`long run ${run.workflowId} ended ${result.status} after ${result.steps} model calls (expected ${toolSteps + 1})`);
  }
  const history = summarizeHistory(await run.handle.fetchHistory());
  const described = await run.handle.describe();
  // The result carries only the most recent messages; the store has the whole conversation.
  const messages: Message[] = await loadTranscript(env.store, result);
  return {
    workflowId: run.workflowId,
    toolSteps,
    seconds,
    history,
    serverHistoryBytes: described.historySize,
    serverHistoryEvents: described.historyLength,
    conversationBytesAt: (step) => jsonBytes(messages.slice(0, 2 * step - 1)),
  };
}
