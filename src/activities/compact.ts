import { Context } from '@temporalio/activity';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import type { CompactContextInput, CompactContextOutput } from '../core/run/contract';
import { contextView, messagesTokens, splitPoint, SUMMARY_PROMPT, summaryRequestText, textTokens } from '../core/context/context';
import { jsonBytes } from '../core/messages/json';
import { messageText } from '../core/messages/messages';
import type { ModelResponse } from '../core/output/native-output';
import type { PromptSpec } from '../core/run/spec';
import { DEFAULTS } from '../core/run/spec';
import type { PriceTable } from '../integrations/providers/pricing';
import { costUsd, DEFAULT_PRICES } from '../integrations/providers/pricing';
import type { TranscriptStore } from '../integrations/store/transcript-store';
import { keepAlive } from './heartbeat';
import type { RedactorSource } from './redaction';
import { NO_SECRETS } from './redaction';
import type { ProviderRegistry } from './model';
import { modelFailure, providerFor } from './model';
import { withStore } from './storage';

/** Share of the summariser's window the text to summarise may take (the rest: instructions and the summary). */
const SUMMARY_INPUT_SHARE = 0.5;
/** Window assumed for a summariser whose window is unknown. */
const UNKNOWN_WINDOW_TOKENS = 32_000;

/**
 * Compaction: store the messages not stored yet, split what the model is shown at a point that keeps the
 * most recent `keepRecentTokens` verbatim (never between a tool call and its result), and have the model
 * summarise the older part, with the previous summary. The summary is stored as a blob; the transcript is
 * not changed. Returns `compacted: false` when there is nothing to summarise.
 *
 * At-least-once like every activity: a retried attempt asks for the summary again (and is billed again).
 */
export function compactContextActivity(
  providers: ProviderRegistry,
  store: TranscriptStore,
  prices: PriceTable = DEFAULT_PRICES,
  redact: RedactorSource = NO_SECRETS,
) {
  return async function compactContext(input: CompactContextInput): Promise<CompactContextOutput> {
    const ctx = Context.current();
    const provider = providerFor(providers, input.model.provider);
    const prompt = await withStore("read the agent's prompt", () => store.getJson<PromptSpec>(input.promptRef));
    const head = await withStore('add the new messages to the transcript', () =>
      store.append(input.transcript.head, input.transcript.append),
    );
    const all = await withStore('load the transcript', () => store.load(head));
    const split = splitPoint(all, input.view.from, input.keepRecentTokens);
    if (split === undefined) {
      return {
        compacted: false,
        head,
        reason: `Nothing to summarise: the messages since the last compaction (${all.length - input.view.from}) cannot be split without losing the most recent ones.`,
      };
    }
    const previous = input.view.summaryRef
      ? await withStore('read the previous summary', () => store.text(input.view.summaryRef!))
      : undefined;
    const window = input.windowTokens ?? UNKNOWN_WINDOW_TOKENS;
    const text = summaryRequestText(previous, all.slice(input.view.from, split), window * SUMMARY_INPUT_SHARE * 4);
    const stop = keepAlive(ctx);
    const started = Date.now();
    let response: ModelResponse;
    try {
      response = await provider.generate(
        {
          system: input.summaryPrompt ?? SUMMARY_PROMPT,
          tools: [],
          model: input.model.model,
          messages: [{ role: 'user', content: [{ type: 'text', text }] }],
          maxTokens: input.model.maxTokens ?? DEFAULTS.maxTokens,
          ...(input.model.temperature !== undefined ? { temperature: input.model.temperature } : {}),
        },
        {
          signal: ctx.cancellationSignal,
          heartbeat: (d) => ctx.heartbeat(d),
          attempt: ctx.info.attempt,
          step: input.step,
          purpose: 'summary',
        },
      );
    } catch (err) {
      if (ctx.cancellationSignal.aborted) throw new CancelledFailure('compaction cancelled', [], err as Error);
      throw modelFailure(err);
    } finally {
      stop();
    }
    const summary = redact().text(messageText(response.message).trim());
    if (!summary) {
      throw ApplicationFailure.create({
        message: `The summariser (${input.model.provider}:${response.model}) answered without text (stop reason ${response.stopReason}).`,
        type: 'EmptySummary',
        nonRetryable: true,
      });
    }
    const summaryRef = await withStore('store the summary', () => store.blobs.put(summary));
    const promptTokens = textTokens(jsonBytes(prompt));
    const before = contextView(all, input.view, input.step, previous);
    const after = contextView(all, { ...input.view, summaryRef, from: split }, input.step, summary);
    const cost = costUsd(response.model, response.usage, prices) ?? costUsd(input.model.model, response.usage, prices);
    return {
      compacted: true,
      head,
      summaryRef,
      from: split,
      messagesSummarized: split - input.view.from,
      tokensBefore: promptTokens + messagesTokens(before),
      tokensAfter: promptTokens + messagesTokens(after),
      usage: response.usage,
      ...(cost !== undefined ? { costUsd: cost } : {}),
      provider: input.model.provider,
      model: response.model,
      latencyMs: Date.now() - started,
    };
  };
}
