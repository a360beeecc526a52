/**
 * The client's half of a decision with scope `session` or `agent` ("approve and stop asking for this
 * conversation / for this agent", "always reject for …"): write the standing rule to the rules entity
 * first (which needs the right to change rules), then send the decision naming it, so the run applies it
 * at once (the run side decides this call and the other waiting calls the rule covers).
 */
import type { WorkflowHandle } from '@temporalio/client';
import type { Duration } from '@temporalio/common';
import { msToNumber } from '@temporalio/common';
import type { ApprovalDecision } from '../core/approvals/approval-requests';
import type { RuleInput } from '../core/approvals/rule-entity';
import { ruleRef, sameArgsCond } from '../core/approvals/run-rules';
import type { JsonObject } from '../core/messages/json';
import { AGENT_MEMO } from '../core/run/definition';
import { ApprovalRefusedError } from './errors';
import { ApprovalRules } from './rules';

/** Options of a decision with scope `session` or `agent` (client side: not sent to the run). */
export interface StandingDecisionOptions {
  /** The standing rule ends after this long (e.g. `'8h'`): its `until`. Default: it stays until removed. */
  for?: Duration;
}

/** A decision as `AgentRun.decide` takes it: with scope `session`/`agent`, also {@link StandingDecisionOptions}. */
export type DecisionInput = ApprovalDecision & StandingDecisionOptions;

/** What a run reads to write the rule: the waiting call's tool and arguments. */
export interface WaitingCall {
  callId: string;
  tool: string;
  args: unknown;
}

/** The rule a session/agent decision makes, for `call` of the run `workflowId` of `agent`. */
export function standingRuleOf(
  d: DecisionInput,
  call: WaitingCall,
  where: { workflowId: string; agent?: string },
  nowMs = Date.now(),
): RuleInput {
  if (d.scope !== 'session' && d.scope !== 'agent') throw new ApprovalRefusedError(`scope "${String(d.scope)}" is not a standing rule`);
  if (d.decision === 'skip') throw new ApprovalRefusedError(`malformed decision: scope "${d.scope}" is only for approve or deny`);
  if (d.scope === 'agent' && !where.agent)
    throw new ApprovalRefusedError(`run "${where.workflowId}" does not say its agent: decide with scope run instead`);
  let until: string | undefined;
  if (d.for !== undefined) {
    let ms = NaN;
    try {
      ms = msToNumber(d.for);
    } catch {
      // refused below
    }
    if (!Number.isFinite(ms) || ms <= 0)
      throw new ApprovalRefusedError(`malformed decision: for ${JSON.stringify(d.for)} is not a duration (e.g. '8h')`);
    until = new Date(nowMs + ms).toISOString();
  }
  const args = call.args;
  const byArgs = d.match === 'args' && args !== null && typeof args === 'object' && !Array.isArray(args);
  return {
    scope: d.scope,
    ...(d.scope === 'session' ? { session: where.workflowId } : { agent: where.agent as string }),
    tool: call.tool,
    ...(byArgs ? { when: sameArgsCond(args as JsonObject) } : {}),
    action: d.decision === 'approve' ? 'allow' : 'deny',
    ...(until ? { until } : {}),
    ...(d.reason !== undefined ? { reason: d.reason } : {}),
  };
}

/**
 * The decision to send: as given (without the client-side options) for other scopes or when it already
 * names its rule; else after writing the standing rule, naming it.
 */
export async function withStandingRule(
  d: DecisionInput,
  handle: WorkflowHandle,
  waiting: (callId: string) => Promise<WaitingCall | undefined>,
): Promise<ApprovalDecision> {
  const { for: _for, ...decision } = d;
  if ((d.scope !== 'session' && d.scope !== 'agent') || d.rule) return decision;
  const call = await waiting(d.callId);
  if (!call) throw new ApprovalRefusedError(`no approval is pending for call "${d.callId}": the run has no such call waiting`);
  let agent: string | undefined;
  if (d.scope === 'agent') {
    const memo = (await handle.describe()).memo?.[AGENT_MEMO];
    agent = typeof memo === 'string' ? memo : undefined;
  }
  const rule = standingRuleOf(d, call, { workflowId: handle.workflowId, ...(agent ? { agent } : {}) });
  const receipt = await new ApprovalRules(handle.client).put(rule, {
    by: d.by,
    path: d.path ?? 'sdk',
    ...(d.reason !== undefined ? { reason: d.reason } : {}),
  });
  const written = receipt.rule;
  return { ...decision, ...(written ? { rule: ruleRef(written) } : {}) };
}
