/**
 * Redaction at the exit of every agent activity: a thrown failure (message, stack trace, details, other
 * own fields, its cause chain) loses every secret the worker holds and every common credential shape; a
 * result loses every known secret value. Applied to the activity functions themselves, inside metrics and
 * tracing, so history, events, results, spans and logs only ever see the redacted form.
 */
import type { AgentActivities } from '../core/run/contract';
import { Redactor } from '../core/messages/redact';

/** The worker's redactor as it stands now (its secrets may grow as providers read their keys). */
export type RedactorSource = () => Redactor;

const NOTHING = new Redactor();
/** A source for activities made without a worker's secrets (tests): redacts nothing. */
export const NO_SECRETS: RedactorSource = () => NOTHING;

/** Set `target[key]` to `value` if it differs (read-only fields are left as they are). */
function replace(target: Record<string, unknown>, key: string, value: unknown): void {
  if (target[key] === value) return;
  try {
    target[key] = value;
  } catch {
    // a frozen or read-only field: the fields Temporal sends (message, stack, details, cause) are writable
  }
}

/**
 * `err` with secrets redacted: strings and plain values redacted (shapes included), errors redacted in
 * place (so their class, e.g. `ApplicationFailure` or `CancelledFailure`, and what Temporal reads of
 * them stay), through `cause`.
 */
export function redactError(err: unknown, redactor: Redactor, seen: WeakSet<object> = new WeakSet()): unknown {
  if (typeof err === 'string') return redactor.text(err, true);
  if (!(err instanceof Error)) return redactor.value(err, true);
  if (seen.has(err)) return err;
  seen.add(err);
  const e = err as Error & Record<string, unknown>;
  replace(e, 'message', redactor.text(e.message, true));
  if (typeof e.stack === 'string') replace(e, 'stack', redactor.text(e.stack, true));
  for (const key of Object.keys(e)) {
    if (key === 'message' || key === 'stack' || key === 'cause') continue;
    const v = e[key];
    replace(e, key, v instanceof Error ? redactError(v, redactor, seen) : redactor.value(v, true));
  }
  if (e.cause !== undefined) replace(e, 'cause', redactError(e.cause, redactor, seen));
  return err;
}

/**
 * `activities` with every result and failure redacted by the redactor `current()` gives (asked at each
 * exit: a worker's secrets may grow as providers read their keys).
 */
export function withRedaction(activities: AgentActivities, current: RedactorSource): AgentActivities {
  const wrapped: Record<string, (input: never) => Promise<unknown>> = {};
  for (const [name, fn] of Object.entries(activities) as [string, (input: never) => Promise<unknown>][]) {
    wrapped[name] = async (input: never) => {
      let out: unknown;
      try {
        out = await fn(input);
      } catch (err) {
        throw redactError(err, current());
      }
      return current().value(out);
    };
  }
  return wrapped as unknown as AgentActivities;
}
