/**
 * Anthropic Messages API through `@anthropic-ai/sdk`, streamed. The SDK's own retries are off: the
 * workflow owns retries, so every failure is classified into a {@link ProviderError} and thrown. The
 * API key and base URL come from the worker's environment (or the constructor), never from workflow
 * input or history.
 */
import type Anthropic from '@anthropic-ai/sdk';
import type * as AnthropicModule from '@anthropic-ai/sdk';
import type { ModelRequest, ModelResponse } from '../../core/output/native-output';
import { anthropicParams } from './anthropic-request';
import { AnthropicStreamAssembler, AnthropicStreamError } from './anthropic-stream';
import { apiFailure, missingApiKey, otherFailure, sdkConnectionFailure } from './errors';
import { sdkClientOptions, sdkEventStream, streamCall } from './stream-call';
import { loadPeer, PEERS } from '../optional-peer';
import type { ModelCallContext, ModelProvider, ProviderErrorKind } from './types';
import { ProviderError } from './types';

export { toAnthropicMessages, markCacheTail, anthropicParams } from './anthropic-request';
export { AnthropicStreamAssembler } from './anthropic-stream';
export { retryAfterMs } from './errors';

/** Options of {@link AnthropicProvider}. */
export interface AnthropicProviderOptions {
  /** Default: `ANTHROPIC_API_KEY` from the worker's environment, read at the first call. */
  apiKey?: string;
  /** Default: `ANTHROPIC_BASE_URL` from the worker's environment, or the public API. */
  baseURL?: string;
  /** Cache breakpoints on tools, system and the conversation tail. Default true. */
  promptCaching?: boolean;
  /** Time to wait for the response headers of one attempt, in ms. Default: the SDK's (10 minutes). */
  timeoutMs?: number;
}

const KIND_BY_TYPE: Readonly<Record<string, ProviderErrorKind>> = {
  invalid_request_error: 'invalid_request',
  authentication_error: 'authentication',
  permission_error: 'permission',
  billing_error: 'permission',
  not_found_error: 'not_found',
  request_too_large: 'request_too_large',
  rate_limit_error: 'rate_limit',
  overloaded_error: 'overloaded',
  api_error: 'server',
  timeout_error: 'timeout',
};

const PROVIDER = 'Anthropic';

/**
 * The SDK, loaded on first use (a model call, or classifying an error): a worker whose agents never call
 * Anthropic, and every CLI command, start without loading it (~0.1 s).
 */
function anthropicSdk(): typeof Anthropic {
  return loadPeer<typeof AnthropicModule>(PEERS.anthropic).default;
}

/**
 * Classify anything a Messages API call threw. HTTP 408/409/429/5xx/529, connection failures, timeouts
 * and error events after a 200 (mid-stream) are retryable; other 4xx are final, with the API's error
 * type and message.
 */
export function classifyAnthropicError(err: unknown): ProviderError {
  if (err instanceof ProviderError) return err;
  const Anthropic = anthropicSdk();
  const connection = sdkConnectionFailure(PROVIDER, err, Anthropic);
  if (connection) return connection;
  if (err instanceof Anthropic.APIError) {
    const body = err.error as { error?: { type?: unknown; message?: unknown }; request_id?: unknown } | undefined;
    const bodyType = typeof body?.error?.type === 'string' ? body.error.type : undefined;
    const type = bodyType ?? err.type ?? undefined;
    const message = typeof body?.error?.message === 'string' ? body.error.message : err.message;
    return apiFailure({
      provider: PROVIDER,
      ...(err.status !== undefined ? { status: err.status } : {}),
      ...(type ? { type, ...(KIND_BY_TYPE[type] ? { kindOfType: KIND_BY_TYPE[type] } : {}) } : {}),
      message,
      ...(err.headers ? { headers: err.headers } : {}),
      requestId: err.requestID ?? (typeof body?.request_id === 'string' ? body.request_id : null),
      cause: err,
    });
  }
  if (err instanceof AnthropicStreamError) {
    return apiFailure({
      provider: PROVIDER,
      ...(err.type ? { type: err.type, ...(KIND_BY_TYPE[err.type] ? { kindOfType: KIND_BY_TYPE[err.type] } : {}) } : {}),
      message: err.message,
      cause: err,
    });
  }
  return otherFailure(PROVIDER, err);
}

/** The Anthropic provider: register it on a worker as `anthropic` (the default) or under any name. */
export class AnthropicProvider implements ModelProvider {
  private client: Anthropic | undefined;

  constructor(private readonly options: AnthropicProviderOptions = {}) {}

  /** The API key (given, or the environment's), for the worker's redaction. */
  secrets(): readonly string[] {
    return [this.options.apiKey ?? process.env.ANTHROPIC_API_KEY ?? ''].filter(Boolean);
  }

  private sdk(): Anthropic {
    if (this.client) return this.client;
    const apiKey = this.options.apiKey ?? process.env.ANTHROPIC_API_KEY;
    if (!apiKey) throw missingApiKey('ANTHROPIC_API_KEY', 'authentication_error');
    const baseURL = this.options.baseURL ?? process.env.ANTHROPIC_BASE_URL;
    const Anthropic = anthropicSdk();
    this.client = new Anthropic(sdkClientOptions({ apiKey, baseURL, timeoutMs: this.options.timeoutMs }));
    return this.client;
  }

  async generate(request: ModelRequest, ctx: ModelCallContext): Promise<ModelResponse> {
    return streamCall(
      {
        label: PROVIDER,
        end: 'message_stop',
        open: (signal) => {
          const params = anthropicParams(request, { promptCaching: this.options.promptCaching ?? true });
          return sdkEventStream(PROVIDER, this.sdk().messages.create(params, { signal }));
        },
        assembler: new AnthropicStreamAssembler(ctx.onDelta, ctx.onToolCall),
        classify: classifyAnthropicError,
        model: request.model,
      },
      ctx,
    );
  }
}
