/** The worker's first connection to Temporal: retried with exponential backoff while the server is unreachable. */
import { Runtime } from '@temporalio/worker';

/** How long `createWorker` retries its first connection by default (ms). */
export const DEFAULT_CONNECT_TIMEOUT_MS = 60_000;

const FIRST_DELAY_MS = 500;
const MAX_DELAY_MS = 10_000;

/** The wait before attempt `attempt + 1` (attempt counts from 1): 0.5 s doubling, at most 10 s. */
export function connectDelay(attempt: number): number {
  return Math.min(MAX_DELAY_MS, FIRST_DELAY_MS * 2 ** (attempt - 1));
}

/**
 * Call `connect` until it succeeds or `timeoutMs` has passed since the first attempt (no retry when it is
 * 0), waiting {@link connectDelay} between attempts; each failure that will be retried is a warning in
 * Temporal's log naming `address`, and a connection after failures an info line.
 *
 * @throws the last attempt's error once the time is up.
 */
export async function connectWithRetries<T>(connect: () => Promise<T>, address: string, timeoutMs: number): Promise<T> {
  const started = Date.now();
  for (let attempt = 1; ; attempt++) {
    try {
      const connection = await connect();
      if (attempt > 1) Runtime.instance().logger.info(`durable-agent: connected to the Temporal server at ${address} (attempt ${attempt})`);
      return connection;
    } catch (err) {
      const delay = connectDelay(attempt);
      const left = timeoutMs - (Date.now() - started);
      if (left <= 0) throw err;
      const wait = Math.min(delay, left);
      const why = err instanceof Error ? err.message : String(err);
      Runtime.instance().logger.warn(
        `durable-agent: cannot reach the Temporal server at ${address}: attempt ${attempt} failed (${why}); retrying in ${(wait / 1000).toFixed(1)} s (giving up ${Math.round(left / 1000)} s from now)`,
      );
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
}
