/**
 * How long a reader of a run's events waits after a poll that found nothing. A run that was just started
 * emits its first event within tens of milliseconds (its first workflow task, then `describeAgent`), so
 * before a reader has had any event it asks again sooner (10, 20, 40, 80 ms), never sitting out a whole
 * poll interval for the first one; afterwards, every `pollMs`.
 */

/** Waits after the 1st, 2nd… empty poll before a reader's first event (each capped at the poll interval). */
export const FIRST_EVENT_WAITS_MS: readonly number[] = [10, 20, 40, 80];

/**
 * Milliseconds to wait after an empty poll.
 *
 * @param pollMs the reader's poll interval.
 * @param emptyPolls empty polls in a row so far, this one included (1 for the first).
 * @param seenEvent whether the reader has had an event yet.
 * @example
 * ```ts
 * emptyPollWait(200, 1, false); // 10
 * emptyPollWait(200, 1, true); // 200
 * ```
 */
export function emptyPollWait(pollMs: number, emptyPolls: number, seenEvent: boolean): number {
  if (seenEvent) return pollMs;
  return Math.min(pollMs, FIRST_EVENT_WAITS_MS[emptyPolls - 1] ?? pollMs);
}
