/** Helpers for tests of live streams: what a display shows, and the checks of a voided attempt. */
import { expect } from 'vitest';
import type { StreamEvent } from '../../client/live';
import type { TextChunk } from '../../core/stream';

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
 * after that, and the text a display shows equals the final text.
 */
export function expectVoidedFirstAttempt(events: readonly StreamEvent[], chunks: readonly TextChunk[], finalText: string): void {
  expect(events.some((e) => e.type === 'delta' && e.attempt === 1)).toBe(true);
  expect(events).toContainEqual(expect.objectContaining({ type: 'attempt_voided', step: 1, attempt: 1 }));
  const voidedAt = events.findIndex((e) => e.type === 'attempt_voided');
  expect(events.slice(voidedAt).some((e) => e.type === 'delta' && e.attempt === 1)).toBe(false);
  expect(chunks.some((c) => c.type === 'reset')).toBe(true);
  expect(shown(chunks)).toBe(finalText);
}
