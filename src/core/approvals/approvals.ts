/**
 * Human approval of tool calls: the pure rules that decide whether a call needs a person and which
 * decisions are acceptable. The workflow records every input of these rules in history (the agent spec,
 * the run policy, policy-check results, decisions), so replay always reaches the same answers. What a
 * decision turns into for the model is in `outcomes.ts`.
 */
import type { ApprovalDecision, ApprovalSpec, Decision, DecisionScope, PendingApproval, PolicyRule, RunPolicy } from './approval-requests';
import { AUDIT_PATHS, type ApprovalRule, type AuditPath, type RuleRef, type RuleScope } from './rules';
import type { JsonValue } from '../messages/json';
import { matchRules } from './run-rules';
import { evaluateCond } from './evaluate-cond';
import { denyVerdict, standingVerdict, unanswered } from './standing-rules';
import { notAllowed } from './deciders';

export type * from './approval-requests';

/** How a call may proceed before any person is involved. */
export type Gate =
  | { kind: 'run'; why: 'no_approval_needed' | 'approved_for_run' | 'check_said_no' }
  /** The run policy lets it run (`rule`: the policy entry on its arguments that did, when one did). */
  | { kind: 'run'; why: 'run_policy'; rule?: ApprovalRule }
  /** A rule (run scope: a person's "approve and stop asking"; agent code; standing) lets it run. */
  | { kind: 'run'; why: 'rule'; rule: ApprovalRule }
  /** The run policy denies it (`rule`: the policy entry on its arguments that did, when one did). */
  | { kind: 'deny'; why: 'run_policy'; rule?: ApprovalRule }
  /** A rule ("always reject", or a deny rule of any scope) denies it. */
  | { kind: 'deny'; why: 'rule'; rule: ApprovalRule }
  /** A person decides (`rule`: the rule or policy entry that asked, when one did). */
  | { kind: 'ask'; rule?: ApprovalRule }
  /** The tool's predicate must be evaluated (by an activity) first. */
  | { kind: 'check' };

/** What the run policy says about a call: its action, and the entry on its arguments that said it (a rule of scope `run`). */
export type PolicyMatch = { action: PolicyRule; rule?: ApprovalRule } | undefined;

/**
 * What the run policy says about a call of `tool` with `args` (undefined: not known yet). A plain value
 * applies as is; entries on arguments: the first that surely matches decides, a `deny` or `ask` entry that
 * cannot tell asks, an `allow` one that cannot tell is passed over; when none matches, the `*` value
 * applies if it is a plain rule.
 */
export function policyMatch(policy: RunPolicy | undefined, tool: string, args?: JsonValue): PolicyMatch {
  if (!policy) return undefined;
  const own = Object.prototype.hasOwnProperty.call(policy, tool) ? policy[tool] : undefined;
  const value = own ?? policy['*'];
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) return { action: value };
  for (const [i, entry] of value.entries()) {
    const holds = !entry.when ? true : args === undefined ? 'unknown' : evaluateCond(entry.when, args);
    if (holds === false || (holds === 'unknown' && entry.action === 'allow')) continue;
    const rule: ApprovalRule = {
      id: entry.id ?? `policy:${tool}:${i}`,
      scope: 'run',
      tool,
      ...(entry.when ? { when: entry.when } : {}),
      action: holds === 'unknown' ? 'ask' : entry.action,
      createdBy: 'run policy',
      path: 'policy',
    };
    return { action: rule.action, rule };
  }
  const star = own !== undefined ? policy['*'] : undefined;
  return typeof star === 'string' ? { action: star } : undefined;
}

/** The rule of the run policy for `tool` (with entries on arguments: the first that matches `args`), if any. */
export function policyRule(policy: RunPolicy | undefined, tool: string, args?: JsonValue): PolicyRule | undefined {
  return policyMatch(policy, tool, args)?.action;
}

/**
 * The rules a gate consults besides the run policy, with the call's arguments (undefined: not known
 * yet) and the workflow time: the run's own rules, and the standing rules that apply to the run (agent
 * code, session, agent and namespace rules whose scope fits and that have not expired).
 */
export interface RunRulesInput {
  rules: readonly ApprovalRule[];
  args: JsonValue | undefined;
  nowMs: number;
  /** Standing rules that apply to this run (see `standing-rules.ts`); none when absent. */
  standing?: readonly ApprovalRule[];
  /** The recorded answers of the agent's function rules for this call (rule id → matches); see {@link ApprovalRule.fn}. */
  answers?: Readonly<Record<string, boolean | null>>;
}

/**
 * The gate of a call. Precedence (issue 26): deny wins from any source — the run policy (a plain
 * `deny`, or its first entry on arguments that matches), then a run rule, then a standing rule (a
 * deny rule that cannot tell asks); then the policy's `allow`, "approved for the rest of the run", an
 * allow run rule, the policy's `ask`; then standing rules, most specific scope first (session, agent,
 * namespace; `ask` before `allow` in one scope); then the tool's own mode (with `checkResult` the
 * recorded answer of its predicate, when it has one). A run policy may tighten anything, but `allow`
 * cannot waive a tool that names its approvers (whoever starts a run must not be able to skip a control
 * meant for specific people), and an allow rule waives it only if its maker is one of them.
 */
export function gateFor(
  tool: string,
  approval: ApprovalSpec | undefined,
  policy: RunPolicy | undefined,
  approvedTools: ReadonlySet<string>,
  checkResult?: boolean,
  runRules?: RunRulesInput,
): Gate {
  const matched = policyMatch(policy, tool, runRules?.args);
  const rule = matched?.action;
  const entry = matched?.rule ? { rule: matched.rule } : {};
  if (rule === 'deny') return { kind: 'deny', why: 'run_policy', ...entry };
  const verdict = runRules?.rules.length ? matchRules(runRules.rules, tool, runRules.args, approval?.approvers, runRules.nowMs) : undefined;
  if (verdict?.action === 'deny') return { kind: 'deny', why: 'rule', rule: verdict.rule };
  const standing = runRules?.standing?.length ? runRules.standing : undefined;
  // A function rule of the agent's code for this tool not answered yet: the activity answers it first.
  if (standing && runRules?.args !== undefined && unanswered(standing, tool, runRules.answers)) return { kind: 'check' };
  const denied = standing ? denyVerdict(standing, tool, runRules?.args, runRules?.answers) : undefined;
  if (denied?.action === 'deny') return { kind: 'deny', why: 'rule', rule: denied.rule };
  if (verdict?.action === 'ask') return { kind: 'ask', rule: verdict.rule };
  if (denied?.action === 'ask') return { kind: 'ask', rule: denied.rule };
  if (rule === 'allow' && !approval?.approvers?.length) return { kind: 'run', why: 'run_policy', ...entry };
  if (approvedTools.has(tool)) return { kind: 'run', why: 'approved_for_run' };
  if (verdict?.action === 'allow') return { kind: 'run', why: 'rule', rule: verdict.rule };
  if (rule === 'ask') return { kind: 'ask', ...entry };
  const said = standing ? standingVerdict(standing, tool, runRules?.args, approval?.approvers, runRules?.answers) : undefined;
  if (said?.action === 'ask') return { kind: 'ask', rule: said.rule };
  // An allow rule names itself only where it waives something (a tool that asks, or whose predicate would be asked).
  if (said?.action === 'allow' && (approval?.mode ?? 'never') !== 'never') return { kind: 'run', why: 'rule', rule: said.rule };
  switch (approval?.mode ?? 'never') {
    case 'never':
      return { kind: 'run', why: 'no_approval_needed' };
    case 'always':
      return { kind: 'ask' };
    case 'conditional':
      if (checkResult === undefined) return { kind: 'check' };
      return checkResult ? { kind: 'ask' } : { kind: 'run', why: 'check_said_no' };
  }
}

const DECISIONS: readonly Decision[] = ['approve', 'deny', 'skip'];

/** Check the shape of a decision payload from the outside world. */
export function parseDecision(payload: unknown): { ok: true; value: ApprovalDecision } | { ok: false; error: string } {
  if (!payload || typeof payload !== 'object' || Array.isArray(payload)) {
    return { ok: false, error: 'decision must be an object { callId, decision, by, reason?, scope? }' };
  }
  const p = payload as Record<string, unknown>;
  const problems: string[] = [];
  if (typeof p.callId !== 'string' || !p.callId) problems.push('callId must be a non-empty string');
  if (typeof p.decision !== 'string' || !DECISIONS.includes(p.decision as Decision))
    problems.push(`decision must be one of ${DECISIONS.join(', ')}`);
  if (typeof p.by !== 'string' || !p.by.trim()) problems.push('by must name who decided (e.g. "ops:alice")');
  if (p.reason !== undefined && typeof p.reason !== 'string') problems.push('reason must be a string');
  if (typeof p.reason === 'string' && p.reason.length > 2000) problems.push('reason must be at most 2000 characters');
  // A session or agent scope decision applies a standing rule a client wrote first: it names it (same scope).
  if (p.scope === 'session' || p.scope === 'agent') {
    if (!p.rule || typeof p.rule !== 'object' || (p.rule as Record<string, unknown>).scope !== p.scope)
      problems.push(
        `scope "${p.scope}" needs the ${p.scope} rule it applies (rule: { id, version, scope: "${p.scope}" }): write the rule first`,
      );
    if (p.decision === 'skip') problems.push(`scope "${p.scope}" is only for approve or deny`);
  } else if (p.scope !== undefined && p.scope !== 'call' && p.scope !== 'tool' && p.scope !== 'run')
    problems.push('scope must be "call", "run" or "tool"');
  if (p.scope === 'tool' && p.decision !== 'approve') problems.push('scope "tool" is only for approve');
  if (p.scope === 'run' && p.decision === 'skip') problems.push('scope "run" is only for approve or deny');
  if (p.match !== undefined && p.match !== 'tool' && p.match !== 'args') problems.push('match must be "tool" or "args"');
  if (p.match !== undefined && p.scope !== 'run') problems.push('match needs scope "run"');
  if (p.path !== undefined && !AUDIT_PATHS.includes(p.path as AuditPath)) problems.push(`path must be one of ${AUDIT_PATHS.join(', ')}`);
  if (p.updateId !== undefined && (typeof p.updateId !== 'string' || !p.updateId || p.updateId.length > 200))
    problems.push('updateId must be a non-empty string of at most 200 characters');
  const rule = p.rule === undefined ? undefined : parseRuleRef(p.rule);
  if (typeof rule === 'string') problems.push(rule);
  if (p.extendBy !== undefined) {
    if (typeof p.extendBy !== 'number' || !Number.isFinite(p.extendBy) || p.extendBy <= 0)
      problems.push('extendBy must be a positive number');
    else if (p.decision !== 'approve') problems.push('extendBy is only for approve');
  }
  const known = new Set(['callId', 'decision', 'by', 'reason', 'scope', 'extendBy', 'match', 'path', 'rule', 'updateId']);
  const extra = Object.keys(p).filter((k) => !known.has(k));
  if (extra.length) problems.push(`unknown field(s): ${extra.join(', ')}`);
  if (problems.length) return { ok: false, error: `malformed decision: ${problems.join('; ')}` };
  return {
    ok: true,
    value: {
      callId: p.callId as string,
      decision: p.decision as Decision,
      by: (p.by as string).trim(),
      ...(typeof p.reason === 'string' && p.reason.trim() ? { reason: p.reason.trim() } : {}),
      ...(p.scope ? { scope: p.scope as DecisionScope } : {}),
      ...(typeof p.extendBy === 'number' ? { extendBy: p.extendBy } : {}),
      ...(p.match ? { match: p.match as 'tool' | 'args' } : {}),
      ...(p.path ? { path: p.path as AuditPath } : {}),
      ...(rule && typeof rule === 'object' ? { rule } : {}),
      ...(typeof p.updateId === 'string' ? { updateId: p.updateId } : {}),
    },
  };
}

const RULE_SCOPES: readonly RuleScope[] = ['run', 'session', 'agent', 'namespace'];

/** Check a {@link RuleRef} from the outside world: the ref, or what is wrong with it. */
export function parseRuleRef(v: unknown): RuleRef | string {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return 'rule must be an object { id, version?, scope }';
  const r = v as Record<string, unknown>;
  const extra = Object.keys(r).filter((k) => k !== 'id' && k !== 'version' && k !== 'scope');
  if (extra.length) return `rule: unknown field(s): ${extra.join(', ')}`;
  if (typeof r.id !== 'string' || !r.id || r.id.length > 200) return 'rule.id must be a non-empty string of at most 200 characters';
  if (r.version !== undefined && (typeof r.version !== 'number' || !Number.isSafeInteger(r.version) || r.version < 0))
    return 'rule.version must be a non-negative integer';
  if (!RULE_SCOPES.includes(r.scope as RuleScope)) return `rule.scope must be one of ${RULE_SCOPES.join(', ')}`;
  return { id: r.id, scope: r.scope as RuleScope, ...(typeof r.version === 'number' ? { version: r.version } : {}) };
}

/** Where a call stands, for validating decisions on it. */
export type CallApprovalState =
  | { kind: 'pending'; pending: PendingApproval }
  | { kind: 'decided'; decision: Decision; by: string }
  | { kind: 'expired' }
  /** A call of this run that did not ask for approval (it ran, was answered, or its request was withdrawn). */
  | { kind: 'not_asked' }
  /** No call of this run has that id yet: it may be a call of a step not reached (or not recorded) yet. */
  | { kind: 'not_reached' }
  /** A call the run has recorded whose gate (run policy, approval predicate) has not answered yet: it may still ask. */
  | { kind: 'gating' };

/** At most this many decisions wait for calls the run has not reached; more are refused. */
export const MAX_QUEUED_DECISIONS = 100;

/**
 * What to do with a well-formed decision *signal*: apply it, keep it until its call asks for approval
 * (the call is not in the run yet — e.g. the signal overtook the replay of the step that asks — or its
 * gate has not answered yet), or refuse it. Updates are never queued: their caller waits for the answer
 * (see {@link refusal}); one for a call being gated waits for its gate.
 */
export function signalDisposition(
  d: ApprovalDecision,
  state: CallApprovalState,
  nowMs: number,
  queued: number,
): { kind: 'apply' } | { kind: 'queue' } | { kind: 'refuse'; reason: string } {
  if (state.kind === 'not_reached' || state.kind === 'gating') {
    if (queued >= MAX_QUEUED_DECISIONS)
      return { kind: 'refuse', reason: `too many decisions wait for calls this run has not reached (${MAX_QUEUED_DECISIONS})` };
    return { kind: 'queue' };
  }
  const why = refusal(d, state, nowMs);
  return why ? { kind: 'refuse', reason: why } : { kind: 'apply' };
}

/** Why a well-formed decision cannot be applied, or undefined if it can (or, for a call being gated, may once it asks). */
export function refusal(d: ApprovalDecision, state: CallApprovalState, nowMs: number): string | undefined {
  switch (state.kind) {
    case 'gating':
      return undefined;
    case 'not_reached':
      return `no approval is pending for call "${d.callId}": the run has no such call (yet)`;
    case 'not_asked':
      return `no approval is pending for call "${d.callId}": it did not ask for approval`;
    case 'decided':
      return `call "${d.callId}" was already decided (${state.decision} by ${state.by})`;
    case 'expired':
      return `the approval of call "${d.callId}" has expired`;
    case 'pending': {
      const { pending } = state;
      if (pending.expiresAt && Date.parse(pending.expiresAt) <= nowMs) return `the approval of call "${d.callId}" has expired`;
      // Approvers, and once it escalated or was delegated, the escalation group and the assignee.
      return notAllowed(pending, d.by);
    }
  }
}
