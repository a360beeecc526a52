/**
 * Spoke of the tool call: the gate of each planned call (run policy, approval settings, tools approved
 * for the run), from data where it can be, else after the tools' approval predicates answered (one
 * `checkApprovals` activity for the step, recorded).
 */
import { proxyActivities } from '@temporalio/workflow';
import type { Gate } from '../../core/approvals/approvals';
import { gateFor } from '../../core/approvals/approvals';
import type { AgentActivities } from '../../core/run/contract';
import type { PlannedCall } from '../../core/tool-calls/plan';
import type { ToolCallContext } from './context';

/** The function rules of the agent for `c`'s tool, each answered "cannot tell" (undefined when there are none). */
function unansweredAsNull(ctx: GateContext, c: PlannedCall): Record<string, null> | undefined {
  const fns = (ctx.spec.approvalRules ?? []).filter((r) => r.fn && (r.tool === c.tool.name || r.tool === '*'));
  return fns.length ? Object.fromEntries(fns.map((r) => [r.id, null])) : undefined;
}

const { checkApprovals } = proxyActivities<AgentActivities>({
  startToCloseTimeout: '1 minute',
  retry: { maximumAttempts: 5, initialInterval: '1 second' },
});

/** What gating needs from the run. */
export type GateContext = Pick<ToolCallContext, 'spec' | 'policy'> & { desk: Pick<ToolCallContext['desk'], 'approvedTools' | 'gateRules'> };

/** The gate of a call from data (run policy, the run's and standing rules, the tool's settings); `check` once its predicate answered. */
export function gateOf(ctx: GateContext, c: PlannedCall, check?: boolean, answers?: Record<string, boolean | null>): Gate {
  const rules = ctx.desk.gateRules(c.args);
  return gateFor(c.tool.name, c.tool.approval, ctx.policy, ctx.desk.approvedTools, check, answers ? { ...rules, answers } : rules);
}

/**
 * The gates of `calls` when data alone decides them; undefined when a call's approval predicate must
 * answer first (then {@link checkedGates}). Synchronous on purpose: most steps then make no promise,
 * and Temporal's workflow runtime records a stack trace for every promise workflow code makes.
 */
export function knownGates(ctx: GateContext, calls: readonly PlannedCall[]): Map<string, Gate> | undefined {
  const gates = new Map(calls.map((c) => [c.callId, gateOf(ctx, c)]));
  return [...gates.values()].some((g) => g.kind === 'check') ? undefined : gates;
}

/** Gates of calls some of which have approval predicates: those are asked (one activity, recorded). */
export async function checkedGates(
  ctx: GateContext,
  calls: readonly PlannedCall[],
  checks?: Map<string, { check: boolean; answers?: Record<string, boolean | null> }>,
): Promise<Map<string, Gate>> {
  const gates = new Map(calls.map((c) => [c.callId, gateOf(ctx, c)]));
  const toCheck = calls.filter((c) => gates.get(c.callId)?.kind === 'check');
  const answers = await checkApprovals({
    agent: ctx.spec.name,
    calls: toCheck.map((c) => ({ callId: c.callId, tool: c.tool.name, args: c.args })),
  });
  for (const c of toCheck) {
    const found = answers.find((a) => a.callId === c.callId);
    const answer = found?.needsApproval ?? true;
    // A function rule the activity did not answer (a worker older than the rule) cannot tell: null.
    const ruleAnswers = found?.rules ?? unansweredAsNull(ctx, c);
    checks?.set(c.callId, { check: answer, ...(ruleAnswers ? { answers: ruleAnswers } : {}) });
    gates.set(c.callId, gateOf(ctx, c, answer, ruleAnswers));
  }
  return gates;
}
