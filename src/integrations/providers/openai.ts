/**
 * OpenAI-compatible Chat Completions through the `openai` package, streamed: OpenAI itself, and local
 * servers (Ollama, vLLM, llama.cpp) through a base URL. The SDK's own retries are off: the workflow owns
 * retries, so every failure is classified into a {@link ProviderError} and thrown. The API key and base
 * URL come from the worker's environment (or the constructor), never from workflow input or history.
 */
import type OpenAI from 'openai';
import type * as OpenAIModule from 'openai';
import type { ModelRequest, ModelResponse } from '../../core/output/native-output';
import { apiFailure, missingApiKey, otherFailure, sdkConnectionFailure } from './errors';
import { loadPeer, PEERS } from '../optional-peer';
import type { MaxTokensField, OpenAIRequestOptions } from './openai-request';
import { openAIParams, validateRequestOptions } from './openai-request';
import { OpenAIStreamAssembler } from './openai-stream';
import { sdkClientOptions, sdkEventStream, streamCall } from './stream-call';
import type { ModelCallContext, ModelProvider, ProviderErrorKind } from './types';
import { ProviderError } from './types';

export { toOpenAIMessages, openAIParams } from './openai-request';
export type { MaxTokensField, OpenAIRequestOptions } from './openai-request';
export { OpenAIStreamAssembler } from './openai-stream';

/** Key sent to servers that need none (local servers), when no key is configured. */
export const PLACEHOLDER_API_KEY = 'no-key';

/** Options of {@link OpenAIProvider}. */
export interface OpenAIProviderOptions {
  /**
   * Default: `OPENAI_API_KEY` from the worker's environment, read at the first call (not sent to a
   * `baseURL` given here unless it is OpenAI's). Servers that need no key (Ollama, vLLM, llama.cpp) get
   * a placeholder when a base URL is set and no key is.
   */
  apiKey?: string;
  /** Default: `OPENAI_BASE_URL` from the worker's environment, or the OpenAI API. Include `/v1`. */
  baseURL?: string;
  /** Name in error messages. Default `OpenAI`. */
  label?: string;
  /**
   * Field for the output token cap. Default: `max_completion_tokens` for the OpenAI API (the o-series
   * accept nothing else), `max_tokens` for other base URLs (what local servers understand).
   */
  maxTokensField?: MaxTokensField;
  /** Time to wait for the response headers of one attempt, in ms. Default: the SDK's (10 minutes). */
  timeoutMs?: number;
  /**
   * Request fields sent with every call: `temperature` (default when the agent sets none),
   * `parallelToolCalls`, `stop`, `includeUsage`. What small local models need, without a proxy.
   */
  request?: OpenAIRequestOptions;
  /** Request fields per model id, over `request` (field by field), so each agent's model gets its own. */
  models?: Record<string, OpenAIRequestOptions>;
}

const KIND_BY_CODE: Readonly<Record<string, ProviderErrorKind>> = {
  invalid_api_key: 'authentication',
  authentication_error: 'authentication',
  permission_error: 'permission',
  model_not_found: 'not_found',
  not_found_error: 'not_found',
  context_length_exceeded: 'invalid_request',
  invalid_request_error: 'invalid_request',
  rate_limit_exceeded: 'rate_limit',
  insufficient_quota: 'rate_limit',
  server_error: 'server',
  overloaded_error: 'overloaded',
};

/**
 * The SDK, loaded on first use (a model call, or classifying an error): a worker whose agents never call
 * an OpenAI-compatible server, and every CLI command, start without loading it.
 */
function openAISdk(): typeof OpenAI {
  return loadPeer<typeof OpenAIModule>(PEERS.openai).default;
}

/** True for the OpenAI API itself (no base URL, or its host). */
function isOpenAI(baseURL: string | undefined): boolean {
  if (!baseURL) return true;
  try {
    return new URL(baseURL).hostname === 'api.openai.com';
  } catch {
    return false;
  }
}

/**
 * Classify anything a Chat Completions call threw. HTTP 408/409/429/5xx, connection failures, timeouts
 * and error chunks after a 200 (mid-stream) are retryable, except an exhausted quota; other 4xx are
 * final, with the server's error code and message.
 */
export function classifyOpenAIError(err: unknown, provider = 'OpenAI'): ProviderError {
  if (err instanceof ProviderError) return err;
  const OpenAI = openAISdk();
  const connection = sdkConnectionFailure(provider, err, OpenAI);
  if (connection) return connection;
  if (err instanceof OpenAI.APIError) {
    const body = (err.error ?? {}) as { message?: unknown; type?: unknown; code?: unknown };
    // vLLM puts the HTTP status of an error chunk in `code`.
    const numericCode = typeof body.code === 'number' ? body.code : undefined;
    const status = err.status ?? numericCode;
    const code = typeof body.code === 'string' && body.code ? body.code : undefined;
    const type = code ?? (typeof body.type === 'string' && body.type ? body.type : undefined);
    const kindOfType = (code ? KIND_BY_CODE[code] : undefined) ?? (typeof body.type === 'string' ? KIND_BY_CODE[body.type] : undefined);
    const message = typeof body.message === 'string' && body.message ? body.message : err.message;
    return apiFailure({
      provider,
      ...(status !== undefined ? { status } : {}),
      ...(type ? { type } : {}),
      ...(kindOfType ? { kindOfType } : {}),
      message,
      ...(err.headers ? { headers: err.headers } : {}),
      requestId: err.requestID,
      // No amount of waiting refills a quota.
      ...(code === 'insufficient_quota' ? { retryable: false } : {}),
      cause: err,
    });
  }
  return otherFailure(provider, err);
}

/** The OpenAI-compatible provider: register it as `openai` (the default), or e.g. `ollama` with a base URL. */
export class OpenAIProvider implements ModelProvider {
  /** Structured output is sent as `response_format: json_schema` (OpenAI, llama.cpp, vLLM, Ollama). */
  readonly nativeOutput = true;
  private client: OpenAI | undefined;
  private maxTokensField: MaxTokensField = 'max_completion_tokens';
  private readonly label: string;

  /**
   * @throws Error when `request` or a `models` entry holds a bad field (named in the message).
   */
  constructor(private readonly options: OpenAIProviderOptions = {}) {
    this.label = options.label ?? 'OpenAI';
    if (options.request) validateRequestOptions(options.request, 'OpenAIProvider options.request');
    for (const [model, fields] of Object.entries(options.models ?? {})) {
      validateRequestOptions(fields, `OpenAIProvider options.models[${JSON.stringify(model)}]`);
    }
  }

  /** The request fields for `model`: the provider's, overridden field by field by the model's. */
  requestOptions(model: string): OpenAIRequestOptions {
    const perModel = this.options.models && Object.hasOwn(this.options.models, model) ? this.options.models[model] : undefined;
    return { ...this.options.request, ...perModel };
  }

  /** The API key the provider sends (given, or the environment's; never the placeholder), for the worker's redaction. */
  secrets(): readonly string[] {
    const baseURL = this.options.baseURL ?? process.env.OPENAI_BASE_URL;
    const envKey = this.options.baseURL && !isOpenAI(baseURL) ? undefined : process.env.OPENAI_API_KEY;
    return [this.options.apiKey ?? envKey ?? ''].filter((k) => k && k !== PLACEHOLDER_API_KEY);
  }

  private sdk(): OpenAI {
    if (this.client) return this.client;
    const baseURL = this.options.baseURL ?? process.env.OPENAI_BASE_URL;
    const official = isOpenAI(baseURL);
    // The environment's key goes to the environment's server (or OpenAI), never to a base URL given here.
    const envKey = this.options.baseURL && !official ? undefined : process.env.OPENAI_API_KEY;
    const apiKey = this.options.apiKey ?? envKey ?? (official ? undefined : PLACEHOLDER_API_KEY);
    if (!apiKey) throw missingApiKey('OPENAI_API_KEY', 'invalid_api_key');
    this.maxTokensField = this.options.maxTokensField ?? (official ? 'max_completion_tokens' : 'max_tokens');
    const OpenAI = openAISdk();
    this.client = new OpenAI(sdkClientOptions({ apiKey, baseURL, timeoutMs: this.options.timeoutMs }));
    return this.client;
  }

  async generate(request: ModelRequest, ctx: ModelCallContext): Promise<ModelResponse> {
    return streamCall(
      {
        label: this.label,
        end: 'a finish_reason',
        open: (signal) => {
          const sdk = this.sdk();
          const params = openAIParams(request, { ...this.requestOptions(request.model), maxTokensField: this.maxTokensField });
          return sdkEventStream(this.label, sdk.chat.completions.create(params, { signal }));
        },
        assembler: new OpenAIStreamAssembler(ctx.onDelta, ctx.onToolCall),
        classify: (err) => classifyOpenAIError(err, this.label),
        model: request.model,
      },
      ctx,
    );
  }
}
