/**
 * Classifying what an AI SDK language model throws (or sends as an `error` stream part) into a
 * {@link ProviderError}, by the rules the other providers follow (providers/errors.ts): an
 * `APICallError` by its status, the provider's own `isRetryable` and the server's `x-should-retry` and
 * Retry-After headers; a connection failure is retryable; a request the SDK refuses (bad prompt, missing
 * key, unknown model, unsupported feature) is final; an error part after the stream started is
 * transient unless its type says the request itself is wrong.
 */
import type * as AiSdkProviderModule from '@ai-sdk/provider' with { 'resolution-mode': 'import' };
import type { APICallError } from '@ai-sdk/provider' with { 'resolution-mode': 'import' };
import { loadPeer, PEERS } from '../optional-peer';
import { apiFailure, otherFailure } from './errors';
import type { ProviderErrorKind } from './types';
import { ProviderError } from './types';

/** Error types and codes of the common model APIs (in bodies and error chunks) and what they mean. */
const KIND_BY_TYPE: Readonly<Record<string, ProviderErrorKind>> = {
  invalid_api_key: 'authentication',
  authentication_error: 'authentication',
  permission_error: 'permission',
  model_not_found: 'not_found',
  not_found_error: 'not_found',
  invalid_request_error: 'invalid_request',
  rate_limit_exceeded: 'rate_limit',
  rate_limit_error: 'rate_limit',
  insufficient_quota: 'rate_limit',
  server_error: 'server',
  api_error: 'server',
  overloaded_error: 'overloaded',
};

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const text = (v: unknown): string | undefined => (typeof v === 'string' && v ? v : undefined);

/** What an error body says: `{ error: { message, type, code } }`, `{ message, type, code }`, or nothing. */
function errorBody(data: unknown): { message?: string; type?: string; code?: string } {
  const e = isObject(data) && isObject(data.error) ? data.error : data;
  if (!isObject(e)) return {};
  const code = text(e.code);
  const type = text(e.type);
  const message = text(e.message);
  return { ...(message ? { message } : {}), ...(type ? { type } : {}), ...(code ? { code } : {}) };
}

/** The error body an APICallError carries: its parsed `data`, else its raw `responseBody` if it is JSON. */
function bodyOf(err: APICallError): { message?: string; type?: string; code?: string } {
  if (err.data !== undefined) return errorBody(err.data);
  if (!err.responseBody) return {};
  try {
    return errorBody(JSON.parse(err.responseBody));
  } catch {
    return {};
  }
}

function isAbortError(err: unknown): err is Error {
  return err instanceof Error && (err.name === 'AbortError' || err.name === 'ResponseAborted');
}

/**
 * Classify anything an AI SDK model call threw, or the `error` of an `error` stream part.
 *
 * @param provider name in the message, e.g. `openai.chat`.
 */
export function classifyAiSdkError(err: unknown, provider: string): ProviderError {
  if (err instanceof ProviderError) return err;
  // Loaded on the first error: the AI SDK's error classes (their `isInstance` checks work across copies).
  const {
    APICallError,
    InvalidArgumentError,
    InvalidPromptError,
    LoadAPIKeyError,
    LoadSettingError,
    NoSuchModelError,
    UnsupportedFunctionalityError,
  } = loadPeer<typeof AiSdkProviderModule>(PEERS.aiSdk);
  if (APICallError.isInstance(err)) return apiCallFailure(err, provider);
  if (NoSuchModelError.isInstance(err)) {
    return new ProviderError(`${provider}: ${err.message}`, { kind: 'not_found', retryable: false, type: 'model_not_found', cause: err });
  }
  if (LoadAPIKeyError.isInstance(err) || LoadSettingError.isInstance(err)) {
    return new ProviderError(`${provider}: ${err.message}`, { kind: 'authentication', retryable: false, type: err.name, cause: err });
  }
  if (InvalidPromptError.isInstance(err) || InvalidArgumentError.isInstance(err) || UnsupportedFunctionalityError.isInstance(err)) {
    return new ProviderError(`${provider} refused the request: ${err.message}`, {
      kind: 'invalid_request',
      retryable: false,
      type: err.name,
      cause: err,
    });
  }
  if (err instanceof Error && err.name === 'TimeoutError') {
    return new ProviderError(`${provider} request timed out: ${err.message}`, { kind: 'timeout', retryable: true, cause: err });
  }
  if (isAbortError(err)) {
    // Not our signal (the caller checks it first): a fetch the provider aborted itself, e.g. its own timeout.
    return new ProviderError(`${provider} request was aborted: ${err.message}`, { kind: 'timeout', retryable: true, cause: err });
  }
  if (err instanceof Error) return otherFailure(provider, err);
  // An error stream part: usually the API's error object, sent after the stream started.
  const body = errorBody(err);
  if (body.message || body.type || body.code) {
    const type = body.code ?? body.type;
    const kindOfType = (body.code ? KIND_BY_TYPE[body.code] : undefined) ?? (body.type ? KIND_BY_TYPE[body.type] : undefined);
    return apiFailure({
      provider,
      ...(type ? { type } : {}),
      ...(kindOfType ? { kindOfType } : {}),
      message: body.message ?? 'error in the response stream',
      ...(body.code === 'insufficient_quota' ? { retryable: false } : {}),
      cause: err,
    });
  }
  return otherFailure(provider, new Error(typeof err === 'string' ? err : JSON.stringify(err)));
}

function apiCallFailure(err: APICallError, provider: string): ProviderError {
  const headers = new Headers(err.responseHeaders ?? {});
  if (err.statusCode === undefined) {
    // No response: the SDK could not reach the server ("Cannot connect to API").
    return new ProviderError(`${provider} connection failed: ${err.message}`, {
      kind: 'connection',
      retryable: err.isRetryable,
      cause: err,
    });
  }
  if (err.statusCode < 400) {
    // The response had started ("Failed to process successful response"): the connection dropped while
    // the body was read, or the body broke off. The SDK calls that final (a 2xx is not retryable to it);
    // it is as transient as a dropped stream.
    const detail = err.cause instanceof Error ? `${err.message}: ${err.cause.message}` : err.message;
    return otherFailure(provider, Object.assign(new Error(detail, { cause: err.cause }), { name: err.name }));
  }
  const body = bodyOf(err);
  const type = body.code ?? body.type;
  const kindOfType = (body.code ? KIND_BY_TYPE[body.code] : undefined) ?? (body.type ? KIND_BY_TYPE[body.type] : undefined);
  const header = headers.get('x-should-retry');
  // The provider package decided (its `isRetryable`), unless the server said otherwise; no amount of
  // waiting refills a quota.
  const retryable = body.code === 'insufficient_quota' ? false : header === 'true' ? true : header === 'false' ? false : err.isRetryable;
  return apiFailure({
    provider,
    status: err.statusCode,
    ...(type ? { type } : {}),
    ...(kindOfType ? { kindOfType } : {}),
    message: body.message ?? err.message,
    headers,
    retryable,
    cause: err,
  });
}
