/**
 * The agent workflow: a deterministic driver of the pure loop in `core/loop.ts`. Model calls and tool
 * executions are activities; everything else is replayed from history, so a killed worker resumes the
 * run exactly where it was.
 */
import {
  ActivityCancellationType,
  ApplicationFailure,
  CancellationScope,
  isCancellation,
  proxyActivities,
  setHandler,
  sleep,
  workflowInfo,
} from '@temporalio/workflow';
import type { ActivityOptions } from '@temporalio/workflow';
import type { AgentActivities, AgentWorkflowInput, RunSnapshot } from '../core/contract';
import { EventLog } from '../core/event-log';
import type { LoopState, ModelStep, PlannedCall, ToolOutcome } from '../core/loop';
import {
  applyModelStep,
  applyToolOutcomes,
  closeOpenCalls,
  doneEvent,
  errorOutcome,
  finishRun,
  modelInput,
  startLoop,
  toolResultEvent,
} from '../core/loop';
import type { AttemptFailure } from '../core/retry';
import { modelForAttempt, modelLabel, retryDelayMs, shouldRetry } from '../core/retry';
import type { AgentRunResult, RunError, RunStatus } from '../core/result';
import type { AgentSpec, RetrySpec, ToolSpec } from '../core/spec';
import { DEFAULTS } from '../core/spec';
import { ZERO_USAGE } from '../core/usage';
import { eventsQuery, snapshotQuery } from './definitions';
import { modelAttemptFailure, toolFailure } from './failures';

const { describeAgent, commitTranscript } = proxyActivities<AgentActivities>({
  startToCloseTimeout: '1 minute',
  retry: { maximumAttempts: 5, initialInterval: '1 second' },
});

function temporalRetry(r: RetrySpec): ActivityOptions['retry'] {
  return {
    maximumAttempts: r.maximumAttempts,
    initialInterval: r.initialIntervalMs,
    backoffCoefficient: r.backoffCoefficient,
    maximumInterval: r.maximumIntervalMs,
  };
}

function validateInput(input: AgentWorkflowInput): void {
  const problems: string[] = [];
  if (!input || typeof input !== 'object') problems.push('input must be an object { agent, prompt }');
  else {
    if (typeof input.agent !== 'string' || !input.agent) problems.push('agent must be a non-empty string');
    if (typeof input.prompt !== 'string' || !input.prompt) problems.push('prompt must be a non-empty string');
    if (input.maxSteps !== undefined && (!Number.isInteger(input.maxSteps) || input.maxSteps < 1)) {
      problems.push('maxSteps must be a positive integer');
    }
  }
  if (problems.length) throw ApplicationFailure.nonRetryable(`Invalid agent run input: ${problems.join('; ')}`, 'InvalidInput');
}

/** Run one agent to completion. Returns a typed result for every ending, cancellation included. */
export async function agentWorkflow(input: AgentWorkflowInput): Promise<AgentRunResult> {
  validateInput(input);
  const info = workflowInfo();
  const startedAt = new Date().toISOString();
  const log = new EventLog(() => new Date());
  let state: LoopState | undefined;
  let phase: RunSnapshot['status'] = 'starting';
  const running = new Map<string, string>();

  setHandler(eventsQuery, (cursor, limit) => log.page(cursor, limit));
  setHandler(snapshotQuery, () => ({
    agent: input.agent,
    status: phase,
    step: state?.step ?? 0,
    maxSteps: state?.maxSteps ?? input.maxSteps ?? 0,
    usage: state?.usage ?? ZERO_USAGE,
    runningTools: [...running].map(([callId, name]) => ({ callId, name })),
    events: log.size,
  }));

  let spec: AgentSpec;
  try {
    spec = await describeAgent({ agent: input.agent });
  } catch (err) {
    if (isCancellation(err)) throw err;
    const cause = err instanceof Error && 'cause' in err && err.cause instanceof Error ? err.cause : err;
    const message = cause instanceof Error ? cause.message : String(cause);
    throw ApplicationFailure.nonRetryable(message, cause instanceof ApplicationFailure ? cause.type : 'DescribeAgentFailed');
  }

  let loop = startLoop(spec, input.prompt, input.maxSteps);
  state = loop;
  phase = 'running';
  log.push({ type: 'run_started', agent: spec.name, model: modelLabel(modelForAttempt(spec.models, 1)), maxSteps: loop.maxSteps });

  let status: RunStatus;
  let error: RunError | undefined;
  let completed: ToolOutcome[] = [];
  const proxies: ToolProxies = new Map();

  try {
    for (;;) {
      const model = await callModel(spec, loop, log);
      if ('failure' in model) {
        status = 'provider_error';
        error = { message: model.failure.message, ...(model.failure.type ? { type: model.failure.type } : {}) };
        break;
      }
      const t = applyModelStep(loop, spec, model.step);
      loop = state = t.state;
      log.push(...t.events);
      if (t.next.type === 'finish') {
        status = t.next.status;
        error = t.next.error;
        break;
      }
      if (t.next.type !== 'run_tools') continue;

      completed = [...t.next.immediate];
      for (const o of t.next.immediate) log.push(toolResultEvent(loop.step, o));
      for (const batch of t.next.batches) {
        await Promise.all(
          batch.map(async (call) => {
            running.set(call.callId, call.name);
            try {
              const outcome = await runToolCall(spec, proxies, call);
              completed.push(outcome);
              log.push(toolResultEvent(loop.step, outcome));
            } finally {
              running.delete(call.callId);
            }
          }),
        );
      }
      const t2 = applyToolOutcomes(loop, t.next.calls, completed);
      loop = state = t2.state;
      completed = [];
      if (t2.next.type === 'finish') {
        status = t2.next.status;
        error = t2.next.error;
        break;
      }
    }
  } catch (err) {
    if (!isCancellation(err)) throw err;
    const closed = closeOpenCalls(loop, completed, 'Cancelled: the run was cancelled before this call finished.');
    loop = state = closed.state;
    log.push(...closed.events);
    status = 'cancelled';
    error = { message: 'The run was cancelled.', type: 'CancelledFailure' };
  }

  // The run is ending: store what the model has not seen (final tool results) so the transcript head
  // names the whole conversation, even if the result carries only its most recent part.
  const unstored = modelInput(loop);
  if (unstored.append.length > 0) {
    const head = await CancellationScope.nonCancellable(() => commitTranscript(unstored));
    loop = state = { ...loop, head, stored: loop.messages.length };
  }
  const inlineBytes = spec.limits.resultMessagesInlineBytes ?? DEFAULTS.resultMessagesInlineBytes;
  const result = finishRun(loop, status, { workflowId: info.workflowId, runId: info.runId, startedAt, endedAt: new Date().toISOString() }, error, inlineBytes);
  phase = status;
  log.push(doneEvent(result));
  return result;
}

/** One model step, retried by the workflow so every retry is visible as an event and uses the fallback chain. */
async function callModel(spec: AgentSpec, loop: LoopState, log: EventLog): Promise<{ step: ModelStep } | { failure: AttemptFailure }> {
  const { callModel: call } = proxyActivities<AgentActivities>({
    startToCloseTimeout: spec.modelTimeoutMs,
    heartbeatTimeout: spec.modelHeartbeatTimeoutMs,
    // One attempt per activity: the loop below owns retries, backoff, Retry-After and fallback.
    retry: { maximumAttempts: 1 },
    cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  });
  const step = loop.step + 1;
  for (let attempt = 1; ; attempt++) {
    const model = modelForAttempt(spec.models, attempt);
    log.push({ type: 'step_started', step, provider: model.provider, model: model.model, attempt });
    try {
      const out = await call({ agent: spec.name, model, promptRef: spec.promptRef, step, attempt, transcript: modelInput(loop) });
      return { step: { ...out, attempts: attempt } };
    } catch (err) {
      if (isCancellation(err)) throw err;
      const failure = modelAttemptFailure(err);
      if (!shouldRetry(failure, attempt, spec.modelRetry)) return { failure };
      const delayMs = retryDelayMs(spec.modelRetry, attempt, failure.retryAfterMs);
      log.push({
        type: 'retrying',
        step,
        attempt,
        error: failure.message,
        ...(failure.type ? { errorType: failure.type } : {}),
        delayMs,
        nextModel: modelLabel(modelForAttempt(spec.models, attempt + 1)),
      });
      await sleep(delayMs);
    }
  }
}

/** One activity proxy per tool, carrying that tool's timeouts and retry policy. */
type ToolProxies = Map<string, AgentActivities['runTool']>;

function toolActivity(proxies: ToolProxies, tool: ToolSpec): AgentActivities['runTool'] {
  let fn = proxies.get(tool.name);
  if (!fn) {
    fn = proxyActivities<AgentActivities>({
      startToCloseTimeout: tool.timeoutMs,
      heartbeatTimeout: tool.heartbeatTimeoutMs,
      retry: temporalRetry(tool.retry),
      cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
    }).runTool;
    proxies.set(tool.name, fn);
  }
  return fn;
}

/** Execute one tool call; failures become error outcomes, cancellation propagates. */
async function runToolCall(spec: AgentSpec, proxies: ToolProxies, call: PlannedCall): Promise<ToolOutcome> {
  const tool = call.tool as ToolSpec;
  try {
    const r = await toolActivity(proxies, tool)({
      agent: spec.name,
      tool: tool.name,
      callId: call.callId,
      step: call.step,
      args: call.args,
      inlineLimitBytes: spec.limits.toolResultInlineBytes,
    });
    return {
      callId: call.callId,
      name: call.name,
      output: r.output,
      isError: r.isError,
      ...(r.error !== undefined ? { error: r.error } : {}),
      latencyMs: r.latencyMs,
      attempts: r.attempt,
      fatal: false,
    };
  } catch (err) {
    if (isCancellation(err)) throw err;
    const f = toolFailure(err);
    return errorOutcome(call.callId, call.name, `Tool "${call.name}" failed: ${f.message}`, {
      attempts: f.attempts,
      latencyMs: f.latencyMs,
      fatal: tool.onError === 'fail',
    });
  }
}

