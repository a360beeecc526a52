/**
 * The one driver of a streamed model call, shared by the providers (Anthropic, OpenAI-compatible, AI SDK).
 * It owns the skeleton: start the request, feed each part of the stream to the provider's assembler while
 * heartbeating, stop when the activity's signal aborts, classify every failure into a
 * {@link ProviderError}, refuse a stream that was cut before its end, and fill in the model id. Retries
 * are not its business: the workflow owns them, so each SDK's own are off ({@link sdkClientOptions}).
 *
 * Each provider gives the sibling pieces: its request (`<provider>-request.ts`, or `ai-sdk-messages.ts`),
 * its stream assembler (`<provider>-stream.ts`), its error classification (`classify*Error`).
 */
import type { ModelResponse } from '../../core/output/native-output';
import { abortReason } from './abortable';
import { requireEventStream, truncatedStream } from './errors';
import type { ModelCallContext, ProviderError } from './types';

/** What the driver needs of a provider's stream assembler. */
export interface StreamAssembler<Part> {
  /** Apply one part of the stream. */
  push(part: Part): void;
  /** True once the stream said the answer is whole. */
  readonly complete: boolean;
  /** The assembled answer (read once the stream ended). */
  result(): ModelResponse;
  /** A failure the stream reported as one of its parts: the call stops reading there and fails with it. */
  readonly error?: { error: unknown } | undefined;
}

/** One streamed model call, as a provider describes it to {@link streamCall}. */
export interface StreamCall<Part> {
  /** Name in error messages, e.g. `Anthropic`. */
  label: string;
  /** What ends a whole stream, for the message when it was cut, e.g. `message_stop`. */
  end: string;
  /**
   * Build the request and start it; resolves to the stream of parts once the response has started. Not
   * called when the signal is already aborted.
   */
  open(signal: AbortSignal): Promise<AsyncIterable<Part>>;
  /** Receives every part, in order. */
  assembler: StreamAssembler<Part>;
  /** Classify anything the call threw (or reported in its stream) into a {@link ProviderError}. */
  classify(err: unknown): ProviderError;
  /** The model id to report when the stream named none. */
  model: string;
}

/**
 * Run one streamed model call to its answer.
 *
 * @throws the signal's reason when it aborted (the SDKs end an aborted stream quietly, or fail it with
 *   their own error); otherwise a {@link ProviderError} from `classify`, or a retryable one of kind
 *   `connection` when the stream ended before `end`.
 */
export async function streamCall<Part>(call: StreamCall<Part>, ctx: ModelCallContext): Promise<ModelResponse> {
  const { assembler } = call;
  const { signal } = ctx;
  try {
    if (signal.aborted) throw abortReason(signal);
    for await (const part of await call.open(signal)) {
      ctx.heartbeat();
      assembler.push(part);
      // An error part fails the attempt at once: what follows it is not an answer to keep.
      if (assembler.error !== undefined) break;
    }
  } catch (err) {
    if (signal.aborted) throw abortReason(signal, err);
    throw call.classify(err);
  }
  // The SDKs end the iteration quietly when the request is aborted.
  if (signal.aborted) throw abortReason(signal);
  if (assembler.error) throw call.classify(assembler.error.error);
  if (!assembler.complete) throw truncatedStream(call.label, call.end);
  const response = assembler.result();
  return { ...response, model: response.model || call.model };
}

/** What the Anthropic and OpenAI SDKs' request promises give: the parsed stream and the raw response. */
export interface SdkStreamRequest<Stream> {
  withResponse(): Promise<{ data: Stream; response: Response }>;
}

/**
 * The stream an SDK request answers with, once its response is known to be a server-sent event stream.
 * @throws ProviderError (`not_event_stream`, final) when the server answered with something else.
 */
export async function sdkEventStream<Stream>(label: string, request: SdkStreamRequest<Stream>): Promise<Stream> {
  const { data, response } = await request.withResponse();
  await requireEventStream(label, response);
  return data;
}

/** How a provider configures its SDK's client. */
export interface SdkClientSettings {
  apiKey: string;
  baseURL?: string | undefined;
  /** Time to wait for the response headers of one attempt, in ms. */
  timeoutMs?: number | undefined;
}

/**
 * The options of an SDK client (Anthropic's, OpenAI's) with the SDK's retries off: Temporal owns retries,
 * so a failed call is never retried at two layers.
 */
export function sdkClientOptions(settings: SdkClientSettings): { apiKey: string; maxRetries: 0; baseURL?: string; timeout?: number } {
  return {
    apiKey: settings.apiKey,
    maxRetries: 0,
    ...(settings.baseURL ? { baseURL: settings.baseURL } : {}),
    ...(settings.timeoutMs !== undefined ? { timeout: settings.timeoutMs } : {}),
  };
}
