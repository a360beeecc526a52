import type { Context } from '@temporalio/activity';

/**
 * Heartbeat on a timer while an activity runs, so cancellation reaches it and a dead worker is noticed
 * within the heartbeat timeout even if the work itself never reports progress (with `details`, each beat
 * carries them: a streaming model call's newest deltas). Returns a stop function.
 */
export function keepAlive(ctx: Context, details?: () => unknown): () => void {
  const timeoutMs = ctx.info.heartbeatTimeoutMs;
  if (!timeoutMs) return () => undefined;
  const every = Math.max(100, Math.min(Math.floor(timeoutMs / 3), 10_000));
  const beat = () => ctx.heartbeat(details?.());
  const timer = setInterval(beat, every);
  beat();
  return () => clearInterval(timer);
}

/** The message of anything thrown. */
export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message || err.name;
  return typeof err === 'string' ? err : JSON.stringify(err) ?? String(err);
}
