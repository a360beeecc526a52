/** Reading a run's events in tests: every page, across continue-as-new boundaries. */
import { expect } from 'vitest';
import type { AgentRun } from '../../src/client';
import type { ToolResultBlock } from '../../src/core/messages/messages';
import { outputText } from '../../src/core/messages/messages';
import type { AgentEvent } from '../../src/core/events/events';
import type { AgentRunResult } from '../../src/core/run/result';

/** Every event the run has logged so far, page after page. */
export async function allEvents(run: AgentRun): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  for (let cursor = 0; ;) {
    const page = await run.readEvents(cursor);
    events.push(...page.events);
    if (page.events.length === 0) return events;
    cursor = page.next;
  }
}

/** The calls waiting for a person, once at least one waits (polls up to 10 s). */
export async function waitForPending(run: AgentRun): Promise<Awaited<ReturnType<AgentRun['pendingApprovals']>>> {
  for (let i = 0; i < 200; i++) {
    const pending = await run.pendingApprovals();
    if (pending.length) return pending;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${run.workflowId}: no call waits for a person`);
}

/**
 * The run's result, or (after `ms`) a failure that says where the run stands: its status, pending
 * activities and last history events — so a stalled run in CI explains itself.
 */
export async function resultWithin(run: AgentRun, ms = 40_000): Promise<AgentRunResult> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), ms)));
  try {
    const first = await Promise.race([run.result(), late]);
    if (first !== 'late') return first;
  } finally {
    clearTimeout(timer);
  }
  const d = await run.handle.describe();
  const history = await run.handle.fetchHistory();
  const last = (history.events ?? []).slice(-12).map((e) => `${e.eventId} ${String(e.eventType)}`);
  const pending = (d.raw.pendingActivities ?? []).map(
    (a) =>
      `${a.activityType?.name} attempt ${a.attempt} state ${String(a.state)}${a.lastFailure?.message ? ` (${a.lastFailure.message})` : ''}`,
  );
  throw new Error(
    `${run.workflowId}: no result within ${ms} ms; status ${d.status.name}, ${d.historyLength} events; pending: ${pending.join('; ') || 'none'}; last events: ${last.join(', ')}`,
  );
}

/** Every tool result block of a run's transcript, in order. */
export function toolResults(result: AgentRunResult): ToolResultBlock[] {
  return result.messages.flatMap((m) => m.content.filter((b): b is ToolResultBlock => b.type === 'tool_result'));
}

/**
 * The run ended `success` and its first tool result is the error a tool's unrecordable output gets (the
 * call ran, it is not run again), naming `reason`; returns that text for further checks.
 */
export function unrecordedOutputText(result: AgentRunResult, reason: RegExp): string {
  expect(result.status).toBe('success');
  const [block] = toolResults(result);
  expect(block?.isError).toBe(true);
  const text = outputText(block!.output);
  expect(text).toMatch(/^The tool ran, but its output could not be recorded: /);
  expect(text).toMatch(reason);
  expect(text).toMatch(/It was not run again\.$/);
  return text;
}

/** Read with `read` until `ok` holds (200 reads 50 ms apart at most); throws naming `what` and the last value. */
export async function pollUntil<T>(read: () => Promise<T>, ok: (v: T) => boolean, what: string): Promise<T> {
  let last: T | undefined;
  for (let i = 0; i < 200; i++) {
    last = await read();
    if (ok(last)) return last;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${what} never reached the expected state: ${JSON.stringify(last)}`);
}
