/**
 * Approval notifications (signed webhooks): which run events notify which targets, and what a
 * notification says. Pure: the run builds them from its approval events; the worker signs and sends them.
 */
import type { AgentEvent } from '../events/events';
import type { JsonObject } from '../messages/json';
import { jsonBytes } from '../messages/json';
import type { NotificationEventType, NotifySpec } from './notify-spec';

export type { NotificationEventType, NotifyRetrySpec, NotifySpec, NotifyTargetSpec } from './notify-spec';
export { NOTIFICATION_EVENT_TYPES } from './notify-spec';

/** What a webhook receives (the JSON body). */
export interface ApprovalNotification {
  type: NotificationEventType;
  /** The same as the `webhook-id` header: `<workflowId>:<event seq>`, stable across retries. */
  id: string;
  /** When the run logged the event (ISO). */
  at: string;
  workflowId: string;
  runId: string;
  agent: string;
  callId: string;
  tool: string;
  /** The call's arguments (targets with `includeArgs`; redacted; absent above {@link NOTIFICATION_ARGS_BYTES}). */
  args?: JsonObject;
  /** The arguments were left out: larger than {@link NOTIFICATION_ARGS_BYTES}. */
  argsOmitted?: 'too_large';
  /** Who may decide (empty: anyone with the right). */
  approvers: string[];
  expiresAt?: string;
  /** `approval.decided`: the decision, who made it, why. */
  decision?: string;
  by?: string;
  reason?: string;
  /** How the decision arrived (`signal`, `update`). */
  path?: string;
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

/** What the run knows of an open request, for the notifications that follow it. */
export interface RequestFacts {
  tool: string;
  args: JsonObject;
  approvers: string[];
  expiresAt?: string;
}

/** The run a notification comes from. */
export interface NotifyingRun {
  workflowId: string;
  runId: string;
  agent: string;
}

const TYPE_OF: Readonly<Record<string, NotificationEventType>> = {
  approval_requested: 'approval.requested',
  approval_escalated: 'approval.escalated',
  approval_decided: 'approval.decided',
  approval_expired: 'approval.expired',
};

/** The notification type of a run event, if it notifies. */
export function notificationType(event: { type: string }): NotificationEventType | undefined {
  return TYPE_OF[event.type];
}

/**
 * The deliveries `event` makes under `spec` (one per target receiving its type), updating `requests`
 * (what an open request said, by call id) as requests open and close.
 */
export function notificationsFor(
  event: AgentEvent,
  spec: NotifySpec,
  run: NotifyingRun,
  requests: Map<string, RequestFacts>,
): NotifyInput[] {
  const type = notificationType(event);
  if (!type) return [];
  const e = event as AgentEvent & { callId: string; tool?: string; args?: JsonObject; approvers?: string[]; expiresAt?: string };
  if (type === 'approval.requested') {
    requests.set(e.callId, {
      tool: e.tool ?? '',
      args: e.args ?? {},
      approvers: e.approvers ?? [],
      ...(e.expiresAt ? { expiresAt: e.expiresAt } : {}),
    });
  }
  const facts = requests.get(e.callId);
  // An escalation widens who may decide (the `approval_escalated` event names them in `to`).
  const to = (event as { to?: unknown }).to;
  if (type === 'approval.escalated' && facts && Array.isArray(to))
    facts.approvers = [...facts.approvers, ...to.filter((x) => typeof x === 'string')];
  if (type === 'approval.decided' || type === 'approval.expired') requests.delete(e.callId);
  const id = `${run.workflowId}:${event.seq}`;
  const base = {
    type,
    id,
    at: event.at,
    ...run,
    callId: e.callId,
    tool: e.tool ?? facts?.tool ?? '',
    approvers: facts?.approvers ?? [],
    ...(facts?.expiresAt ? { expiresAt: facts.expiresAt } : {}),
    ...decisionFields(event),
    ...(spec.consoleUrl ? { consoleUrl: `${spec.consoleUrl.replace(/\/+$/, '')}/#/runs/${encodeURIComponent(run.workflowId)}` } : {}),
  };
  return spec.targets
    .filter((t) => t.events.includes(type))
    .map((t) => ({ target: t.name, id, payload: t.includeArgs && facts ? { ...base, ...argsField(facts.args) } : base }));
}

function decisionFields(event: AgentEvent): Partial<ApprovalNotification> {
  if (event.type === 'approval_decided') {
    return { decision: event.decision, by: event.by, ...(event.reason ? { reason: event.reason } : {}), path: event.via };
  }
  if (event.type === 'approval_expired') return { outcome: event.outcome };
  return {};
}

function argsField(args: JsonObject): Pick<ApprovalNotification, 'args' | 'argsOmitted'> {
  return jsonBytes(args) > NOTIFICATION_ARGS_BYTES ? { argsOmitted: 'too_large' } : { args };
}
