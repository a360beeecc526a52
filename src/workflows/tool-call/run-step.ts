/**
 * The tool call's driver: the tool half of a step, from the loop's plan to the outcomes, calling the
 * spokes of this folder (they never import the driver, and one another only as types, through
 * `context.ts`'s `ToolCallContext`, which each spoke narrows to what it uses):
 * - `gate.ts`: each call's gate (run policy, approval settings, approval predicates);
 * - `approval-desk.ts`: where calls wait for people (requests, decisions, expiries), per run;
 * - `execute.ts`: a call as `runTool` activities, attempts retried by the workflow;
 * - `wait-tool.ts`: the built-in `wait`, a durable timer; `sub-agent.ts`: an agent tool's child run;
 * - `child-approvals.ts`: the approvals sub-agents wait for, listed and decided through their parent.
 * Calls needing no run are answered at once; read-only calls run in parallel, others one at a time.
 * Each outcome is logged as a `tool_result` as it arrives; the loop puts them in the transcript.
 */
import { patched } from '@temporalio/workflow';
import type { Gate } from '../../core/approvals/approvals';
import type { ToolOutcome } from '../../core/tool-calls/outcomes';
import { decisionOutcome, notExecutedOutcome, policyDeniedOutcome, toolResultEvent } from '../../core/tool-calls/outcomes';
import type { ApprovalRule, ToolCallApproval } from '../../core/approvals/approvals';
import { ruleRef } from '../../core/approvals/run-rules';
import type { ApprovalAutoEvent } from '../../core/events/events';
import type { PlannedCall, StepPlan } from '../../core/tool-calls/plan';
import { inlineLimitPerCall } from '../../core/tool-calls/plan';
import { toolHookEvents } from '../../core/tool-calls/tool-hooks';
import type { ToolCallContext } from './context';
import { executeCall } from './execute';
import { checkedGates, knownGates } from './gate';
import { runConsolidateCall } from './consolidate';
import { runSubAgentCall } from './sub-agent';
import { waitCall } from './wait-tool';
import { approvalAuto } from '../../integrations/telemetry/workflow-spans';

/** Calls started while the model streamed (see `early-starts.ts`), as the tool step takes them. */
export interface EarlyCalls {
  /** The early outcomes of `calls` that started early as the answer holds them; every other early call is discarded. */
  take(calls: readonly PlannedCall[]): Map<string, Promise<ToolOutcome>>;
}

/** The tool calls of one step, run to their outcomes. */
export class ToolStep {
  private readonly outcomes = new Map<string, ToolOutcome>();
  /** Calls the run policy or a rule decided with nobody asked, for the report. */
  private readonly autoApprovals = new Map<string, ToolCallApproval>();

  constructor(
    private readonly ctx: ToolCallContext,
    readonly plan: StepPlan,
    private readonly early?: EarlyCalls,
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
    // Gates that need no predicate are known at once (no await, see `knownGates`).
    const checks = new Map<string, { check: boolean; answers?: Record<string, boolean | null> }>();
    const gates = knownGates(ctx, planned) ?? (await checkedGates(ctx, planned, checks));
    for (const call of planned) {
      const gate = gates.get(call.callId) as Gate;
      const auto = autoDecisionEvent(call, gate, ctx.desk.rulesVersion);
      // Name what decided a call nobody was asked about (new runs: `seq` of recorded ones must not move).
      if (auto && patched('approval-audit-events')) {
        ctx.log.push(auto);
        approvalAuto(ctx.spec.name, auto.tool, auto.callId, auto.decision, auto);
        this.autoApprovals.set(call.callId, {
          decision: auto.decision === 'allow' ? 'approve' : 'deny',
          by: auto.by ?? 'run policy',
          path: auto.path,
          ...(auto.rule ? { rule: auto.rule } : {}),
          ...(auto.rulesVersion !== undefined ? { rulesVersion: auto.rulesVersion } : {}),
        });
      }
      if (gate.kind === 'deny')
        this.record(
          gate.why === 'rule'
            ? ruleDeniedOutcome(call.callId, call.tool.name, gate.rule)
            : policyDeniedOutcome(call.callId, call.tool.name),
        );
      else if (gate.kind === 'ask') {
        const checked = checks.get(call.callId);
        ctx.desk.request(call, call.tool.approval, { ...(gate.rule ? { rule: gate.rule } : {}), ...checked });
      }
    }
    // Decisions sent early for calls of this step that did not ask can never apply.
    ctx.desk.refuseQueuedFor(plan.calls.map((c) => c.id).filter((id) => gates.get(id)?.kind !== 'ask'));
    ctx.desk.endGating();
    // Calls that started while the model streamed and that the gates let run: their outcomes, not a second run.
    const started = this.early?.take(planned.filter((c) => gates.get(c.callId)?.kind === 'run')) ?? new Map<string, Promise<ToolOutcome>>();

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
      const runOne = async (call: PlannedCall) =>
        this.record(await (started.get(call.callId) ?? runCall(ctx, call, gates.get(call.callId) as Gate, inlineLimit)));
      if (open.length === 1) await runOne(open[0]!);
      else await Promise.all(open.map(runOne));
      const ends = this.completed().find((o) => o.endsRun);
      if (ends && patched('stop-batches-after-fatal-outcome')) ending = ends;
    }
    if (ending) ctx.desk.withdrawAll();
    return this.completed();
  }

  private record(outcome: ToolOutcome): void {
    const approval = this.autoApprovals.get(outcome.callId) ?? this.ctx.desk.settledAs(outcome.callId);
    const o = approval ? { ...outcome, approval } : outcome;
    this.outcomes.set(o.callId, o);
    this.ctx.log.push(...toolHookEvents(this.plan.step, o), toolResultEvent(this.plan.step, o));
    // The run will end: nobody should be left deciding (or waiting on) calls that will not run.
    if (o.endsRun) this.ctx.desk.withdrawAll();
  }
}

/**
 * Take one gated call to its outcome: denied by policy, decided by a person, or executed (outputs over
 * `inlineLimitBytes` stored by reference).
 */
async function runCall(ctx: ToolCallContext, call: PlannedCall, gate: Gate, inlineLimitBytes: number): Promise<ToolOutcome> {
  if (gate.kind === 'deny') return policyDeniedOutcome(call.callId, call.tool.name);
  if (gate.kind === 'ask') {
    const verdict = await ctx.desk.wait(call);
    if (verdict.kind === 'outcome') return verdict.outcome;
  }
  ctx.running.set(call.callId, call.tool.name);
  ctx.log.push({ type: 'tool_started', step: call.step, callId: call.callId, tool: call.tool.name });
  try {
    if (call.tool.builtin?.kind === 'wait') return await waitCall(ctx, call, call.tool.builtin.maxWaitMs);
    if (call.tool.subAgent) return await runSubAgentCall(ctx, call, inlineLimitBytes);
    if (call.tool.consolidate) return await runConsolidateCall(ctx, call, inlineLimitBytes);
    return await executeCall(ctx, call, inlineLimitBytes);
  } finally {
    ctx.running.delete(call.callId);
  }
}

/** The `approval_auto` event of a call the run policy or a rule allowed or denied with nobody asked; undefined otherwise. */
function autoDecisionEvent(call: PlannedCall, gate: Gate, rulesVersion: number): ApprovalAutoEvent | undefined {
  if (gate.kind === 'ask' || gate.kind === 'check') return undefined;
  if (gate.kind === 'run' && gate.why !== 'rule' && gate.why !== 'run_policy') return undefined;
  const base = {
    type: 'approval_auto' as const,
    step: call.step,
    callId: call.callId,
    tool: call.tool.name,
    // The standing rule set the call was gated under (runs that read none record nothing).
    ...(rulesVersion > 0 ? { rulesVersion } : {}),
  };
  const decision = gate.kind === 'run' ? ('allow' as const) : ('deny' as const);
  if (gate.why === 'rule') return { ...base, decision, path: 'rule', rule: ruleRef(gate.rule), by: gate.rule.createdBy };
  // A policy entry on arguments is named; a plain policy value is not.
  return { ...base, decision, path: 'policy', ...(gate.rule ? { rule: ruleRef(gate.rule) } : {}) };
}

/** The result the model sees for a call a rule denied: as the person who made the rule denied it. */
function ruleDeniedOutcome(callId: string, tool: string, rule: ApprovalRule): ToolOutcome {
  const standing = rule.scope === 'run' ? 'always rejected in this run' : `denied by ${rule.scope} rule`;
  const why = rule.reason ? `${rule.reason} (rule ${rule.id})` : `${standing} (rule ${rule.id})`;
  return decisionOutcome(callId, tool, { decision: 'deny', by: rule.createdBy, reason: why });
}
