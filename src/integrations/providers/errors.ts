/**
 * Classifying HTTP model API failures, shared by the providers. The rule is the one the SDKs use for
 * their own retries (which are off: the workflow owns retries): 408, 409, 429 and 5xx (529 included)
 * are transient, every other 4xx is final, and a server's `x-should-retry` header overrides both.
 */
import type { ProviderErrorKind } from './types';
import { ProviderError } from './types';

/** Parse a Retry-After header (seconds or HTTP date) or retry-after-ms into milliseconds. */
export function retryAfterMs(headers: Headers | undefined, now = Date.now()): number | undefined {
  if (!headers) return undefined;
  const ms = headers.get('retry-after-ms');
  if (ms && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const value = headers.get('retry-after');
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isFinite(date) ? Math.max(0, date - now) : undefined;
}

const KIND_BY_STATUS: Readonly<Record<number, ProviderErrorKind>> = {
  400: 'invalid_request',
  401: 'authentication',
  403: 'permission',
  404: 'not_found',
  408: 'timeout',
  409: 'server',
  413: 'request_too_large',
  429: 'rate_limit',
  529: 'overloaded',
};

/** Kinds that mean the request itself is wrong: retrying the same request cannot help. */
const FINAL_KINDS: ReadonlySet<ProviderErrorKind> = new Set([
  'invalid_request',
  'authentication',
  'permission',
  'not_found',
  'request_too_large',
  'context_overflow',
]);

/**
 * How providers say a prompt does not fit the model's context window: Anthropic ("prompt is too long:
 * 215013 tokens > 200000 maximum"), OpenAI and vLLM ("maximum context length is …",
 * `context_length_exceeded`), llama.cpp ("exceeds the available context size", `exceed_context_size_error`).
 */
const CONTEXT_OVERFLOW =
  /prompt is too long|maximum context length|context[_ ]length[_ ]exceeded|exceeds? the (available )?context|exceed_context_size|context window|too many (input )?tokens/i;

/** Whether a failure says the prompt is larger than the model's context window. */
export function isContextOverflow(status: number | undefined, type: string | undefined, message: string): boolean {
  if (status !== undefined && status !== 400 && status !== 413) return false;
  return CONTEXT_OVERFLOW.test(type ?? '') || CONTEXT_OVERFLOW.test(message);
}

/** The kind of a failure with this HTTP status. */
export function kindForStatus(status: number): ProviderErrorKind {
  const known = KIND_BY_STATUS[status];
  if (known) return known;
  if (status >= 500) return 'server';
  if (status >= 400) return 'invalid_request';
  return 'unknown';
}

/** Whether a response with this status is worth another attempt: 408, 409, 429 and 5xx. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/** The server's explicit retry advice (`x-should-retry: true|false`), if it gave one. */
export function shouldRetryHeader(headers: Headers | undefined): boolean | undefined {
  const value = headers?.get('x-should-retry');
  return value === 'true' ? true : value === 'false' ? false : undefined;
}

/** What an API failure looked like on the wire. */
export interface ApiFailure {
  /** Provider name for the message, e.g. `Anthropic`. */
  provider: string;
  /** HTTP status; undefined for an error event received after a 200 (mid-stream). */
  status?: number;
  /** The provider's error type or code, e.g. `overloaded_error`, `invalid_api_key`. */
  type?: string;
  /** The kind the provider's error type means, when it is a known type. */
  kindOfType?: ProviderErrorKind;
  /** The provider's human-readable message. */
  message: string;
  headers?: Headers;
  requestId?: string | null;
  /** Force the retry decision (provider-specific knowledge, e.g. an exhausted quota). */
  retryable?: boolean;
  cause: unknown;
}

/**
 * A classified API failure. With a status, the status decides (unless the server said otherwise with
 * `x-should-retry`); without one (an error event in a stream that had started), it is transient unless
 * its type says the request itself is wrong.
 */
export function apiFailure(f: ApiFailure): ProviderError {
  const kind: ProviderErrorKind = isContextOverflow(f.status, f.type, f.message)
    ? 'context_overflow'
    : (f.kindOfType ?? (f.status !== undefined ? kindForStatus(f.status) : 'server'));
  const retryable =
    f.retryable ?? shouldRetryHeader(f.headers) ?? (f.status !== undefined ? isRetryableStatus(f.status) : !FINAL_KINDS.has(kind));
  const after = retryAfterMs(f.headers);
  const label = `${f.provider} ${f.type ?? kind}${f.status !== undefined ? ` (${f.status})` : ''}`;
  const request = f.requestId ? ` [request id ${f.requestId}]` : '';
  return new ProviderError(`${label}: ${f.message}${request}`, {
    kind,
    retryable,
    ...(f.status !== undefined ? { status: f.status } : {}),
    ...(f.type ? { type: f.type } : {}),
    ...(after !== undefined && retryable ? { retryAfterMs: after } : {}),
    cause: f.cause,
  });
}

const SOCKET_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
]);

/** True for the errors fetch throws when a connection drops while the body is being read. */
export function isConnectionDrop(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && SOCKET_CODES.has(code)) return true;
    if (e instanceof TypeError && e.message === 'terminated') return true;
  }
  return false;
}

/** A failure that is not an API error: a dropped connection, or something unexpected (both transient). */
export function otherFailure(provider: string, err: unknown): ProviderError {
  if (err instanceof ProviderError) return err;
  const message = err instanceof Error ? err.message : String(err);
  if (isConnectionDrop(err)) {
    return new ProviderError(`${provider} connection dropped: ${message}`, { kind: 'connection', retryable: true, cause: err });
  }
  return new ProviderError(`${provider} call failed: ${message}`, { kind: 'unknown', retryable: true, cause: err });
}

/** No API key was given and the worker's environment has none in `variable` (final: the worker must be configured). */
export function missingApiKey(variable: string, type: string): ProviderError {
  return new ProviderError(`${variable} is not set in the worker's environment`, { kind: 'authentication', retryable: false, type });
}

/** The stream closed before the provider said the response was complete. */
export function truncatedStream(provider: string, what: string): ProviderError {
  return new ProviderError(`${provider} stream ended before ${what}: the connection was cut`, { kind: 'connection', retryable: true });
}

/** How much of a body that is not an event stream an error quotes, in characters. */
export const BODY_PREVIEW_CHARS = 300;

/**
 * Fail when a streaming request was answered with something other than a server-sent event stream
 * (e.g. a proxy that buffers and answers HTTP 200 with a JSON body): the SDKs would parse it as an
 * empty stream, and the failure would read as a cut connection. A response without a content type is
 * let through (the stream's own checks still apply).
 *
 * Not retryable: a server or proxy that does not stream this request will not stream it on the next
 * attempt either, and each attempt may be billed; the message says what came back so it can be fixed.
 *
 * @throws ProviderError of kind `invalid_response`, type `not_event_stream`, non-retryable.
 */
export async function requireEventStream(provider: string, response: Response): Promise<void> {
  const contentType = response.headers.get('content-type');
  if (!contentType || /^\s*text\/event-stream\b/i.test(contentType)) return;
  const media = contentType.split(';')[0]?.trim() || contentType;
  const body = await bodyPreview(response, BODY_PREVIEW_CHARS);
  throw new ProviderError(
    `${provider} answered HTTP ${response.status} without streaming: expected a server-sent event stream, received ${media}: ${body || '(empty body)'}`,
    { kind: 'invalid_response', retryable: false, status: response.status, type: 'not_event_stream' },
  );
}

/** The first `max` characters of a response body, reading no more of it than needed. */
async function bodyPreview(response: Response, max: number): Promise<string> {
  const reader = response.body?.getReader();
  if (!reader) return '';
  const decoder = new TextDecoder();
  let text = '';
  let more = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
      if (text.length > max) {
        more = true;
        break;
      }
    }
  } catch {
    // Whatever was read is still worth quoting.
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return text.length > max || more ? `${text.slice(0, max)}…` : text;
}

/** The connection error classes of the SDKs generated by Stainless (Anthropic's, OpenAI's). */
export interface SdkConnectionErrors {
  APIConnectionTimeoutError: abstract new (...args: never[]) => Error;
  APIConnectionError: abstract new (...args: never[]) => Error;
}

/**
 * A timed-out or failed connection the SDK reported, classified (both retryable); undefined for any
 * other error. Check it before the SDK's `APIError`, of which both are subclasses.
 */
export function sdkConnectionFailure(provider: string, err: unknown, sdk: SdkConnectionErrors): ProviderError | undefined {
  if (err instanceof sdk.APIConnectionTimeoutError) {
    return new ProviderError(`${provider} request timed out: ${err.message}`, { kind: 'timeout', retryable: true, cause: err });
  }
  if (err instanceof sdk.APIConnectionError) {
    return new ProviderError(`${provider} connection failed: ${err.message}`, { kind: 'connection', retryable: true, cause: err });
  }
  return undefined;
}
