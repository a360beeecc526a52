/** The types of human approval: tool settings, run policy, decisions and pending calls. Types only. */
import type { AnyToolCall, ToolCallShape } from '../tool-calls/tool-call';
import type { AuditPath, PolicyEntry, RuleRef } from './rules';

export type { CondCompareOp, CondCompare, CondExists, CondQuantified, CondAll, CondAny, CondNot, Cond, CondResult } from './conditions';
export type {
  RuleAction,
  RuleScope,
  AuditPath,
  ApprovalRule,
  RuleRef,
  AgentApprovalRule,
  PolicyEntry,
  ToolCallApproval,
  RuleSet,
  RuleAsk,
} from './rules';

/** When a tool asks for approval: never, always, or when a predicate of its arguments says so (evaluated by an activity). */
export type ApprovalMode = 'never' | 'always' | 'conditional';

/** What happens when nobody decides before the approval expires. */
export type ApprovalTimeoutOutcome = 'deny' | 'fail';

/** A tool's approval settings, as data. */
export interface ApprovalSpec {
  mode: ApprovalMode;
  /** Identities allowed to decide (e.g. `ops:alice`); anyone when empty or absent. */
  approvers?: string[];
  /** How long a request waits before it expires; forever when absent. */
  timeoutMs?: number;
  onTimeout: ApprovalTimeoutOutcome;
  /** Widen who may decide after a wait: after `afterMs` of waiting, `to` may decide too (the expiry still applies). */
  escalation?: ApprovalEscalation;
}

/** Escalation of a waiting request (recorded in the spec). */
export interface ApprovalEscalation {
  /** How long a request waits before it escalates. */
  afterMs: number;
  /** Identities added to the approvers when it escalates. */
  to: string[];
}

/** A run-level rule for a tool name (or `*` for every tool): overrides the tool's own setting. */
export type PolicyRule = 'allow' | 'ask' | 'deny';

/**
 * Run-level policy by tool name; `*` applies to tools not named. A tool's value is a rule, or a list of
 * {@link PolicyEntry} on its arguments: the first entry that matches decides (an entry without `when`
 * always matches); when none does, the `*` value applies (a plain rule), else the tool's own settings.
 */
export type RunPolicy<Name extends string = string> = { [K in Name | '*']?: PolicyRule | PolicyEntry[] };

/** How far a decision reaches (see {@link ApprovalDecision.scope}). */
export type DecisionScope = 'call' | 'tool' | 'run' | 'session' | 'agent';

/** A person's decision on a call. */
export type Decision = 'approve' | 'deny' | 'skip';

/** The payload of the `approval` signal and the `decide` update. */
export interface ApprovalDecision {
  callId: string;
  decision: Decision;
  /** Who decided, e.g. `ops:alice`. */
  by: string;
  reason?: string;
  /**
   * `call` (default): this call only. `run`: also every other waiting and later call of the tool in this
   * run (or, with `match: 'args'`, those with the same top-level arguments) — "approve and stop asking",
   * or with `deny` "always reject". `tool`: the older name of `run` with `match: 'tool'` (approve only).
   * `session`, `agent`: apply the standing rule of that scope a client wrote first (named in `rule`, same
   * scope): this call, and the other waiting calls the rule covers once the run knows it.
   */
  scope?: DecisionScope;
  /** With scope `run`: which later calls the decision covers: every call of the tool (default), or those with the same top-level arguments. */
  match?: 'tool' | 'args';
  /** How the decision was sent (set by our clients; `temporal` when absent). */
  path?: AuditPath;
  /** The standing rule this decision applies (a client wrote it first), when it does. */
  rule?: RuleRef;
  /** The id of the update that carried the decision, when one did (for the audit). */
  updateId?: string;
  /**
   * For a budget request (call id `budget_<n>`, tool `budget`): how much to add to the spent budget on
   * approve (tokens, US dollars or turns). Default: as much again as the budget's current limit.
   */
  extendBy?: number;
}

/** A call waiting for a person; `tool` and `args` typed by the agent's tools when known. */
export type PendingApproval<C extends ToolCallShape = AnyToolCall> = C & {
  callId: string;
  step: number;
  /** ISO time the request was made (workflow time). */
  requestedAt: string;
  /** ISO time it expires, if it does. */
  expiresAt?: string;
  approvers?: string[];
  /**
   * Why a person is asked, when it is not an ordinary approval: e.g. an at-most-once call whose first
   * execution's outcome is unknown (approve: run it again; deny: the model is told the outcome is unknown).
   */
  question?: string;
  /** ISO time a person deferred the request until: it is out of the inbox until then (still pending). */
  deferredUntil?: string;
  /** The request escalated: since `at` (ISO), `to` may decide too. */
  escalated?: { at: string; to: string[] };
  /** Who the request was delegated to (may decide, beside the approvers). */
  assignee?: string;
  /** The standing rule that asked, when a rule did. */
  rule?: RuleRef;
};
