/** One model step, retried by the workflow so every retry is an event and can move down the fallback chain. */
import { ActivityCancellationType, isCancellation, patched, proxyActivities, sleep } from '@temporalio/workflow';
import { viewOf } from '../core/context/context';
import type { AgentActivities } from '../core/run/contract';
import type { EventLog } from '../core/events/event-log';
import type { AttemptFailure } from '../core/run/retry';
import { MAX_WORKER_LOSSES, modelForAttempt, modelLabel, retryDelay, shouldRetry } from '../core/run/retry';
import type { AgentSpec, ModelRef } from '../core/run/spec';
import type { LoopState, ModelStep } from '../core/loop/state';
import { modelInput } from '../core/loop/state';
import { modelAttemptFailure } from './failures';
import { layersInput } from '../core/prompt/layers';
import type { EarlyStarts } from './early-starts';

/** The model with its output limit raised to `raised` (after a cut-off answer), never lowered. */
function withRaisedLimit(model: ModelRef, raised: number | undefined): ModelRef {
  return raised !== undefined && raised > (model.maxTokens ?? 0) ? { ...model, maxTokens: raised } : model;
}

/**
 * Call the model for the next step, retrying per the agent's policy (Retry-After honoured up to the maximum
 * interval, durable timers). With `early`, each attempt may start read-only calls while it streams; the
 * calls of an attempt that fails are cancelled and discarded before the retry.
 */
export async function callModelWithRetries(
  spec: AgentSpec,
  loop: LoopState,
  log: EventLog,
  early?: EarlyStarts,
): Promise<{ step: ModelStep } | { failure: AttemptFailure }> {
  const { callModel } = proxyActivities<AgentActivities>({
    startToCloseTimeout: spec.modelTimeoutMs,
    heartbeatTimeout: spec.modelHeartbeatTimeoutMs,
    // One attempt per activity: this loop owns retries, backoff, Retry-After and fallback.
    retry: { maximumAttempts: 1 },
    cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  });
  const step = loop.step + 1;
  // `attempt` numbers every try (events, live deltas); `losses` are tries lost with their worker, which
  // do not count against the retry policy or move down the fallback chain.
  let losses = 0;
  for (let attempt = 1; ; attempt++) {
    const counted = attempt - losses;
    const model = withRaisedLimit(modelForAttempt(spec.models, counted), loop.recoveries ? spec.limits.recoveryMaxTokens : undefined);
    log.push({ type: 'step_started', step, provider: model.provider, model: model.model, attempt });
    const earlyInput = early?.begin(step, attempt);
    try {
      const context = viewOf(loop.context, spec.context);
      const out = await callModel({
        agent: spec.name,
        model,
        promptRef: spec.promptRef,
        step,
        attempt,
        transcript: modelInput(loop),
        ...(context ? { context } : {}),
        ...(spec.output ? { output: spec.output } : {}),
        ...layersInput(spec, loop),
        ...(earlyInput ? { early: earlyInput } : {}),
      });
      // The answer is in: no call of this attempt starts any more (the tool step takes the early ones).
      early?.seal();
      return { step: { ...out, attempts: counted, ...(losses ? { workerLosses: losses } : {}) } };
    } catch (err) {
      // A failed (or cancelled) attempt's early calls never reach the model.
      early?.discard();
      if (isCancellation(err)) throw err;
      const failure = modelAttemptFailure(err);
      // Runs recorded before worker losses were told apart spent an attempt on each: keep that on replay.
      if (failure.workerLost && losses < MAX_WORKER_LOSSES && patched('worker-loss-free-retry')) {
        losses++;
        log.push({
          type: 'retrying',
          step,
          attempt,
          error: failure.message,
          errorType: 'worker_lost',
          delayMs: 0,
          nextModel: modelLabel(model),
        });
        continue;
      }
      if (!shouldRetry(failure, counted, spec.modelRetry)) return { failure };
      const delay = retryDelay(spec.modelRetry, counted, failure.retryAfterMs);
      // Runs recorded before the cap waited the full Retry-After: keep that on replay.
      const capped = delay.requestedDelayMs !== undefined && patched('cap-retry-after');
      const delayMs = delay.requestedDelayMs !== undefined && !capped ? delay.requestedDelayMs : delay.delayMs;
      log.push({
        type: 'retrying',
        step,
        attempt,
        error: failure.message,
        ...(failure.type ? { errorType: failure.type } : {}),
        delayMs,
        ...(capped ? { requestedDelayMs: delay.requestedDelayMs } : {}),
        nextModel: modelLabel(modelForAttempt(spec.models, counted + 1)),
      });
      await sleep(delayMs);
    }
  }
}
