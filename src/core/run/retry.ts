/** Retry decisions for model calls: whether to try again, after how long, and with which model. */
import type { ModelRef, RetrySpec } from './spec';

/** A failed attempt, reduced to what retry decisions need. */
export interface AttemptFailure {
  message: string;
  /** Error class, e.g. `rate_limit_error`, `overloaded_error`, `TimeoutFailure`, `StorageError`. */
  type?: string;
  retryable: boolean;
  /** Delay the provider asked for (Retry-After), if any. */
  retryAfterMs?: number;
  /** The provider said the prompt is larger than the model's context window. */
  contextOverflow?: boolean;
  /** The worker running the attempt was lost (no heartbeat): the model did not fail. */
  workerLost?: boolean;
}

/** Attempts of one call lost with their workers after which a loss counts as a failed attempt (a call that keeps losing its worker, e.g. one blocking the event loop). */
export const MAX_WORKER_LOSSES = 20;

/** Whether another attempt should follow the failed attempt number `attempt` (1-based). */
export function shouldRetry(failure: AttemptFailure, attempt: number, policy: RetrySpec): boolean {
  return failure.retryable && attempt < policy.maximumAttempts;
}

/** The wait before the next attempt, and what the provider asked for when that was capped. */
export interface RetryDelay {
  delayMs: number;
  /** The provider's Retry-After when it exceeded the policy's maximum interval (then `delayMs` is the maximum). */
  requestedDelayMs?: number;
}

/**
 * Delay before the attempt after `attempt` (1-based): exponential backoff capped at the maximum interval,
 * or what the provider asked for with Retry-After — capped at the maximum interval too, so a server
 * cannot park a run for hours; the cap is reported.
 */
export function retryDelay(policy: RetrySpec, attempt: number, retryAfterMs?: number): RetryDelay {
  if (retryAfterMs !== undefined && retryAfterMs >= 0) {
    const requested = Math.round(retryAfterMs);
    return requested > policy.maximumIntervalMs
      ? { delayMs: Math.round(policy.maximumIntervalMs), requestedDelayMs: requested }
      : { delayMs: requested };
  }
  const backoff = policy.initialIntervalMs * Math.pow(policy.backoffCoefficient, Math.max(0, attempt - 1));
  return { delayMs: Math.round(Math.min(backoff, policy.maximumIntervalMs)) };
}

/** The model an attempt uses: the primary first, then each fallback in turn after a retryable failure, cycling. */
export function modelForAttempt(models: readonly ModelRef[], attempt: number): ModelRef {
  if (models.length === 0) throw new Error('an agent needs at least one model');
  return models[(attempt - 1) % models.length] as ModelRef;
}

/** `provider/model`, for events and reports. */
export function modelLabel(m: ModelRef): string {
  return `${m.provider}/${m.model}`;
}
