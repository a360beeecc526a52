import type { Context } from '@temporalio/activity';

/**
 * Heartbeat on a timer while an activity runs, so cancellation reaches it and a dead worker is noticed
 * within the heartbeat timeout even if the work itself never reports progress. Returns a stop function.
 */
export function keepAlive(ctx: Context): () => void {
  const timeoutMs = ctx.info.heartbeatTimeoutMs;
  if (!timeoutMs) return () => undefined;
  const every = Math.max(100, Math.min(Math.floor(timeoutMs / 3), 10_000));
  const timer = setInterval(() => ctx.heartbeat(), every);
  ctx.heartbeat();
  return () => clearInterval(timer);
}

/** The message of anything thrown. */
export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message || err.name;
  return typeof err === 'string' ? err : JSON.stringify(err) ?? String(err);
}
