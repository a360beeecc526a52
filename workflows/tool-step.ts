/**
 * The tool half of a step: gate each call (run policy, approvals), ask people where needed, and execute
 * the batches the loop planned — read-only calls in parallel, others one at a time — collecting outcomes.
 */
import { ActivityCancellationType, isCancellation, patched, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { ActivityOptions } from '@temporalio/workflow';
import type { Gate, RunPolicy } from '../core/approvals';
import { gateFor, policyDeniedOutcome } from '../core/approvals';
import type { AgentActivities } from '../core/contract';
import type { EventLog } from '../core/event-log';
import type { NextAction, PlannedCall, ToolOutcome } from '../core/loop';
import { errorOutcome, toolResultEvent } from '../core/loop';
import type { AgentSpec, RetrySpec, ToolSpec } from '../core/spec';
import type { ApprovalDesk } from './approval-desk';
import { toolFailure } from './failures';

/** What a tool step needs from the run. */
export interface ToolStepContext {
  spec: AgentSpec;
  policy: RunPolicy | undefined;
  desk: ApprovalDesk;
  log: EventLog;
  /** Calls executing right now (for the snapshot query). */
  running: Map<string, string>;
  /** One activity proxy per tool, carrying its timeouts and retry policy. */
  proxies: Map<string, AgentActivities['runTool']>;
}

const { checkApprovals } = proxyActivities<AgentActivities>({
  startToCloseTimeout: '1 minute',
  retry: { maximumAttempts: 5, initialInterval: '1 second' },
});

/**
 * Run the tool calls of a step. Outcomes are pushed to `completed` as they arrive (so a cancelled run
 * keeps those that finished) and each is logged as a `tool_result` event at once.
 */
export async function runToolStep(ctx: ToolStepContext, plan: Extract<NextAction, { type: 'run_tools' }>, completed: ToolOutcome[]): Promise<void> {
  const { log } = ctx;
  const step = plan.calls[0]?.step ?? 0;
  const finish = (o: ToolOutcome) => {
    completed.push(o);
    log.push(toolResultEvent(step, o));
    // The run will end: nobody should be left deciding (or waiting on) calls that will not run.
    if (o.fatal) ctx.desk.withdrawAll();
  };
  plan.immediate.forEach(finish);

  const gates = await gateCalls(ctx, plan.batches.flat());
  for (const call of plan.batches.flat()) {
    const gate = gates.get(call.callId) as Gate;
    if (gate.kind === 'deny') finish(policyDeniedOutcome(call.callId, call.name));
    else if (gate.kind === 'ask') ctx.desk.request(call, call.tool?.approval);
  }

  let stop: ToolOutcome | undefined;
  for (const batch of plan.batches) {
    if (stop) {
      // A fatal outcome ends the run: later calls are not executed (their approvals are withdrawn).
      for (const call of batch) if (!completed.some((o) => o.callId === call.callId)) finish(notExecuted(call, stop));
      continue;
    }
    await Promise.all(
      batch.map(async (call) => {
        const gate = gates.get(call.callId) as Gate;
        if (gate.kind === 'deny') return;
        if (gate.kind === 'ask') {
          const verdict = await ctx.desk.wait(call);
          if (verdict.kind === 'outcome') return finish(verdict.outcome);
        }
        ctx.running.set(call.callId, call.name);
        try {
          finish(await runToolCall(ctx, call));
        } finally {
          ctx.running.delete(call.callId);
        }
      }),
    );
    const fatal = completed.find((o) => o.fatal);
    if (fatal && patched('stop-batches-after-fatal-outcome')) stop = fatal;
  }
  if (stop) ctx.desk.withdrawAll();
}

/** Gates of the calls: static ones from data, conditional ones from the tools' predicates (one activity, recorded). */
async function gateCalls(ctx: ToolStepContext, calls: PlannedCall[]): Promise<Map<string, Gate>> {
  const gate = (c: PlannedCall, check?: boolean) => gateFor(c.name, c.tool?.approval, ctx.policy, ctx.desk.approvedTools, check);
  const gates = new Map(calls.map((c) => [c.callId, gate(c)]));
  const toCheck = calls.filter((c) => gates.get(c.callId)?.kind === 'check');
  if (toCheck.length) {
    const answers = await checkApprovals({ agent: ctx.spec.name, calls: toCheck.map((c) => ({ callId: c.callId, tool: c.name, args: c.args })) });
    for (const c of toCheck) gates.set(c.callId, gate(c, answers.find((a) => a.callId === c.callId)?.needsApproval ?? true));
  }
  return gates;
}

function notExecuted(call: PlannedCall, cause: ToolOutcome): ToolOutcome {
  return errorOutcome(call.callId, call.name, `Not executed: the run ended after the call to "${cause.name}" failed.`);
}

function temporalRetry(r: RetrySpec): ActivityOptions['retry'] {
  return {
    maximumAttempts: r.maximumAttempts,
    initialInterval: r.initialIntervalMs,
    backoffCoefficient: r.backoffCoefficient,
    maximumInterval: r.maximumIntervalMs,
  };
}

function toolActivity(ctx: ToolStepContext, tool: ToolSpec): AgentActivities['runTool'] {
  let fn = ctx.proxies.get(tool.name);
  if (!fn) {
    fn = proxyActivities<AgentActivities>({
      startToCloseTimeout: tool.timeoutMs,
      heartbeatTimeout: tool.heartbeatTimeoutMs,
      retry: temporalRetry(tool.retry),
      cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
    }).runTool;
    ctx.proxies.set(tool.name, fn);
  }
  return fn;
}

/** Execute one tool call; failures become error outcomes, cancellation propagates. */
async function runToolCall(ctx: ToolStepContext, call: PlannedCall): Promise<ToolOutcome> {
  const tool = call.tool as ToolSpec;
  try {
    const r = await toolActivity(ctx, tool)({
      agent: ctx.spec.name,
      tool: tool.name,
      callId: call.callId,
      step: call.step,
      args: call.args,
      inlineLimitBytes: ctx.spec.limits.toolResultInlineBytes,
      // Stable across retries, restarts and continue-as-new; unique across runs reusing a workflow id.
      idempotencyKey: `${workflowInfo().firstExecutionRunId}/${call.callId}`,
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
