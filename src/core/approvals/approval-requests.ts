/** The types of human approval: tool settings, run policy, decisions and pending calls. Types only. */
import type { AnyToolCall, ToolCallShape } from '../tool-calls/tool-call';

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
}

/** A run-level rule for a tool name (or `*` for every tool): overrides the tool's own setting. */
export type PolicyRule = 'allow' | 'ask' | 'deny';

/** Run-level policy by tool name; `*` applies to tools not named. */
export type RunPolicy<Name extends string = string> = { [K in Name | '*']?: PolicyRule };

/** A person's decision on a call. */
export type Decision = 'approve' | 'deny' | 'skip';

/** The payload of the `approval` signal and the `decide` update. */
export interface ApprovalDecision {
  callId: string;
  decision: Decision;
  /** Who decided, e.g. `ops:alice`. */
  by: string;
  reason?: string;
  /** `tool`: on approve, also approve every other pending and later call of this tool in the run. */
  scope?: 'call' | 'tool';
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
};
