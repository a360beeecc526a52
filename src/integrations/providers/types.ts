import { DurableAgentError } from '../../core/run/errors';
import type { ModelRequest, ModelResponse } from '../../core/output/native-output';
import type { ModelDelta } from '../../core/events/stream';
import type { ToolUseBlock } from '../../core/messages/messages';

/** What a provider gets besides the request while a model activity runs. */
export interface ModelCallContext {
  /** Aborted when the run is cancelled or the activity times out: stop the HTTP stream. */
  signal: AbortSignal;
  /** Tell Temporal the call is alive (call it while streaming). */
  heartbeat(details?: unknown): void;
  /** 1-based attempt of this step's model call (the workflow owns retries). */
  attempt: number;
  /** 1-based step number. */
  step: number;
  /** `summary` when the call writes a compaction summary (no tools), else absent: an agent step. */
  purpose?: 'summary';
  /** Receives the answer as it streams (text, thinking, tool-call arguments), when someone listens. */
  onDelta?: (delta: ModelDelta) => void;
  /**
   * Receives each tool call as soon as its arguments are complete, while the rest of the answer may still
   * stream (streaming tool execution), when someone listens. `index` is the call's 0-based position among
   * the answer's tool calls; `call` is the block exactly as the final answer will hold it (provider id,
   * parsed arguments, `inputError`). Called at most once per call, in call order; never for a call cut
   * off mid-arguments.
   */
  onToolCall?: (index: number, call: ToolUseBlock) => void;
}

/** A model provider, registered on the worker by name. Credentials live inside it, never in history. */
export interface ModelProvider {
  /** One model call: the whole answer, streamed to `ctx.onDelta` as it comes when given. Rejects with a `ProviderError`. */
  generate(request: ModelRequest, ctx: ModelCallContext): Promise<ModelResponse>;
  /**
   * True when the provider honours `request.output` (native structured output: the answer's text is JSON
   * matching the schema). Agents with an output schema on such providers answer that way by default;
   * on the others, through a `final_answer` tool.
   */
  readonly nativeOutput?: boolean;
  /**
   * The credential values the provider holds (API keys, header values), so the worker can redact them
   * from everything leaving an activity (an API that echoes the key in an error, say). Optional: a
   * provider without it is covered by the worker's environment and the common key shapes only.
   */
  secrets?(): readonly string[];
}

/** Classes of provider failure. */
export type ProviderErrorKind =
  | 'rate_limit'
  | 'overloaded'
  | 'server'
  | 'connection'
  | 'timeout'
  | 'invalid_request'
  | 'authentication'
  | 'permission'
  | 'not_found'
  | 'request_too_large'
  /** The prompt is larger than the model's context window ("prompt is too long"): compaction may help. */
  | 'context_overflow'
  /** The server answered, but not in the protocol asked for (e.g. JSON instead of an event stream). */
  | 'invalid_response'
  | 'unknown';

/** Options of a {@link ProviderError}. */
export interface ProviderErrorOptions {
  kind: ProviderErrorKind;
  retryable: boolean;
  /** HTTP status, when there was one. */
  status?: number;
  /** The provider's own error type, e.g. `overloaded_error`. */
  type?: string;
  /** Delay the provider asked for before retrying (Retry-After). */
  retryAfterMs?: number;
  cause?: unknown;
}

/**
 * A classified provider failure (code `provider_error`): the model activity turns it into a retryable or
 * final Temporal failure.
 */
export class ProviderError extends DurableAgentError {
  readonly kind: ProviderErrorKind;
  readonly retryable: boolean;
  readonly status?: number;
  readonly type?: string;
  readonly retryAfterMs?: number;

  constructor(message: string, options: ProviderErrorOptions) {
    super('provider_error', message, options.cause !== undefined ? { cause: options.cause } : undefined);
    this.kind = options.kind;
    this.retryable = options.retryable;
    if (options.status !== undefined) this.status = options.status;
    if (options.type !== undefined) this.type = options.type;
    if (options.retryAfterMs !== undefined) this.retryAfterMs = options.retryAfterMs;
  }
}
