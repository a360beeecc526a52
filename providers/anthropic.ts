/**
 * Anthropic Messages API through `@anthropic-ai/sdk`, streamed. The SDK's own retries are off: the
 * workflow owns retries. The API key comes from the worker's environment (or constructor), never from
 * workflow input or history.
 */
import Anthropic from '@anthropic-ai/sdk';
import type { JsonObject } from '../core/json';
import type { AssistantContent, Message } from '../core/messages';
import type { ModelRequest, ModelResponse, StopReason } from '../core/model';
import type { ModelCallContext, ModelProvider, ProviderErrorKind } from './types';
import { ProviderError } from './types';

/** Options of {@link AnthropicProvider}. */
export interface AnthropicProviderOptions {
  /** Default: `ANTHROPIC_API_KEY` from the worker's environment, read at call time. */
  apiKey?: string;
  /** Default: `ANTHROPIC_BASE_URL` or the public API. */
  baseURL?: string;
}

type Params = Anthropic.MessageCreateParamsStreaming;

/** Our messages in the Messages API's shape. */
export function toAnthropicMessages(messages: readonly Message[]): Anthropic.MessageParam[] {
  return messages.map((m): Anthropic.MessageParam => {
    if (m.role === 'user') {
      return {
        role: 'user',
        content: m.content.map((b): Anthropic.ContentBlockParam =>
          b.type === 'text'
            ? { type: 'text', text: b.text }
            : {
                type: 'tool_result',
                tool_use_id: b.toolUseId,
                content: b.output.type === 'text' ? b.output.text : b.output.preview,
                ...(b.isError ? { is_error: true } : {}),
              },
        ),
      };
    }
    return {
      role: 'assistant',
      content: m.content.map((b): Anthropic.ContentBlockParam => {
        switch (b.type) {
          case 'text':
            return { type: 'text', text: b.text };
          case 'thinking':
            return { type: 'thinking', thinking: b.thinking, signature: b.signature };
          case 'redacted_thinking':
            return { type: 'redacted_thinking', data: b.data };
          case 'tool_use':
            return { type: 'tool_use', id: b.id, name: b.name, input: b.input };
        }
      }),
    };
  });
}

function stopReason(reason: string | null): StopReason {
  switch (reason) {
    case 'end_turn':
    case 'tool_use':
    case 'max_tokens':
    case 'stop_sequence':
    case 'refusal':
    case 'pause_turn':
      return reason;
    default:
      return 'other';
  }
}

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

const KIND_BY_STATUS: Record<number, ProviderErrorKind> = {
  400: 'invalid_request',
  401: 'authentication',
  403: 'permission',
  404: 'not_found',
  408: 'timeout',
  413: 'request_too_large',
  429: 'rate_limit',
  529: 'overloaded',
};

const KIND_BY_TYPE: Record<string, ProviderErrorKind> = {
  invalid_request_error: 'invalid_request',
  authentication_error: 'authentication',
  permission_error: 'permission',
  not_found_error: 'not_found',
  request_too_large: 'request_too_large',
  rate_limit_error: 'rate_limit',
  overloaded_error: 'overloaded',
  api_error: 'server',
  timeout_error: 'timeout',
};

const RETRYABLE: ReadonlySet<ProviderErrorKind> = new Set(['rate_limit', 'overloaded', 'server', 'connection', 'timeout', 'unknown']);

/** Classify anything the SDK threw. */
export function classifyAnthropicError(err: unknown): ProviderError {
  if (err instanceof ProviderError) return err;
  if (err instanceof Anthropic.APIConnectionTimeoutError) {
    return new ProviderError(`Anthropic request timed out: ${err.message}`, { kind: 'timeout', retryable: true, cause: err });
  }
  if (err instanceof Anthropic.APIConnectionError) {
    return new ProviderError(`Anthropic connection failed: ${err.message}`, { kind: 'connection', retryable: true, cause: err });
  }
  if (err instanceof Anthropic.APIError) {
    const body = err.error as { error?: { type?: string; message?: string } } | undefined;
    const type = body?.error?.type ?? (err as { type?: string | null }).type ?? undefined;
    const kind: ProviderErrorKind =
      (type ? KIND_BY_TYPE[type] : undefined) ?? (err.status ? KIND_BY_STATUS[err.status] : undefined) ?? (err.status && err.status >= 500 ? 'server' : 'unknown');
    const message = body?.error?.message ?? err.message;
    const after = retryAfterMs(err.headers);
    return new ProviderError(`Anthropic ${type ?? kind}${err.status ? ` (${err.status})` : ''}: ${message}`, {
      kind,
      retryable: RETRYABLE.has(kind),
      ...(err.status !== undefined ? { status: err.status } : {}),
      ...(type ? { type } : {}),
      ...(after !== undefined ? { retryAfterMs: after } : {}),
      cause: err,
    });
  }
  const message = err instanceof Error ? err.message : String(err);
  return new ProviderError(`Anthropic call failed: ${message}`, { kind: 'unknown', retryable: true, cause: err });
}

/** The Anthropic provider. */
export class AnthropicProvider implements ModelProvider {
  private client: Anthropic | undefined;

  constructor(private readonly options: AnthropicProviderOptions = {}) {}

  private sdk(): Anthropic {
    if (this.client) return this.client;
    const apiKey = this.options.apiKey ?? process.env.ANTHROPIC_API_KEY;
    if (!apiKey) {
      throw new ProviderError("ANTHROPIC_API_KEY is not set in the worker's environment", {
        kind: 'authentication',
        retryable: false,
        type: 'authentication_error',
      });
    }
    this.client = new Anthropic({
      apiKey,
      maxRetries: 0,
      ...(this.options.baseURL ? { baseURL: this.options.baseURL } : {}),
    });
    return this.client;
  }

  async generate(request: ModelRequest, ctx: ModelCallContext): Promise<ModelResponse> {
    const params: Params = {
      model: request.model,
      max_tokens: request.maxTokens,
      messages: toAnthropicMessages(request.messages),
      stream: true,
      ...(request.system ? { system: request.system } : {}),
      ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
      ...(request.tools.length
        ? {
            tools: request.tools.map((t) => ({
              name: t.name,
              description: t.description,
              input_schema: t.inputSchema as Anthropic.Tool.InputSchema,
            })),
          }
        : {}),
    };
    try {
      const stream = this.sdk().messages.stream(params, { signal: ctx.signal });
      const stopped = new Set<number>();
      stream.on('streamEvent', (event) => {
        ctx.heartbeat();
        if (event.type === 'content_block_stop') stopped.add(event.index);
      });
      const final = await stream.finalMessage();
      const content: AssistantContent[] = [];
      final.content.forEach((b, index) => {
        if (b.type === 'text') content.push({ type: 'text', text: b.text });
        else if (b.type === 'thinking') content.push({ type: 'thinking', thinking: b.thinking, signature: b.signature });
        else if (b.type === 'redacted_thinking') content.push({ type: 'redacted_thinking', data: b.data });
        else if (b.type === 'tool_use') {
          const input = (b.input && typeof b.input === 'object' ? b.input : {}) as JsonObject;
          content.push({ type: 'tool_use', id: b.id, name: b.name, input, ...(stopped.has(index) ? {} : { incomplete: true as const }) });
        }
      });
      return {
        message: { role: 'assistant', content },
        stopReason: stopReason(final.stop_reason),
        usage: {
          inputTokens: final.usage.input_tokens,
          outputTokens: final.usage.output_tokens,
          cacheReadTokens: final.usage.cache_read_input_tokens ?? 0,
          cacheWriteTokens: final.usage.cache_creation_input_tokens ?? 0,
        },
        model: final.model,
      };
    } catch (err) {
      if (ctx.signal.aborted) throw err;
      throw classifyAnthropicError(err);
    }
  }
}
