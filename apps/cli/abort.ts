/** Ctrl-C handling: waiting on a signal, and giving up on slow steps when the user interrupts. */
import { CliError } from './errors';

/** Exit code of an interrupted command (128 + SIGINT). */
export const INTERRUPTED_EXIT = 130;

/** The user interrupted the command (Ctrl-C / SIGTERM). */
export class InterruptedError extends CliError {
  constructor() {
    super('interrupted', INTERRUPTED_EXIT);
    this.name = 'InterruptedError';
  }
}

/** Resolves when `signal` aborts (never rejects). */
export function aborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
}

/** `promise`, or an {@link InterruptedError} as soon as `signal` aborts. A later rejection of `promise` is ignored. */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  promise.catch(() => undefined);
  return Promise.race([
    promise,
    aborted(signal).then(() => {
      throw new InterruptedError();
    }),
  ]);
}
