/**
 * Standing rules in a run: which rules of the namespace's set (and of the agent's code) apply to a run,
 * and what they say about a call — most specific scope first (session, agent, namespace), in one scope
 * `ask` before `allow`. Deny rules are matched by the gate before anything else (see `gateFor`). Pure.
 */
import type { JsonValue } from '../messages/json';
import type { AgentApprovalRule, ApprovalRule, RuleScope, RuleSet } from './rules';
import { evaluateCond } from './evaluate-cond';

/** Who a run is, for the scopes of standing rules. */
export interface RuleScopeOf {
  /** The run's agent name (scope `agent`). */
  agent: string;
  /** The run's session: its root workflow id (a sub-agent's is its root run's) (scope `session`). */
  session: string;
}

/** The empty rule set (no rules entity, or none read yet). */
export const NO_RULES: RuleSet = { version: 0, rules: [] };

/** Whether `rule` is meant for this run: its scope fits (run-scope rules are not standing rules) and it has not expired. */
export function ruleFits(rule: ApprovalRule, who: RuleScopeOf, nowMs: number): boolean {
  if (rule.until && Date.parse(rule.until) <= nowMs) return false;
  switch (rule.scope) {
    case 'namespace':
      return true;
    case 'agent':
      return rule.agent === undefined || rule.agent === who.agent;
    case 'session':
      return rule.session === who.session;
    default:
      return false;
  }
}

/** The rules an agent's code defines, as standing rules of scope `agent` (made by `agent:<name>` unless named). */
export function agentRules(agent: string, rules: readonly AgentApprovalRule[] | undefined): ApprovalRule[] {
  return (rules ?? []).map((r) => ({ ...r, scope: 'agent' as const, agent, createdBy: r.createdBy ?? `agent:${agent}` }));
}

/** Only rules of an agent's code may have function conditions: a rule set from outside that claims one is dropped. */
function dataOnly(rule: ApprovalRule): boolean {
  return !rule.fn;
}

/** Rule id → the recorded answer of a function rule for one call. */
type Answers = Readonly<Record<string, boolean | null>> | undefined;

const holds = (r: ApprovalRule, args: JsonValue | undefined, answers: Answers) =>
  r.fn
    ? typeof answers?.[r.id] === 'boolean'
      ? (answers[r.id] as boolean)
      : 'unknown'
    : !r.when
      ? true
      : args === undefined
        ? 'unknown'
        : evaluateCond(r.when, args);

/** Whether a function rule for `tool` has no recorded answer yet (then the `checkApprovals` activity answers it). */
export function unanswered(rules: readonly ApprovalRule[], tool: string, answers: Answers): boolean {
  return rules.some((r) => r.fn && (r.tool === tool || r.tool === '*') && answers?.[r.id] === undefined);
}

/** A deny rule that surely matches the call (`deny`), else one that cannot tell (`ask`), else undefined. */
export function denyVerdict(
  rules: readonly ApprovalRule[],
  tool: string,
  args: JsonValue | undefined,
  answers?: Answers,
): { action: 'deny' | 'ask'; rule: ApprovalRule } | undefined {
  let unsure: ApprovalRule | undefined;
  for (const r of rules) {
    if (r.action !== 'deny' || (r.tool !== tool && r.tool !== '*')) continue;
    const h = holds(r, args, answers);
    if (h === true) return { action: 'deny', rule: r };
    if (h === 'unknown') unsure ??= r;
  }
  return unsure ? { action: 'ask', rule: unsure } : undefined;
}

const SCOPES: readonly RuleScope[] = ['session', 'agent', 'namespace'];

/**
 * What the `ask`/`allow` standing rules say about a call: the most specific scope with a rule that
 * matches decides; in it an `ask` rule that matches (or cannot tell) asks, else an `allow` rule that
 * surely matches allows — only if the tool names no approvers or the rule's maker is one of them.
 */
export function standingVerdict(
  rules: readonly ApprovalRule[],
  tool: string,
  args: JsonValue | undefined,
  approvers: readonly string[] | undefined,
  answers?: Answers,
): { action: 'ask' | 'allow'; rule: ApprovalRule } | undefined {
  for (const scope of SCOPES) {
    const inScope = rules.filter((r) => r.scope === scope && (r.tool === tool || r.tool === '*'));
    const ask = inScope.find((r) => r.action === 'ask' && holds(r, args, answers) !== false);
    if (ask) return { action: 'ask', rule: ask };
    const allow = inScope.find(
      (r) => r.action === 'allow' && holds(r, args, answers) === true && (!approvers?.length || approvers.includes(r.createdBy)),
    );
    if (allow) return { action: 'allow', rule: allow };
  }
  return undefined;
}

/** A rule set from the outside world (a memo, a signal), or undefined when it is not one. */
export function asRuleSet(v: unknown): RuleSet | undefined {
  if (!v || typeof v !== 'object') return undefined;
  const s = v as Record<string, unknown>;
  if (typeof s.version !== 'number' || !Number.isSafeInteger(s.version) || s.version < 0 || !Array.isArray(s.rules)) return undefined;
  const rules = s.rules.filter(
    (r): r is ApprovalRule =>
      !!r &&
      typeof r === 'object' &&
      typeof (r as ApprovalRule).id === 'string' &&
      typeof (r as ApprovalRule).tool === 'string' &&
      ['allow', 'ask', 'deny'].includes((r as ApprovalRule).action),
  );
  return { version: s.version, rules: rules.filter(dataOnly) };
}
