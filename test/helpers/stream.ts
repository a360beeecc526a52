/** Helpers for tests of live streams: what a display shows, and the checks of a voided attempt. */
import { expect } from 'vitest';
import type { AgentRun } from '../../src/client';
import type { StreamEvent } from '../../src/client/live';
import { TextAccumulator } from '../../src/client/live';
import type { AgentRunResult } from '../../src/core/run/result';
import type { TextChunk } from '../../src/core/events/stream';

/** Apply text chunks as a display would: each step's text, steps in order. */
export function shown(chunks: readonly TextChunk[]): string {
  const byStep = new Map<number, string>();
  for (const c of chunks) byStep.set(c.step, c.type === 'reset' ? c.text : (byStep.get(c.step) ?? '') + c.text);
  return [...byStep.values()].join('');
}

/** Collect every item of an async iterable (into `into`, if given). */
export async function collect<T>(items: AsyncIterable<T>, into: T[] = []): Promise<T[]> {
  for await (const item of items) into.push(item);
  return into;
}

/**
 * Check a run whose step 1, attempt 1 streamed and then failed: its deltas were shown, then voided, none
 * after that; the text a display shows equals the final text; and the transcript (`result.messages`) holds
 * only the surviving attempt's text: one assistant message, its text the final text, nothing of the voided
 * attempt's answer besides it.
 */
export function expectVoidedFirstAttempt(events: readonly StreamEvent[], chunks: readonly TextChunk[], result: AgentRunResult): void {
  expect(events.some((e) => e.type === 'delta' && e.attempt === 1)).toBe(true);
  expect(events).toContainEqual(expect.objectContaining({ type: 'attempt_voided', step: 1, attempt: 1 }));
  const voidedAt = events.findIndex((e) => e.type === 'attempt_voided');
  expect(events.slice(voidedAt).some((e) => e.type === 'delta' && e.attempt === 1)).toBe(false);
  expect(chunks.some((c) => c.type === 'reset')).toBe(true);
  expect(shown(chunks)).toBe(result.finalText);
  const voidedText = events.map((e) => (e.type === 'delta' && e.attempt === 1 && e.delta.type === 'text' ? e.delta.text : '')).join('');
  expect(voidedText.length).toBeGreaterThan(0);
  expect(result.messagesOmitted).toBe(0);
  const assistantTexts = result.messages.flatMap((m) =>
    m.role === 'assistant' ? [m.content.map((b) => (b.type === 'text' ? b.text : '')).join('')] : [],
  );
  expect(assistantTexts).toEqual([result.finalText]);
}

/**
 * Read `run.stream()` as a slow consumer would (`msPerEvent` after each event, from the start, while the run
 * goes on) and check that it does not slow the run: the run's result comes while the reader is still behind
 * (it has not read `done` yet); the reader then still gets every durable event exactly once and in order,
 * live deltas in order with none twice (gaps allowed: a reader that is behind may miss some), and the text
 * it accumulates (as `run.textStream()` does) is each step's recorded text, the last one the final text.
 */
export async function expectSlowReaderNotInTheWay(run: AgentRun, msPerEvent = 300): Promise<StreamEvent[]> {
  const events: StreamEvent[] = [];
  const text = new TextAccumulator();
  const chunks: TextChunk[] = [];
  const reading = (async () => {
    for await (const e of run.stream()) {
      events.push(e);
      chunks.push(...text.push(e));
      await new Promise((r) => setTimeout(r, msPerEvent));
    }
  })();
  const result = await run.result();
  const readWhenEnded = events.length;
  expect(
    events.some((e) => e.type === 'done'),
    'the reader had read `done` before the run ended: it was not behind',
  ).toBe(false);
  await reading;
  expect(events.length).toBeGreaterThan(readWhenEnded);
  const seqs = events.flatMap((e) => ('seq' in e ? [e.seq] : []));
  expect(seqs).toEqual(seqs.map((_, i) => i));
  expect(events.at(-1)).toMatchObject({ type: 'done', status: result.status, finalText: result.finalText });
  const next = new Map<string, number>();
  for (const e of events) {
    if (e.type !== 'delta') continue;
    const key = `${e.step}/${e.attempt}`;
    expect(e.n).toBeGreaterThanOrEqual(next.get(key) ?? 0);
    next.set(key, e.n + 1);
  }
  const recorded = new Map(events.flatMap((e) => (e.type === 'text' ? [[e.step, e.text] as const] : [])));
  expect(recorded.size).toBeGreaterThan(0);
  for (const [step, recordedText] of recorded) expect(text.textOf(step)).toBe(recordedText);
  expect(text.textOf(Math.max(...recorded.keys()))).toBe(result.finalText);
  expect(shown(chunks)).toBe(
    [...recorded.keys()]
      .sort((a, b) => a - b)
      .map((s) => recorded.get(s))
      .join(''),
  );
  return events;
}
