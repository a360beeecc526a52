/**
 * Approval notifications (signed webhooks): which run events notify which targets, and what a
 * notification says. Pure: the run builds them from its approval events; the worker signs and sends them.
 */
import type { PendingApproval } from './approval-requests';
import type { RuleRef } from './rules';
import type { JsonValue } from '../messages/json';
import { jsonBytes } from '../messages/json';
import type { NotificationEventType, NotifySpec } from './notify-spec';

export type { NotificationEventType, NotifyRetrySpec, NotifySpec, NotifyTargetSpec } from './notify-spec';
export { NOTIFICATION_EVENT_TYPES } from './notify-spec';

/** What a webhook receives (the JSON body). */
export interface ApprovalNotification {
  type: NotificationEventType;
  /** The same as the `webhook-id` header (`<workflowId>:<runId>:<callId>:<type>`), stable across retries. */
  id: string;
  /** When the run logged the event (ISO). */
  at: string;
  workflowId: string;
  runId: string;
  agent: string;
  callId: string;
  tool: string;
  /** The call's arguments (targets with `includeArgs`; redacted; absent above 4 KiB of JSON). */
  args?: JsonValue;
  /** The arguments were left out: larger than 4 KiB of JSON. */
  argsOmitted?: 'too_large';
  /** Who may decide (empty: anyone with the right). */
  approvers: string[];
  expiresAt?: string;
  /** `approval.decided`: the decision, who made it, why. */
  decision?: string;
  by?: string;
  reason?: string;
  /** How the decision arrived: the client's path (`sdk`, `cli`, `http`, `console`, `chat`, `rule`, …) when known, else `signal`/`update`. */
  path?: string;
  /** The standing rule that decided, when one did. */
  rule?: RuleRef;
  /** `approval.expired`: what the expiry did. */
  outcome?: string;
  /** The run's page in the console. */
  consoleUrl?: string;
}

/** What the `notify` activity is given: the target's name, the delivery id, the body. */
export interface NotifyInput {
  target: string;
  id: string;
  payload: ApprovalNotification;
}

/** Largest arguments (bytes of JSON) a notification carries. */
export const NOTIFICATION_ARGS_BYTES = 4096;

/** What happened to a request, as the run's approval desk tells it (workflow-side `ApprovalDeskEvent`, in core terms). */
export interface ApprovalHappening {
  type: NotificationEventType;
  /** Workflow time (ISO). */
  at: string;
  pending: PendingApproval;
  /** `approval.decided`. */
  decided?: { decision: string; by: string; reason?: string; path?: string; rule?: RuleRef };
  /** `approval.decided`: how the decision arrived when no path is known (`signal`, `update`). */
  via?: string;
  /** `approval.expired`: what the expiry did. */
  outcome?: string;
  /** `approval.escalated`: who was added. */
  to?: string[];
}

/** The run a notification comes from. */
export interface NotifyingRun {
  workflowId: string;
  runId: string;
  agent: string;
}

/**
 * The id of a notification (the `webhook-id` of its deliveries, the same on every retry): unique per
 * run execution, call and type — a later run with the same workflow id gets ids of its own.
 */
export function notificationId(run: NotifyingRun, callId: string, type: NotificationEventType): string {
  return `${run.workflowId}:${run.runId}:${callId}:${type}`;
}

/** The deliveries `h` makes under `spec`: one per target receiving its type. */
export function notificationsFor(h: ApprovalHappening, spec: NotifySpec, run: NotifyingRun): NotifyInput[] {
  const p = h.pending;
  const id = notificationId(run, p.callId, h.type);
  const approvers = [...(p.approvers ?? []), ...(p.escalated?.to ?? []), ...(h.to ?? [])];
  const base: ApprovalNotification = {
    type: h.type,
    id,
    at: h.at,
    ...run,
    callId: p.callId,
    tool: p.tool,
    approvers: [...new Set(approvers)],
    ...(p.expiresAt ? { expiresAt: p.expiresAt } : {}),
    ...(h.decided
      ? {
          decision: h.decided.decision,
          by: h.decided.by,
          ...(h.decided.reason ? { reason: h.decided.reason } : {}),
          ...((h.decided.path ?? h.via) ? { path: h.decided.path ?? h.via } : {}),
          ...(h.decided.rule ? { rule: h.decided.rule } : {}),
        }
      : {}),
    ...(h.outcome ? { outcome: h.outcome } : {}),
    ...(spec.consoleUrl ? { consoleUrl: `${spec.consoleUrl.replace(/\/+$/, '')}/#/runs/${encodeURIComponent(run.workflowId)}` } : {}),
  };
  return spec.targets
    .filter((t) => t.events.includes(h.type))
    .map((t) => ({ target: t.name, id, payload: t.includeArgs ? { ...base, ...argsField(p.args) } : base }));
}

function argsField(args: JsonValue): Pick<ApprovalNotification, 'args' | 'argsOmitted'> {
  return jsonBytes(args) > NOTIFICATION_ARGS_BYTES ? { argsOmitted: 'too_large' } : { args };
}
