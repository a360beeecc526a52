import { setTimeout as sleep } from 'node:timers/promises';
import { Context } from '@temporalio/activity';
import { MockActivityEnvironment } from '@temporalio/testing';
import { describe, expect, it } from 'vitest';
import { heartbeatEvery, keepAlive } from '../../src/activities/heartbeat';

/** Run `work` as an activity with a heartbeat timeout, under keepAlive; the heartbeats it sent. */
async function beatsDuring(heartbeatTimeoutMs: number | undefined, work: () => Promise<void>): Promise<unknown[]> {
  const env = new MockActivityEnvironment(heartbeatTimeoutMs === undefined ? {} : { heartbeatTimeoutMs });
  const beats: unknown[] = [];
  env.on('heartbeat', (d: unknown) => beats.push(d));
  await env.run(async () => {
    const stop = keepAlive(Context.current(), () => 'details');
    try {
      await work();
    } finally {
      stop();
    }
  });
  return beats;
}

describe('keepAlive', () => {
  it('sends no heartbeat for an activity that ends before the first beat is due', async () => {
    expect(await beatsDuring(3_000, async () => undefined)).toEqual([]);
  });

  it('beats on its timer, with the details, while a longer activity runs', async () => {
    const beats = await beatsDuring(300, () => sleep(450));
    expect(beats.length).toBeGreaterThanOrEqual(1);
    expect(beats.every((d) => d === 'details')).toBe(true);
  });

  it('sends nothing when the activity has no heartbeat timeout', async () => {
    expect(await beatsDuring(undefined, () => sleep(150))).toEqual([]);
  });

  it('beats every third of the timeout, within 100 ms … 10 s', () => {
    expect(heartbeatEvery(3_000)).toBe(1_000);
    expect(heartbeatEvery(90)).toBe(100);
    expect(heartbeatEvery(60 * 60_000)).toBe(10_000);
  });
});
