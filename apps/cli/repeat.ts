/** Doing something every so often until told to stop. */
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Wait `intervalMs`, run `round`, and again, until `signal` aborts or `round` returns true. Each wait
 * listens to `signal` only while it lasts, so a long loop leaves no listener behind.
 */
export async function repeatEvery(intervalMs: number, signal: AbortSignal, round: () => Promise<boolean>): Promise<void> {
  while (!signal.aborted) {
    try {
      await sleep(intervalMs, undefined, { signal });
    } catch {
      return; // aborted
    }
    if (await round()) return;
  }
}
