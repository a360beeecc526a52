/**
 * Any language model the Vercel AI SDK speaks served as a {@link ModelProvider}: the `LanguageModelV4` of
 * `@ai-sdk/provider@4` (`ai@7`: `@ai-sdk/openai` and `@ai-sdk/anthropic` 4, `@ai-sdk/openai-compatible` 3…),
 * the `LanguageModelV3` of `@ai-sdk/provider@3` (`ai@6`) and the `LanguageModelV2` of `@ai-sdk/provider@2`
 * (`ai@5`), as `@ai-sdk/openai`, `@ai-sdk/anthropic`, `@ai-sdk/google`, `@ai-sdk/mistral`,
 * `@ai-sdk/amazon-bedrock`, `@ai-sdk/openai-compatible`… return them.
 *
 * The adapter calls the model's own `doStream` rather than `ai`'s `streamText`: the runtime already is the
 * agent loop, so what `streamText` adds is in the way. It retries (the workflow owns retries, on durable
 * timers), checks and repairs tool inputs against schemas (we keep a call's arguments exactly as the
 * model sent them, invalid JSON included, and validate in the tool's activity), runs tools and steps
 * (the workflow does), and keeps the provider's raw finish and usage behind its own types. `doStream`
 * is the specification every AI SDK provider implements; the `ai` package is not needed at run time.
 *
 * The API key, base URL and any other credential stay inside the model object the worker was given:
 * none of it is an activity input or output.
 */
import type {
  LanguageModelV2,
  LanguageModelV2CallOptions,
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV4,
  LanguageModelV4CallOptions,
} from '@ai-sdk/provider' with { 'resolution-mode': 'import' };
import type { ModelRequest, ModelResponse } from '../../core/output/native-output';
import { abortReason } from './abortable';
import { classifyAiSdkError } from './ai-sdk-errors';
import type { AiSdkCallSettings } from './ai-sdk-messages';
import { aiSdkCallOptions } from './ai-sdk-messages';
import type { AiSdkStreamPart } from './ai-sdk-stream';
import { AiSdkStreamAssembler } from './ai-sdk-stream';
import { streamCall } from './stream-call';
import type { ModelCallContext, ModelProvider } from './types';
import { ProviderError } from './types';

export { classifyAiSdkError } from './ai-sdk-errors';
export { aiSdkCallOptions, toAiSdkPrompt, toAiSdkTools } from './ai-sdk-messages';
export type { AiSdkCallSettings } from './ai-sdk-messages';
export { AiSdkStreamAssembler, aiSdkFinishName, aiSdkStopReason, aiSdkUsage } from './ai-sdk-stream';
export type { AiSdkFinishReason, AiSdkStreamPart, AiSdkUsage } from './ai-sdk-stream';

/**
 * A language model of a specification the adapter speaks: `LanguageModelV4` (`ai@7`, `@ai-sdk/provider@4`),
 * `LanguageModelV3` (`ai@6`, `@ai-sdk/provider@3`) or `LanguageModelV2` (`ai@5`, `@ai-sdk/provider@2`).
 */
export type AiSdkLanguageModel = LanguageModelV2 | LanguageModelV3 | LanguageModelV4;

/** The specifications the adapter speaks. */
const SPECIFICATIONS: ReadonlySet<unknown> = new Set(['v2', 'v3', 'v4']);

/** An AI SDK provider instance (what `createOpenAI()`, `anthropic`, `google`… are): models by id. */
export interface AiSdkModelSource {
  /** The model with this id. */
  languageModel(modelId: string): AiSdkLanguageModel;
}

/**
 * Which AI SDK model answers an agent's `model` id:
 * - a provider instance (`createOpenAI({ apiKey })`, `anthropic`): `languageModel(id)` for each id;
 * - a function of the id: `(id) => openai.chat(id)`;
 * - a table of models by id: `{ fast: openai('gpt-4.1-mini'), smart: anthropic('claude-sonnet-4-5') }`;
 * - one model, which answers every id (the agent's id is then only a label in reports and price lookups).
 */
export type AiSdkModels =
  AiSdkModelSource | ((modelId: string) => AiSdkLanguageModel) | AiSdkLanguageModel | Readonly<Record<string, AiSdkLanguageModel>>;

/** Options of {@link aiSdkProvider}. */
export interface AiSdkProviderOptions {
  /** Name in error messages. Default: the model's `provider` (e.g. `openai.chat`). */
  label?: string;
  /**
   * Call settings sent with every call (provider options, headers, stop sequences, sampling), or a
   * function giving them per model id. An agent's own `temperature` wins over the one given here.
   */
  settings?: AiSdkCallSettings | ((modelId: string) => AiSdkCallSettings | undefined);
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

/** Whether `v` is a language model (an object with a specification version and `doStream`). */
function isLanguageModel(v: unknown): v is AiSdkLanguageModel {
  return (
    (isObject(v) || typeof v === 'function') && 'specificationVersion' in v && typeof (v as { doStream?: unknown }).doStream === 'function'
  );
}

/**
 * Check a resolved model: it must implement a specification this adapter speaks (v2, v3, v4).
 * @throws ProviderError (`invalid_request`, final) naming what was given and what to use.
 */
function checkModel(model: unknown, where: string): AiSdkLanguageModel {
  if (!isLanguageModel(model)) {
    const got = typeof model === 'string' ? `the string ${JSON.stringify(model)}` : model === null ? 'null' : typeof model;
    throw new ProviderError(
      `${where} is not an AI SDK language model (got ${got}): pass a model object, e.g. openai('gpt-4.1') from @ai-sdk/openai, not a model id string`,
      { kind: 'invalid_request', retryable: false, type: 'invalid_model' },
    );
  }
  if (!SPECIFICATIONS.has(model.specificationVersion)) {
    throw new ProviderError(
      `${where} implements the AI SDK language model specification ${String(model.specificationVersion)}; this adapter speaks v2, v3 and v4 (@ai-sdk/provider 2, 3 and 4: ai@5, ai@6 and ai@7)`,
      { kind: 'invalid_request', retryable: false, type: 'unsupported_model_specification' },
    );
  }
  return model;
}

/**
 * Serve AI SDK language models as a {@link ModelProvider}. Register it on the worker under any name and
 * name that provider in the agent's `model`.
 *
 * @example
 * ```ts
 * import { createOpenAI } from '@ai-sdk/openai';
 * import { createWorker } from 'durable-agent/worker';
 * import { aiSdkProvider } from 'durable-agent/ai-sdk';
 *
 * const openai = createOpenAI({ apiKey: process.env.OPENAI_API_KEY });
 * const worker = await createWorker({ agents: [assistant], providers: { openai: aiSdkProvider(openai) } });
 * // in the agent: model: { provider: 'openai', model: 'gpt-4.1' }
 * ```
 * @throws Error when `models` is none of the accepted shapes (the message says which are).
 */
export function aiSdkProvider(models: AiSdkModels, options: AiSdkProviderOptions = {}): AiSdkProvider {
  return new AiSdkProvider(models, options);
}

/** The provider {@link aiSdkProvider} returns. */
export class AiSdkProvider implements ModelProvider {
  private readonly resolve: (modelId: string) => AiSdkLanguageModel;
  private readonly resolved = new Map<string, AiSdkLanguageModel>();
  /** Credential header values the models' asynchronous `config.headers()` gave (awaited before each call). */
  private readonly heldHeaders = new Set<string>();
  /** Models whose `config.headers()` is asynchronous: asked before each call only, not at each redaction. */
  private readonly asyncHeaders = new WeakSet<AiSdkLanguageModel>();

  /** @throws Error when `models` is none of the accepted shapes, or a table entry is not a v2, v3 or v4 model. */
  constructor(
    models: AiSdkModels,
    private readonly options: AiSdkProviderOptions = {},
  ) {
    if (isLanguageModel(models)) {
      const model = checkModel(models, 'aiSdkProvider(model)');
      this.resolve = () => model;
    } else if (
      (isObject(models) || typeof models === 'function') &&
      typeof (models as { languageModel?: unknown }).languageModel === 'function'
    ) {
      const source = models as unknown as AiSdkModelSource;
      this.resolve = (id) => checkModel(source.languageModel(id), `languageModel(${JSON.stringify(id)})`);
    } else if (typeof models === 'function') {
      const factory = models as (modelId: string) => AiSdkLanguageModel;
      this.resolve = (id) => checkModel(factory(id), `the model function's answer for ${JSON.stringify(id)}`);
    } else if (isObject(models) && !Array.isArray(models)) {
      const table = models as Readonly<Record<string, AiSdkLanguageModel>>;
      for (const [id, m] of Object.entries(table)) checkModel(m, `aiSdkProvider({ ${JSON.stringify(id)}: … })`);
      this.resolve = (id) => {
        const model = Object.hasOwn(table, id) ? table[id] : undefined;
        if (model) return model;
        throw new ProviderError(
          `no AI SDK model is registered for the id ${JSON.stringify(id)}: known ids are ${
            Object.keys(table)
              .map((k) => JSON.stringify(k))
              .join(', ') || '(none)'
          }`,
          {
            kind: 'not_found',
            retryable: false,
            type: 'model_not_found',
          },
        );
      };
    } else {
      throw new Error(
        'aiSdkProvider needs an AI SDK language model (openai("gpt-4.1")), a provider instance (createOpenAI()), a function of the model id, or a table { id: model }; got ' +
          (models === null ? 'null' : Array.isArray(models) ? 'an array' : typeof models),
      );
    }
  }

  /**
   * The language model for an agent's model id (resolved once per id).
   * @throws ProviderError (final) when no model answers the id.
   */
  model(modelId: string): AiSdkLanguageModel {
    const known = this.resolved.get(modelId);
    if (known) return known;
    let model: AiSdkLanguageModel;
    try {
      model = this.resolve(modelId);
    } catch (err) {
      const label = this.options.label ?? 'AI SDK';
      const classified = classifyAiSdkError(err, label);
      if (!classified.retryable) throw classified;
      // Finding a model is configuration, not a call to the network: trying again gives the same answer.
      throw new ProviderError(`${label}: no model for the id ${JSON.stringify(modelId)}: ${classified.message}`, {
        kind: 'not_found',
        retryable: false,
        type: 'model_not_found',
        cause: err,
      });
    }
    this.resolved.set(modelId, model);
    return model;
  }

  /**
   * Credential values of the models used so far, for the worker's redaction: the credential header values
   * the call settings send and those the AI SDK provider packages keep in their models (`config.headers()`:
   * `Authorization`, `x-api-key`…, with a `Bearer`/`Basic` scheme stripped as well). A package whose
   * headers are computed asynchronously (a key given as an async function: `apiKey: () => vault.get()`)
   * is asked before each call, and what it gave is kept, so the values are known before any answer or
   * failure of that call leaves the activity.
   */
  secrets(): readonly string[] {
    const values: string[] = [...this.heldHeaders];
    for (const [id, model] of this.resolved) {
      values.push(...headerValues(this.settings(id).headers));
      if (this.asyncHeaders.has(model)) continue;
      const headers = modelHeaders(model);
      if (!isThenable(headers)) values.push(...headerValues(headers));
      else {
        this.asyncHeaders.add(model);
        void Promise.resolve(headers).catch(() => undefined);
      }
    }
    return [...new Set(values)];
  }

  /**
   * Await the model's `config.headers()` when it is asynchronous, and keep its credential values.
   * @throws the signal's reason when it aborts first (a key function that hangs is not waited for).
   */
  private async holdHeaders(model: AiSdkLanguageModel, signal: AbortSignal): Promise<void> {
    const headers = modelHeaders(model);
    if (!isThenable(headers)) return;
    this.asyncHeaders.add(model);
    let values: string[] = [];
    try {
      values = headerValues(await untilAborted(headers, signal));
    } catch (err) {
      if (signal.aborted) throw abortReason(signal, err);
      // A key that cannot be read fails the call itself (the package asks again), classified there.
    }
    for (const v of values) this.heldHeaders.add(v);
  }

  private settings(modelId: string): AiSdkCallSettings {
    const s = this.options.settings;
    return (typeof s === 'function' ? s(modelId) : s) ?? {};
  }

  async generate(request: ModelRequest, ctx: ModelCallContext): Promise<ModelResponse> {
    const model = this.model(request.model);
    const label = this.options.label ?? model.provider;
    return streamCall(
      {
        label,
        end: 'its finish part',
        open: async (signal) => {
          await this.holdHeaders(model, signal);
          const { stream } = await untilAborted(
            doStream(model, aiSdkCallOptions(request, signal, this.settings(request.model))),
            signal,
            (late) => void late.stream.cancel(abortReason(signal)).catch(() => undefined),
          );
          return streamParts(stream, signal);
        },
        assembler: new AiSdkStreamAssembler(model.provider, ctx.onDelta, ctx.onToolCall),
        classify: (err) => classifyAiSdkError(err, label),
        model: model.modelId || request.model,
      },
      ctx,
    );
  }
}

/**
 * Start a model's stream with the call options of its specification: V4's as built; V3's and V2's are
 * the same without `reasoning` (the prompt the adapter builds has the same shape in all three; a V4
 * provider option may hold `undefined` values, which JSON drops).
 */
function doStream(
  model: AiSdkLanguageModel,
  options: LanguageModelV4CallOptions,
): PromiseLike<{ stream: ReadableStream<AiSdkStreamPart> }> {
  if (model.specificationVersion === 'v4') return model.doStream(options);
  const { reasoning: _reasoning, ...earlier } = options;
  if (model.specificationVersion === 'v3') return model.doStream(earlier as LanguageModelV3CallOptions);
  return model.doStream(earlier as LanguageModelV2CallOptions);
}

const isThenable = (v: unknown): v is PromiseLike<unknown> =>
  (isObject(v) || typeof v === 'function') && typeof (v as { then?: unknown }).then === 'function';

/**
 * The headers an AI SDK provider package's model sends (its `config.headers()`: an object, or a promise
 * of one when a credential is given as an async function), when it has them; never throws.
 */
function modelHeaders(model: AiSdkLanguageModel): unknown {
  try {
    const headers = (model as { config?: { headers?: unknown } }).config?.headers;
    return typeof headers === 'function' ? (headers as () => unknown)() : headers;
  } catch {
    return undefined;
  }
}

/** Names of headers that carry credentials. */
const CREDENTIAL_HEADER = /auth|key|token|secret|cookie|password/i;

/** The values of a headers object's credential headers (and the credential after an auth scheme). */
function headerValues(headers: unknown): string[] {
  if (!isObject(headers)) return [];
  return Object.entries(headers).flatMap(([name, v]) =>
    CREDENTIAL_HEADER.test(name) && typeof v === 'string' && v ? [v, v.replace(/^(?:Bearer|Basic)\s+/i, '')] : [],
  );
}

/**
 * `started`, or the signal's reason as soon as it aborts (a model, or a key function, that ignores the
 * abort signal is not waited for; `late` gets what it answers with after the abort, e.g. to cancel a
 * stream).
 */
function untilAborted<T>(started: PromiseLike<T>, signal: AbortSignal, late?: (value: T) => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortReason(signal));
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    Promise.resolve(started).then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        if (signal.aborted) late?.(value);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}

/**
 * The parts of `stream`, until its end, or until the reader stops early (the stream is then cancelled),
 * or until `signal` aborts (the stream is then cancelled, so a model that ignores its abort signal stops
 * too, and the parts end).
 */
async function* streamParts(stream: ReadableStream<AiSdkStreamPart>, signal: AbortSignal): AsyncGenerator<AiSdkStreamPart> {
  const reader = stream.getReader();
  const onAbort = () => void reader.cancel(abortReason(signal)).catch(() => undefined);
  signal.addEventListener('abort', onAbort, { once: true });
  if (signal.aborted) onAbort();
  let handedOut = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      handedOut = true;
      yield value;
      handedOut = false;
    }
  } finally {
    // The reader stopped at the part it was handed (an error part): nothing after it is read.
    if (handedOut) await reader.cancel().catch(() => undefined);
    signal.removeEventListener('abort', onAbort);
    reader.releaseLock();
  }
}
