import { Context } from '@temporalio/activity';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import type { CallModelInput, CallModelOutput, ModelFailureDetails } from '../core/contract';
import { dropIncompleteCalls } from '../core/state';
import type { PromptSpec } from '../core/spec';
import { DEFAULTS } from '../core/spec';
import type { PriceTable } from '../providers/pricing';
import { costUsd, DEFAULT_PRICES } from '../providers/pricing';
import type { ModelProvider } from '../providers/types';
import type { Usage } from '../core/usage';
import { ProviderError } from '../providers/types';
import type { TranscriptStore } from '../store/transcript-store';
import { errorMessage, keepAlive } from './heartbeat';

/** Providers by the name agents use in `model.provider`. */
export type ProviderRegistry = ReadonlyMap<string, ModelProvider>;

/**
 * One model call: append what is new to the stored transcript, load it, call the provider, store the
 * answer. Provider failures become Temporal failures carrying whether they are retryable and any
 * Retry-After; the workflow decides about retries.
 */
export function callModelActivity(providers: ProviderRegistry, store: TranscriptStore, prices: PriceTable = DEFAULT_PRICES) {
  return async function callModel(input: CallModelInput): Promise<CallModelOutput> {
    const ctx = Context.current();
    const provider = providers.get(input.model.provider);
    if (!provider) {
      throw ApplicationFailure.create({
        message: `No model provider "${input.model.provider}" on this worker (have: ${[...providers.keys()].join(', ') || 'none'})`,
        type: 'UnknownProvider',
        nonRetryable: true,
        details: [{ retryable: false } satisfies ModelFailureDetails],
      });
    }
    const prompt = await store.getJson<PromptSpec>(input.promptRef);
    const head = await store.append(input.transcript.head, input.transcript.append);
    const messages = await store.resolve(await store.load(head));
    const stop = keepAlive(ctx);
    const started = Date.now();
    try {
      const response = await provider.generate(
        {
          ...prompt,
          model: input.model.model,
          messages,
          maxTokens: input.model.maxTokens ?? DEFAULTS.maxTokens,
          ...(input.model.temperature !== undefined ? { temperature: input.model.temperature } : {}),
          ...(input.model.thinking ? { thinking: input.model.thinking } : {}),
        },
        { signal: ctx.cancellationSignal, heartbeat: (d) => ctx.heartbeat(d), attempt: input.attempt, step: input.step },
      );
      const latencyMs = Date.now() - started;
      const message = dropIncompleteCalls(response.message);
      const newHead = await store.append(head, [message]);
      return {
        head: newHead as string,
        message,
        stopReason: response.stopReason,
        usage: response.usage,
        provider: input.model.provider,
        model: response.model,
        latencyMs,
        ...priced(response.model, input.model.model, response.usage, prices),
      };
    } catch (err) {
      if (ctx.cancellationSignal.aborted) throw new CancelledFailure('model call cancelled', [], err as Error);
      throw modelFailure(err);
    } finally {
      stop();
    }
  };
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
    };
    return ApplicationFailure.create({
      message: err.message,
      type: err.type ?? err.kind,
      nonRetryable: !err.retryable,
      details: [details],
    });
  }
  // Unclassified errors (network faults, bugs in a provider) are treated as transient.
  return ApplicationFailure.create({
    message: errorMessage(err),
    type: err instanceof Error ? err.name : 'Error',
    details: [{ retryable: true } satisfies ModelFailureDetails],
  });
}
