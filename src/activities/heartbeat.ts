import type { Context } from '@temporalio/activity';

/**
 * Heartbeat on a timer while an activity runs, so cancellation reaches it and a dead worker is noticed
 * within the heartbeat timeout even if the work itself never reports progress (with `details`, each beat
 * carries them: a streaming model call's newest deltas). Returns a stop function.
 *
 * The first beat comes a third of the heartbeat timeout after the start (at least 100 ms), not at once:
 * the server counts the timeout from the start, so an activity that ends sooner (a zero-latency model, an
 * instant tool) sends no heartbeat at all, sparing the server a `RecordActivityTaskHeartbeat` per call.
 */
export function keepAlive(ctx: Pick<Context, 'info' | 'heartbeat'>, details?: () => unknown): () => void {
  const timeoutMs = ctx.info.heartbeatTimeoutMs;
  if (!timeoutMs) return () => undefined;
  const timer = setInterval(() => ctx.heartbeat(details?.()), heartbeatEvery(timeoutMs));
  return () => clearInterval(timer);
}

/** How often {@link keepAlive} beats for a heartbeat timeout: a third of it, within 100 ms … 10 s. */
export function heartbeatEvery(timeoutMs: number): number {
  return Math.max(100, Math.min(Math.floor(timeoutMs / 3), 10_000));
}

/** The message of anything thrown. */
export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message || err.name;
  return typeof err === 'string' ? err : (JSON.stringify(err) ?? String(err));
}
