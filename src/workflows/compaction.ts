/**
 * Compaction in the workflow: one `compactContext` activity summarises the older part of what the model
 * is shown; the run records a `compacted` event and goes on with the new view. Best effort: a failed
 * summary leaves the run going unchanged (`compaction_failed`).
 */
import { isCancellation, proxyActivities } from '@temporalio/workflow';
import type { CompactionReason } from '../core/context/context';
import { CONTEXT_DEFAULTS, compacted, compactionFailed, START_CONTEXT } from '../core/context/context';
import { transcriptLength } from '../core/context/compaction';
import type { AgentActivities } from '../core/run/contract';
import type { EventLog } from '../core/events/event-log';
import { modelLabel } from '../core/run/retry';
import type { AgentSpec } from '../core/run/spec';
import type { LoopState } from '../core/loop/state';
import { modelInput } from '../core/loop/state';
import { addUsage } from '../core/budget/usage';
import { isActivityFailure, modelAttemptFailure } from './failures';

/** Compact the context before the model call of step `loop.step + 1`; the new state, and whether it compacted. */
export async function compactContext(
  spec: AgentSpec,
  loop: LoopState,
  log: EventLog,
  reason: CompactionReason,
): Promise<{ loop: LoopState; compacted: boolean }> {
  const context = spec.context;
  const step = loop.step + 1;
  if (!context) return { loop, compacted: false };
  const { compactContext: compact } = proxyActivities<AgentActivities>({
    startToCloseTimeout: spec.modelTimeoutMs,
    heartbeatTimeout: spec.modelHeartbeatTimeoutMs,
    retry: { maximumAttempts: 3, initialInterval: '2 seconds', backoffCoefficient: 2 },
  });
  const model = context.summaryModel ?? spec.models[0]!;
  const state = loop.context ?? START_CONTEXT;
  try {
    const out = await compact({
      agent: spec.name,
      model,
      promptRef: spec.promptRef,
      step,
      transcript: modelInput(loop),
      view: { ...(state.summaryRef ? { summaryRef: state.summaryRef } : {}), from: state.from, keepToolResults: context.keepToolResults },
      keepRecentTokens: context.keepRecentTokens ?? CONTEXT_DEFAULTS.keepRecentTokens,
      ...(context.windowTokens !== undefined ? { windowTokens: context.windowTokens } : {}),
      ...(context.summaryPrompt !== undefined ? { summaryPrompt: context.summaryPrompt } : {}),
    });
    const stored: LoopState = { ...loop, head: out.head, stored: loop.messages.length };
    if (!out.compacted) {
      log.push({ type: 'compaction_failed', step, reason, error: out.reason });
      return { loop: { ...stored, context: compactionFailed(state, step) }, compacted: false };
    }
    log.push({
      type: 'compacted',
      step,
      reason,
      tokensBefore: out.tokensBefore,
      tokensAfter: out.tokensAfter,
      messagesSummarized: out.messagesSummarized,
      summaryModel: modelLabel({ provider: out.provider, model: out.model }),
    });
    return {
      loop: { ...stored, usage: addUsage(loop.usage, out.usage), context: compacted(state, out, transcriptLength(stored)) },
      compacted: true,
    };
  } catch (err) {
    if (isCancellation(err) || !isActivityFailure(err)) throw err;
    log.push({ type: 'compaction_failed', step, reason, error: modelAttemptFailure(err).message });
    return { loop: { ...loop, context: compactionFailed(state, step) }, compacted: false };
  }
}
