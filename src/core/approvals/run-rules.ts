/**
 * Run-scope rules: what people's "approve and stop asking" and "always reject" decisions become (kept
 * by the run's approval desk, carried at continue-as-new), and how a call is matched against rules. Pure.
 */
import type { JsonObject, JsonValue } from '../messages/json';
import type { ApprovalDecision } from './approval-requests';
import type { Cond } from './conditions';
import { evaluateCond } from './evaluate-cond';
import type { ApprovalRule, RuleRef } from './rules';

/** The condition "the same top-level arguments as `args`" (each key deep-equal; other keys ignored). */
export function sameArgsCond(args: JsonObject): Cond {
  return { all: Object.keys(args).map((path) => ({ path, op: 'eq' as const, value: args[path] ?? null })) };
}

/**
 * The run-scope rule a decision with `scope: 'run'` makes, for a call of `tool` with `args`: allow
 * (approve) or deny, every later call of the tool (`match: 'tool'`, default) or those with the same
 * top-level arguments (`match: 'args'`). `n`: how many run rules exist already (ids `run-1`, `run-2`, …).
 */
export function runRuleOf(d: ApprovalDecision, tool: string, args: JsonValue, n: number): ApprovalRule {
  const byArgs = d.match === 'args' && args !== null && typeof args === 'object' && !Array.isArray(args);
  return {
    id: `run-${n + 1}`,
    scope: 'run',
    tool,
    ...(byArgs ? { when: sameArgsCond(args) } : {}),
    action: d.decision === 'approve' ? 'allow' : 'deny',
    createdBy: d.by,
    ...(d.path ? { path: d.path } : {}),
    ...(d.reason ? { reason: d.reason } : {}),
  };
}

/** The reference that names `rule` in events and decisions. */
export function ruleRef(rule: ApprovalRule): RuleRef {
  return { id: rule.id, scope: rule.scope, ...(rule.version !== undefined ? { version: rule.version } : {}) };
}

/** What the rules say about a call: deny (a deny rule matches), ask (a deny rule cannot tell), allow, or nothing. */
export type RulesVerdict = { action: 'deny' | 'ask' | 'allow'; rule: ApprovalRule } | undefined;

/**
 * Match a call against rules (in order). Any deny rule that matches wins; one that cannot tell (or when
 * the arguments are not known yet: `args` undefined) asks; else the first allow rule that surely matches
 * and may waive the call (the tool names no `approvers`, or the rule's maker is one of them). Rules past
 * their `until` (compared with `nowMs`) are skipped.
 */
export function matchRules(
  rules: readonly ApprovalRule[],
  tool: string,
  args: JsonValue | undefined,
  approvers: readonly string[] | undefined,
  nowMs: number,
): RulesVerdict {
  const live = rules.filter((r) => (r.tool === tool || r.tool === '*') && !(r.until && Date.parse(r.until) <= nowMs));
  const holds = (r: ApprovalRule) => (!r.when ? true : args === undefined ? 'unknown' : evaluateCond(r.when, args));
  let ask: ApprovalRule | undefined;
  for (const r of live) {
    if (r.action !== 'deny') continue;
    const h = holds(r);
    if (h === true) return { action: 'deny', rule: r };
    if (h === 'unknown') ask ??= r;
  }
  if (ask) return { action: 'ask', rule: ask };
  for (const r of live) {
    if (r.action === 'ask' && holds(r) !== false) return { action: 'ask', rule: r };
    if (r.action === 'allow' && holds(r) === true && (!approvers?.length || approvers.includes(r.createdBy)))
      return { action: 'allow', rule: r };
  }
  return undefined;
}
