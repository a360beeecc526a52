/**
 * The one root of every error durable-agent throws. Each error has a stable `code`; checks work across
 * two copies of the package (two versions installed side by side, or a bundler that duplicated it):
 * `instanceof` is decided by a brand registered with `Symbol.for`, not by the class identity.
 */

const BRAND: unique symbol = Symbol.for('durable-agent.error') as never;

/** Codes of the errors durable-agent throws. */
export type DurableAgentErrorCode =
  /** A tool, agent or provider definition is invalid (thrown at definition or worker creation). */
  | 'invalid_definition'
  /** A run's input, a decision or another request is malformed. */
  | 'invalid_input'
  /** A tool failed its call (thrown by tool code: {@link ToolError}). */
  | 'tool_error'
  /** A model provider failed (classified: retryable or not). */
  | 'provider_error'
  /** The blob store could not read or write what a run needs. */
  | 'storage_error'
  /** The run refused an approval decision (unknown call, not allowed, already decided, expired). */
  | 'approval_refused'
  /** The run refused a message (malformed, inbox full, the run is ending). */
  | 'message_refused'
  /** No agent of that name on this worker. */
  | 'unknown_agent'
  /** A run with that workflow id does not exist. */
  | 'run_not_found'
  /** The run has already ended: it takes no more messages, decisions or cancellation. */
  | 'run_ended'
  /** No worker polls the run's task queue, and what was asked needs one. */
  | 'no_worker'
  /** A schedule with that id does not exist. */
  | 'schedule_not_found'
  /** A worker or client setting cannot be used (a store URL, encryption keys). */
  | 'invalid_config'
  /** A feature needs an optional package that is not installed (the message names it and the install command). */
  | 'missing_peer';

/**
 * Base class of durable-agent's errors. Check with `instanceof DurableAgentError` (or a subclass), or
 * with {@link isDurableAgentError} to also test the code.
 *
 * @example
 * ```ts
 * try { await run.decide(d); } catch (err) {
 *   if (err instanceof ApprovalRefusedError) console.log('refused:', err.message);
 * }
 * ```
 */
export class DurableAgentError extends Error {
  /** What kind of failure this is; stable across versions. */
  readonly code: DurableAgentErrorCode;

  constructor(code: DurableAgentErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options?.cause !== undefined ? { cause: options.cause } : undefined);
    this.code = code;
    this.name = new.target.name;
    Object.defineProperty(this, BRAND, { value: brandsOf(new.target), enumerable: false });
  }

  /** `instanceof` by brand, so an error from another copy of the package still matches its class. */
  static override [Symbol.hasInstance](value: unknown): boolean {
    if (typeof value !== 'object' || value === null) return false;
    const brands = (value as { [BRAND]?: unknown })[BRAND];
    if (!Array.isArray(brands)) return false;
    // `this` is the class on the right of `instanceof`: DurableAgentError or a subclass.
    return brands.includes(this.name);
  }
}

/** The class names of `ctor` and its ancestors up to DurableAgentError. */
function brandsOf(ctor: abstract new (...args: never[]) => unknown): string[] {
  const names: string[] = [];
  for (let c: unknown = ctor; typeof c === 'function' && c !== Error; c = Object.getPrototypeOf(c)) {
    names.push((c as { name: string }).name);
    if (c === DurableAgentError) break;
  }
  return names;
}

/** True when `err` is a durable-agent error (from any copy of the package), with `code` if given. */
export function isDurableAgentError(err: unknown, code?: DurableAgentErrorCode): err is DurableAgentError {
  return err instanceof DurableAgentError && (code === undefined || err.code === code);
}

/** A definition (tool, agent, provider, worker option) is invalid. The message names the field and the fix. */
export class DefinitionError extends DurableAgentError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('invalid_definition', message, options);
  }
}
