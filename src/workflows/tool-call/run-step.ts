/**
 * The tool half of a step: answer what needs no running, gate every other call (run policy, approval
 * predicates), ask people where needed, and execute the batches the loop planned — read-only calls in
 * parallel, others one at a time. Outcomes are recorded as they arrive, each logged as a `tool_result`.
 */
import { patched, proxyActivities } from '@temporalio/workflow';
import type { Gate } from '../../core/approvals/approvals';
import { gateFor } from '../../core/approvals/approvals';
import type { AgentActivities } from '../../core/run/contract';
import type { ToolOutcome } from '../../core/tool-calls/outcomes';
import { notExecutedOutcome, policyDeniedOutcome, toolResultEvent } from '../../core/tool-calls/outcomes';
import type { PlannedCall, StepPlan } from '../../core/tool-calls/plan';
import { inlineLimitPerCall } from '../../core/tool-calls/plan';
import { toolHookEvents } from '../../core/tool-calls/tool-hooks';
import type { ToolCallContext } from './run-call';
import { runCall } from './run-call';

const { checkApprovals } = proxyActivities<AgentActivities>({
  startToCloseTimeout: '1 minute',
  retry: { maximumAttempts: 5, initialInterval: '1 second' },
});

/** The tool calls of one step, run to their outcomes. */
export class ToolStep {
  private readonly outcomes = new Map<string, ToolOutcome>();

  constructor(
    private readonly ctx: ToolCallContext,
    readonly plan: StepPlan,
  ) {}

  /** Outcomes recorded so far (all of them once {@link run} has returned), in completion order. */
  completed(): ToolOutcome[] {
    return [...this.outcomes.values()];
  }

  /** Run every call of the plan to its outcome. Cancellation propagates; {@link completed} keeps what finished. */
  async run(): Promise<ToolOutcome[]> {
    const { ctx, plan } = this;
    plan.immediate.forEach((o) => this.record(o));
    const planned = plan.batches.flat();
    // Gates that need no predicate are known at once (no await: each one is a promise, and Temporal's
    // workflow runtime records a stack trace for every promise workflow code makes).
    const gates = planned.some((c) => this.gate(c).kind === 'check') ? await this.checkedGates(planned) : new Map(planned.map((c) => [c.callId, this.gate(c)]));
    for (const call of planned) {
      const kind = gates.get(call.callId)?.kind;
      if (kind === 'deny') this.record(policyDeniedOutcome(call.callId, call.tool.name));
      else if (kind === 'ask') ctx.desk.request(call, call.tool.approval);
    }
    // Decisions sent early for calls of this step that did not ask can never apply.
    ctx.desk.refuseQueuedFor(plan.calls.map((c) => c.id).filter((id) => gates.get(id)?.kind !== 'ask'));
    ctx.desk.endGating();

    // All results of the step reach the next model call together: each call gets its share of the budget.
    const inlineLimit = inlineLimitPerCall(ctx.spec.limits.toolResultInlineBytes, plan.calls.length);
    let ending: ToolOutcome | undefined;
    for (const batch of plan.batches) {
      if (ending) {
        // An outcome that ends the run: later calls are not executed (their approvals are withdrawn).
        for (const call of batch) if (!this.outcomes.has(call.callId)) this.record(notExecutedOutcome(call.callId, call.tool.name, ending));
        continue;
      }
      const open = batch.filter((call) => !this.outcomes.has(call.callId));
      const runOne = async (call: PlannedCall) => this.record(await runCall(ctx, call, gates.get(call.callId) as Gate, inlineLimit));
      if (open.length === 1) await runOne(open[0]!);
      else await Promise.all(open.map(runOne));
      const ends = this.completed().find((o) => o.endsRun);
      if (ends && patched('stop-batches-after-fatal-outcome')) ending = ends;
    }
    if (ending) ctx.desk.withdrawAll();
    return this.completed();
  }

  private record(o: ToolOutcome): void {
    this.outcomes.set(o.callId, o);
    this.ctx.log.push(...toolHookEvents(this.plan.step, o), toolResultEvent(this.plan.step, o));
    // The run will end: nobody should be left deciding (or waiting on) calls that will not run.
    if (o.endsRun) this.ctx.desk.withdrawAll();
  }

  /** The gate of a call from data (run policy, approval settings, tools approved for the run); `check` once its predicate answered. */
  private gate(c: PlannedCall, check?: boolean): Gate {
    return gateFor(c.tool.name, c.tool.approval, this.ctx.policy, this.ctx.desk.approvedTools, check);
  }

  /** Gates of calls some of which have approval predicates: those are asked (one activity, recorded). */
  private async checkedGates(calls: PlannedCall[]): Promise<Map<string, Gate>> {
    const { ctx } = this;
    const gates = new Map(calls.map((c) => [c.callId, this.gate(c)]));
    const toCheck = calls.filter((c) => gates.get(c.callId)?.kind === 'check');
    const answers = await checkApprovals({ agent: ctx.spec.name, calls: toCheck.map((c) => ({ callId: c.callId, tool: c.tool.name, args: c.args })) });
    for (const c of toCheck) gates.set(c.callId, this.gate(c, answers.find((a) => a.callId === c.callId)?.needsApproval ?? true));
    return gates;
  }
}
