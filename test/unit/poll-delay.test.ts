import { describe, expect, it } from 'vitest';
import { FIRST_EVENT_WAITS_MS, emptyPollWait } from '../../src/client/poll-delay';

describe('emptyPollWait', () => {
  it('asks again sooner before the first event: 10, 20, 40, 80 ms, then the poll interval', () => {
    expect([1, 2, 3, 4, 5, 6].map((n) => emptyPollWait(200, n, false))).toEqual([10, 20, 40, 80, 200, 200]);
    expect(FIRST_EVENT_WAITS_MS).toEqual([10, 20, 40, 80]);
  });

  it('never waits longer than the poll interval', () => {
    expect([1, 2, 3, 4, 5].map((n) => emptyPollWait(30, n, false))).toEqual([10, 20, 30, 30, 30]);
  });

  it('waits the poll interval once the reader has had an event', () => {
    expect(emptyPollWait(200, 1, true)).toBe(200);
    expect(emptyPollWait(100, 7, true)).toBe(100);
  });
});
