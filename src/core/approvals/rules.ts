/**
 * Standing approval rules: allow, ask or deny calls of a tool (optionally only when a {@link Cond} on its
 * arguments holds), in a scope. Run-scope rules live in the run (people's "approve and stop asking" /
 * "always reject" decisions, carried at continue-as-new); code-defined agent rules are recorded in the
 * agent spec; session/agent/namespace rules are written to the rules entity. Types only.
 */
import type { Cond } from './conditions';

/** What a rule does with the calls it matches. */
export type RuleAction = 'allow' | 'ask' | 'deny';

/**
 * Where a rule applies: this run (and its sub-agents); a session (a conversation id); every run of an
 * agent; every run in the namespace. Only `run` rules exist in runs today; the others are reserved.
 */
export type RuleScope = 'run' | 'session' | 'agent' | 'namespace';

/**
 * How a decision or rule change reached the run (self-declared by our clients; `temporal` when absent):
 * a client (`sdk`, `cli`, `http`, `console`, `chat`), or the run itself (`rule`, `timeout`, `policy`, a
 * decision forwarded by the `parent` run).
 */
export type AuditPath = 'sdk' | 'cli' | 'http' | 'console' | 'chat' | 'temporal' | 'rule' | 'timeout' | 'policy' | 'parent';

/** Every {@link AuditPath}, for validation. */
export const AUDIT_PATHS: readonly AuditPath[] = [
  'sdk',
  'cli',
  'http',
  'console',
  'chat',
  'temporal',
  'rule',
  'timeout',
  'policy',
  'parent',
];

/** A standing rule. */
export interface ApprovalRule {
  /** Unique in its scope (e.g. `r-12`, or `run:refund:1` for a rule a decision made). */
  id: string;
  /** The rule set's version when it was written (rules of the entity); absent for run and code rules. */
  version?: number;
  scope: RuleScope;
  /** With scope `session`: the conversation (workflow id) the rule applies to. */
  session?: string;
  /** With scope `agent`: the agent name the rule applies to. */
  agent?: string;
  /** The tool name, or `*` for every tool. */
  tool: string;
  /** Matches only calls whose arguments satisfy this; every call of the tool when absent. */
  when?: Cond;
  /**
   * The rule's condition is a function in the agent's code (`approvalRules: [{ when: (args) => … }]`):
   * the `checkApprovals` activity answers it for each call (recorded). Only rules of an agent's code.
   */
  fn?: boolean;
  action: RuleAction;
  /** With action `ask`: who is asked, how long the request waits and when it escalates. */
  ask?: RuleAsk;
  /** ISO time after which the rule no longer applies (compared with workflow time). */
  until?: string;
  /** Who made it (e.g. `ops:alice`, or `agent:<name>` for a code-defined rule). */
  createdBy: string;
  /** How it was made. */
  path?: AuditPath;
  reason?: string;
}

/**
 * How an `ask` rule's requests are made: `approvers` when the tool names none (a tool that names its
 * approvers keeps them), `timeoutMs` and `escalate` instead of the tool's own.
 */
export interface RuleAsk {
  approvers?: string[];
  timeoutMs?: number;
  /** After `afterMs` of waiting, `to` may decide too (as a tool's `ApprovalSpec.escalation`). */
  escalate?: { afterMs: number; to: string[] };
}

/** Names the rule that decided or asked about a call (recorded in events, decisions and reports). */
export interface RuleRef {
  id: string;
  version?: number;
  scope: RuleScope;
}

/** A rule written in code on the agent (`defineAgent({ approvalRules })`): scope `agent`, made by the agent's author. */
export type AgentApprovalRule = Omit<ApprovalRule, 'scope' | 'createdBy' | 'path' | 'version'> & { createdBy?: string };

/** One entry of a run policy for a tool with a condition: `action` when `when` holds (first match wins; no `when` matches always). */
export interface PolicyEntry {
  when?: Cond;
  action: RuleAction;
  /** Names the entry in events and reports (default `policy:<tool>:<index>`). */
  id?: string;
}

/** How a tool call's approval was settled, as the run's report shows it. */
export interface ToolCallApproval {
  /** `approve`/`deny`/`skip` (a person, a rule or the run policy decided), or `expired` (nobody decided in time). */
  decision: 'approve' | 'deny' | 'skip' | 'expired';
  /** Who: a person's identity, the maker of the rule that decided, `run policy`, or `timeout`. */
  by: string;
  path: AuditPath;
  rule?: RuleRef;
  /** The version of the standing rule set the call was gated under (absent: none read, version 0). */
  rulesVersion?: number;
}

/**
 * The standing rules every run reads (session, agent and namespace scopes), as the namespace's rules
 * entity holds them: `version` grows by one with each change. A run learns a set at start (recorded in
 * its description) and each newer one by the `rulesChanged` signal; it ignores versions it has seen.
 */
export interface RuleSet {
  version: number;
  rules: ApprovalRule[];
}

/** Workflow id of the namespace's rules entity (one per namespace). */
export const RULES_WORKFLOW_ID = 'durable-agent.rules';

/** Task queue of the rules entity (every worker polls it). */
export const RULES_TASK_QUEUE = 'durable-agent.rules';

/** Memo key under which the rules entity publishes its current {@link RuleSet}. */
export const RULES_MEMO_KEY = 'durableAgentRules';
