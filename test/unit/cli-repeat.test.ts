/** The CLI's "check every few seconds" loop (used to watch for a worker during a long run). */
import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { repeatEvery } from '../../apps/cli/repeat';

describe('repeatEvery', () => {
  it('leaves no abort listener behind, however many rounds it runs', async () => {
    const controller = new AbortController();
    const listeners: number[] = [];
    let rounds = 0;
    await repeatEvery(1, controller.signal, async () => {
      listeners.push(getEventListeners(controller.signal, 'abort').length);
      return ++rounds === 20;
    });
    expect(rounds).toBe(20);
    expect(Math.max(...listeners)).toBe(0);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('stops at once when the signal aborts during a wait', async () => {
    const controller = new AbortController();
    let rounds = 0;
    const started = Date.now();
    const done = repeatEvery(60_000, controller.signal, async () => (rounds++, false));
    setTimeout(() => controller.abort(), 20);
    await done;
    expect(rounds).toBe(0);
    expect(Date.now() - started).toBeLessThan(5000);
  });
});
