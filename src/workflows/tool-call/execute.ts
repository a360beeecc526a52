/**
 * Spoke of the tool call: execute a gated, approved call as `runTool` activities (the tool's own
 * timeouts and retry policy, attempts retried by the workflow with durable timers) until it has an
 * outcome. Asks the tool's approvers (through the desk) before running an at-most-once call again.
 */
import { ActivityCancellationType, isCancellation, patched, proxyActivities, sleep, workflowInfo } from '@temporalio/workflow';
import type { ActivityOptions } from '@temporalio/workflow';
import type { AgentActivities, RunToolInput } from '../../core/run/contract';
import { STORAGE_ERROR } from '../../core/run/contract';
import type { ToolOutcome } from '../../core/tool-calls/outcomes';
import { errorOutcome } from '../../core/tool-calls/outcomes';
import type { PlannedCall } from '../../core/tool-calls/plan';
import type { RetrySpec, ToolSpec } from '../../core/run/spec';
import { MAX_WORKER_LOSSES, retryDelay } from '../../core/run/retry';
import type { ToolFailure } from '../failures';
import { toolFailure } from '../failures';
import type { ToolCallContext } from './context';

/** What executing a call needs from the run: the agent, the activity proxies, and the desk only to ask about a rerun. */
export type ExecuteContext = Pick<ToolCallContext, 'spec' | 'proxies'> & { desk: Pick<ToolCallContext['desk'], 'askRerun'> };

function temporalRetry(r: RetrySpec): ActivityOptions['retry'] {
  return {
    maximumAttempts: r.maximumAttempts,
    initialInterval: r.initialIntervalMs,
    backoffCoefficient: r.backoffCoefficient,
    maximumInterval: r.maximumIntervalMs,
  };
}

function toolActivity(proxies: ExecuteContext['proxies'], tool: ToolSpec, once: boolean, early = false): AgentActivities['runTool'] {
  const key = early ? `${tool.name}\u0000early` : once ? `${tool.name}\u0000once` : tool.name;
  let fn = proxies.get(key);
  if (!fn) {
    fn = proxyActivities<AgentActivities>({
      startToCloseTimeout: tool.timeoutMs,
      heartbeatTimeout: tool.heartbeatTimeoutMs,
      // `once`: one attempt per activity, the workflow owns retries (worker losses do not count).
      retry: once ? { maximumAttempts: 1 } : temporalRetry(tool.retry),
      // An early call (started while the model streamed) that is discarded is not waited for: its result
      // is thrown away, and a lost worker must not hold up the model's retry until its heartbeat times out.
      cancellationType: early ? ActivityCancellationType.TRY_CANCEL : ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
    }).runTool;
    proxies.set(key, fn);
  }
  return fn;
}

/**
 * Execute one call as `runTool` activities until it has an outcome. A failure after the tool's retries
 * becomes an error outcome the model reads (or ends the run, for a tool whose error policy is `fail`);
 * a storage failure ends the run `storage_error`; cancellation propagates. An attempt lost with its worker
 * (no heartbeat) runs again at once without counting against the retry policy. An at-most-once call
 * whose outcome is unknown is put to the tool's approvers, if it names any: approve runs it again.
 */
export async function executeCall(
  ctx: ExecuteContext,
  call: PlannedCall,
  inlineLimitBytes: number,
  options: { early?: boolean } = {},
): Promise<ToolOutcome> {
  // Runs recorded before the workflow owned tool retries let Temporal's retry policy run them: keep that on replay.
  if (!patched('tool-attempts-in-workflow')) return executeWithTemporalRetries(ctx, call, inlineLimitBytes);
  for (let rerun = 0; ; rerun++) {
    const outcome = await executeAttempts(ctx, call, inlineLimitBytes, rerun, options.early === true);
    const approvers = call.tool.approval?.approvers;
    if (!outcome.outcomeUnknown || !approvers?.length) return outcome;
    const question = `The outcome of this call is unknown (its worker was lost after it started). Approve to run it again, deny to tell the model the outcome is unknown.`;
    const decided = await ctx.desk.askRerun(call, rerun + 1, call.tool.approval, question);
    if (decided?.decision !== 'approve') {
      const why = decided
        ? ` ${decided.by} decided not to run it again${decided.reason ? `: ${decided.reason}` : ''}.`
        : ' Nobody decided in time; it was not run again.';
      const text = `${outcomeText(outcome)}${why}`;
      return { ...outcome, output: { type: 'text', text }, error: text };
    }
  }
}

function outcomeText(o: ToolOutcome): string {
  return o.output.type === 'text' ? o.output.text : (o.error ?? '');
}

/** Attempts of one call, retried by the workflow with the tool's retry policy and durable timers. */
async function executeAttempts(
  ctx: ExecuteContext,
  call: PlannedCall,
  inlineLimitBytes: number,
  rerun: number,
  early: boolean,
): Promise<ToolOutcome> {
  const tool = call.tool;
  const run = toolActivity(ctx.proxies, tool, true, early);
  let losses = 0;
  for (let attempt = 1; ;) {
    try {
      const r = await run({ ...toolInput(ctx, call, inlineLimitBytes), attempt, ...(rerun ? { rerun } : {}) });
      return { ...outcomeOf(call, r), ...(losses ? { workerLosses: losses } : {}) };
    } catch (err) {
      if (isCancellation(err)) throw err;
      const f = toolFailure(err);
      if (f.workerLost && losses < MAX_WORKER_LOSSES) {
        losses++;
        continue;
      }
      if (f.type === STORAGE_ERROR || f.nonRetryable || attempt >= tool.retry.maximumAttempts) {
        return { ...failedOutcome(call, f, attempt), ...(losses ? { workerLosses: losses } : {}) };
      }
      await sleep(retryDelay(tool.retry, attempt).delayMs);
      attempt++;
    }
  }
}

function outcomeOf(call: PlannedCall, r: Awaited<ReturnType<AgentActivities['runTool']>>): ToolOutcome {
  return {
    callId: call.callId,
    tool: call.tool.name,
    output: r.output,
    isError: r.isError,
    ...(r.error !== undefined ? { error: r.error } : {}),
    latencyMs: r.latencyMs,
    attempts: r.attempt,
    ...(r.outcomeUnknown ? { outcomeUnknown: true as const } : {}),
    ...(r.ranArgs ? { ranArgs: r.ranArgs } : {}),
    ...(r.hooks?.length ? { hooks: r.hooks } : {}),
    ...notesOf(r),
    ...(r.context?.length ? { context: r.context } : {}),
  };
}

/** The attempt's metrics and last progress, for the outcome (absent fields stay absent). */
function notesOf(r: Pick<ToolFailure, 'metrics' | 'lastProgress'>): Pick<ToolOutcome, 'metrics' | 'lastProgress'> {
  return { ...(r.metrics ? { metrics: r.metrics } : {}), ...(r.lastProgress ? { lastProgress: r.lastProgress } : {}) };
}

/** The input of a call's `runTool` activity, the same for every attempt. */
function toolInput(ctx: ExecuteContext, call: PlannedCall, inlineLimitBytes: number): RunToolInput {
  return {
    agent: ctx.spec.name,
    tool: call.tool.name,
    callId: call.callId,
    step: call.step,
    args: call.args,
    inlineLimitBytes,
    // Stable across retries, worker restarts and continue-as-new; unique across runs reusing a workflow id.
    idempotencyKey: `${workflowInfo().firstExecutionRunId}/${call.callId}`,
  };
}

/**
 * The outcome of a call that failed for good after `attempts` attempts: a storage failure ends the run
 * `storage_error`; any other is an error result the model reads (or ends the run, for `onError: 'fail'`).
 */
function failedOutcome(call: PlannedCall, f: ToolFailure, attempts: number): ToolOutcome {
  const tool = call.tool;
  if (f.type === STORAGE_ERROR) {
    return errorOutcome(call.callId, tool.name, `Tool "${tool.name}": ${f.message}`, {
      attempts,
      latencyMs: f.latencyMs,
      endsRun: 'storage_error',
      ...notesOf(f),
    });
  }
  return errorOutcome(call.callId, tool.name, `Tool "${tool.name}" failed: ${f.message}`, {
    attempts,
    latencyMs: f.latencyMs,
    ...(tool.onError === 'fail' ? { endsRun: 'tool_error' as const } : {}),
    ...notesOf(f),
  });
}

/** The call as runs recorded before `tool-attempts-in-workflow` executed it: Temporal's retry policy ran the attempts. */
async function executeWithTemporalRetries(ctx: ExecuteContext, call: PlannedCall, inlineLimitBytes: number): Promise<ToolOutcome> {
  try {
    return outcomeOf(call, await toolActivity(ctx.proxies, call.tool, false)(toolInput(ctx, call, inlineLimitBytes)));
  } catch (err) {
    if (isCancellation(err)) throw err;
    const f = toolFailure(err);
    return failedOutcome(call, f, f.attempts);
  }
}
