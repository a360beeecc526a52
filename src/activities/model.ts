import { Context } from '@temporalio/activity';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { uniqueCallIds } from '../core/tool-calls/call-ids';
import { refuseDeepArguments } from '../core/tool-calls/call-input';
import type { ContextView } from '../core/context/context';
import { contextView } from '../core/context/context';
import type { CallModelInput, CallModelOutput, ModelFailureDetails } from '../core/run/contract';
import { jsonBytes } from '../core/messages/json';
import type { Message } from '../core/messages/messages';
import { messageText, toolCalls } from '../core/messages/messages';
import type { ModelResponse } from '../core/output/native-output';
import { dropIncompleteCalls } from '../core/loop/state';
import type { PromptSpec } from '../core/run/spec';
import { DEFAULTS } from '../core/run/spec';
import type { PriceTable } from '../integrations/providers/pricing';
import { costUsd, DEFAULT_PRICES } from '../integrations/providers/pricing';
import type { ModelProvider } from '../integrations/providers/types';
import type { Usage } from '../core/budget/usage';
import { ProviderError } from '../integrations/providers/types';
import { MissingPeerError } from '../integrations/optional-peer';
import type { TranscriptStore } from '../integrations/store/transcript-store';
import type { ModelDelta } from '../core/events/stream';
import type { LiveDetails } from '../integrations/streaming/live-window';
import { LiveWindow } from '../integrations/streaming/live-window';
import type { DeltaPublisher } from '../integrations/streaming/transport';
import { errorMessage, keepAlive } from './heartbeat';
import type { AgentRegistry } from '../agents/registry';
import { judgeAnswer, outputRequest, outputSchemaFor } from './output';
import { withStore } from './storage';
import { EarlyCallReporter, signalOwnWorkflow } from './early-calls';
import type { RedactorSource } from './redaction';
import { NO_SECRETS } from './redaction';
import { layeredPrompt } from './prompt-layers';

/** Providers by the name agents use in `model.provider`. */
export type ProviderRegistry = ReadonlyMap<string, ModelProvider>;

/**
 * One model call: append what is new to the stored transcript, load it, call the provider, give every
 * tool call an id unique in the run, store the answer. Provider failures become Temporal failures
 * carrying whether they are retryable and any Retry-After; the workflow decides about retries. A
 * blob-store failure is a `StorageError` (final), an answer too large for history a
 * `ModelOutputTooLarge` (final). Known secrets in the answer (and in the live deltas) are redacted before
 * it is stored or sent anywhere.
 */
export function callModelActivity(
  providers: ProviderRegistry,
  store: TranscriptStore,
  prices: PriceTable = DEFAULT_PRICES,
  live: LiveOptions = {},
  registry?: AgentRegistry,
  redact: RedactorSource = NO_SECRETS,
) {
  return async function callModel(input: CallModelInput): Promise<CallModelOutput> {
    const ctx = Context.current();
    const stream = liveStream(ctx, input, live, redact);
    const provider = providerFor(providers, input.model.provider);
    const stored = await withStore("read the agent's prompt", () => store.getJson<PromptSpec>(input.promptRef));
    const schema = input.output ? outputSchemaFor(registry, input.agent) : undefined;
    const prompt = input.output ? outputRequest(stored, input.output) : stored;
    const head = await withStore('add the new messages to the transcript', () =>
      store.append(input.transcript.head, input.transcript.append),
    );
    const all = await withStore('load the transcript', () => store.load(head));
    const messages = await withStore('load what the model is shown', () => shownMessages(store, all, input.context, input.step));
    const layered = await layeredPrompt(registry, input, prompt.system, all, redact);
    // Fetched before streaming: the ids of calls reported mid-stream must be the final ones.
    const used = await withStore('index the call ids', () => store.callIdUsed(head));
    const send = input.early ? signalOwnWorkflow(ctx) : undefined;
    const early =
      input.early && send
        ? new EarlyCallReporter(input.early, { step: input.step, attempt: input.attempt }, used, redact, send)
        : undefined;
    const stop = keepAlive(ctx, stream.details);
    const started = Date.now();
    let response: ModelResponse;
    try {
      response = await provider.generate(
        {
          ...prompt,
          ...layered.request,
          model: input.model.model,
          messages,
          maxTokens: input.model.maxTokens ?? DEFAULTS.maxTokens,
          ...(input.model.temperature !== undefined ? { temperature: input.model.temperature } : {}),
          ...(input.model.thinking ? { thinking: input.model.thinking } : {}),
        },
        {
          signal: ctx.cancellationSignal,
          heartbeat: stream.heartbeat,
          attempt: input.attempt,
          step: input.step,
          ...(stream.onDelta ? { onDelta: stream.onDelta } : {}),
          ...(early ? { onToolCall: early.onToolCall } : {}),
        },
      );
    } catch (err) {
      if (ctx.cancellationSignal.aborted) throw new CancelledFailure('model call cancelled', [], err as Error);
      throw modelFailure(err);
    } finally {
      stop();
    }
    const latencyMs = Date.now() - started;
    // Before anything walks the answer (hashing, storing): arguments nested too deep are an invalid call.
    const answer = refuseDeepArguments(response.message);
    // The one place cut-off calls (`incomplete`, max_tokens) are dropped: before the answer is stored
    // (the transcript never holds a call without a result) and before the workflow reads it, so the
    // loop's transitions do not drop them again. Every answer in a recorded history came through here
    // (the recorded histories hold none), and replaying an older one that did would issue the same
    // commands: a cut-off step runs no tool.
    const message = uniqueCallIds(dropIncompleteCalls(redact().value(answer)), used, input.step);
    const output: Omit<CallModelOutput, 'head'> = {
      message,
      stopReason: response.stopReason,
      usage: response.usage,
      provider: input.model.provider,
      model: response.model,
      latencyMs,
      ...priced(response.model, input.model.model, response.usage, prices),
      ...(schema && input.output ? judgeAnswer(schema, message, response.stopReason, input.output) : {}),
      ...layered.recorded,
    };
    checkOutputSize(output);
    // Every early call's signal is in the workflow's history before this activity completes.
    await early?.settle();
    const newHead = await withStore("store the model's answer", () => store.append(head, [message]));
    return { head: newHead as string, ...output };
  };
}

/** Where a streaming model call's deltas go (see `streaming/`). */
export interface LiveOptions {
  /** Carry the newest deltas in the activity's heartbeat details (the Temporal-native transport). */
  heartbeat?: boolean;
  /** Also hand every delta to this publisher (e.g. Redis Streams). */
  publisher?: DeltaPublisher;
}

/**
 * The call's live side: a heartbeat that carries the newest deltas (when the Temporal-native transport
 * is on), and the delta sink handed to the provider (absent when nobody listens).
 */
function liveStream(
  ctx: Context,
  input: CallModelInput,
  live: LiveOptions,
  redact: RedactorSource,
): { heartbeat: () => void; details?: () => LiveDetails; onDelta?: (d: ModelDelta) => void } {
  const window = live.heartbeat ? new LiveWindow(input.step, input.attempt) : undefined;
  const details = window ? () => redact().value(window.details()) : undefined;
  const heartbeat = details ? () => ctx.heartbeat(details()) : () => ctx.heartbeat();
  if (!window && !live.publisher) return { heartbeat };
  const workflowId = ctx.info.workflowExecution?.workflowId ?? '';
  let n = 0;
  const onDelta = (delta: ModelDelta) => {
    window?.push(delta);
    live.publisher?.publish({ workflowId, step: input.step, attempt: input.attempt, n: n++, delta: redact().value(delta) });
    heartbeat();
  };
  return { heartbeat, ...(details ? { details } : {}), onDelta };
}

/**
 * The provider registered as `name`.
 *
 * @throws ApplicationFailure of type `UnknownProvider`, non-retryable, listing the worker's providers.
 */
export function providerFor(providers: ProviderRegistry, name: string): ModelProvider {
  const provider = providers.get(name);
  if (provider) return provider;
  throw ApplicationFailure.create({
    message: `No model provider "${name}" on this worker (have: ${[...providers.keys()].join(', ') || 'none'})`,
    type: 'UnknownProvider',
    nonRetryable: true,
    details: [{ retryable: false } satisfies ModelFailureDetails],
  });
}

/**
 * The messages a model call is sent: the view of the transcript (summary, recent messages, stubs of old
 * tool results) with stored tool outputs read back in full.
 */
export async function shownMessages(
  store: TranscriptStore,
  all: readonly Message[],
  view: ContextView | undefined,
  step: number,
): Promise<Message[]> {
  if (!view) return store.resolve(all);
  const summary = view.summaryRef ? await store.text(view.summaryRef) : undefined;
  return store.resolve(contextView(all, view, step, summary));
}

/**
 * Largest model answer (the activity's output, as JSON) a step may return. Temporal refuses payloads
 * over 2 MiB, and then the failed completion would be retried (paid for again) before the run ends with
 * Temporal's own message; this leaves room for the rest of the output and the history around it.
 */
export const MODEL_OUTPUT_LIMIT_BYTES = 1.5 * 1024 * 1024;

/** Failure type of a model answer too large for workflow history. */
export const MODEL_OUTPUT_TOO_LARGE = 'ModelOutputTooLarge';

/**
 * Refuse an answer over {@link MODEL_OUTPUT_LIMIT_BYTES}: the same request would get an answer as large
 * again, so the failure is final, and it says what was too large.
 *
 * @throws ApplicationFailure of type `ModelOutputTooLarge`, non-retryable.
 */
function checkOutputSize(output: Omit<CallModelOutput, 'head'>): void {
  const bytes = jsonBytes(output);
  if (bytes <= MODEL_OUTPUT_LIMIT_BYTES) return;
  const text = messageText(output.message).length;
  const calls = toolCalls(output.message).length;
  throw ApplicationFailure.create({
    message:
      `The model's answer is too large to record in workflow history: ${bytes} bytes of JSON ` +
      `(${text} characters of text, ${calls} tool call${calls === 1 ? '' : 's'}), over the limit of ${MODEL_OUTPUT_LIMIT_BYTES} bytes. ` +
      `Lower the model's maxTokens or ask for a shorter answer (e.g. have a tool write large content).`,
    type: MODEL_OUTPUT_TOO_LARGE,
    nonRetryable: true,
    details: [{ retryable: false } satisfies ModelFailureDetails],
  });
}

/** The cost of a call in USD, by the model that answered (or the one asked for), if the price table knows it. */
function priced(answered: string, asked: string, usage: Usage, prices: PriceTable): { costUsd?: number } {
  const cost = costUsd(answered, usage, prices) ?? costUsd(asked, usage, prices);
  return cost === undefined ? {} : { costUsd: cost };
}

/** A provider error as a Temporal failure the workflow can classify. */
export function modelFailure(err: unknown): ApplicationFailure {
  if (err instanceof ProviderError) {
    const details: ModelFailureDetails = {
      retryable: err.retryable,
      ...(err.status !== undefined ? { status: err.status } : {}),
      ...(err.retryAfterMs !== undefined ? { retryAfterMs: err.retryAfterMs } : {}),
      ...(err.kind === 'context_overflow' ? { contextOverflow: true } : {}),
    };
    return ApplicationFailure.create({
      message: err.message,
      type: err.type ?? err.kind,
      nonRetryable: !err.retryable,
      details: [details],
    });
  }
  // A provider's SDK that is not installed: no retry installs it.
  if (err instanceof MissingPeerError) {
    return ApplicationFailure.create({
      message: err.message,
      type: err.name,
      nonRetryable: true,
      details: [{ retryable: false } satisfies ModelFailureDetails],
    });
  }
  // Unclassified errors (network faults, bugs in a provider) are treated as transient.
  return ApplicationFailure.create({
    message: errorMessage(err),
    type: err instanceof Error ? err.name : 'Error',
    details: [{ retryable: true } satisfies ModelFailureDetails],
  });
}
