/**
 * Approval notifications from a run: each approval event (requested, escalated, decided, expired) a
 * target receives becomes a `notify` activity, scheduled and never awaited — a failing webhook never
 * blocks or fails the run; once its retries are spent the run logs `notification_failed`. Deliveries
 * still pending when the execution continues as new are carried and sent again by the next one; when
 * it closes, they are handed to one `deliverNotifications` child workflow that outlives the run
 * (`ParentClosePolicy.ABANDON`). A delivery may so arrive twice: receivers deduplicate on `webhook-id`.
 */
import {
  ActivityFailure,
  CancellationScope,
  log as workflowLog,
  ParentClosePolicy,
  patched,
  proxyActivities,
  startChild,
  workflowInfo,
} from '@temporalio/workflow';
import type { ActivityOptions } from '@temporalio/workflow';
import type { ApprovalHappening, NotificationEventType, NotifyInput, NotifyRetrySpec, NotifySpec } from '../core/approvals/notifications';
import { notificationsFor } from '../core/approvals/notifications';
import type { EventLog } from '../core/events/event-log';
import type { AgentActivities } from '../core/run/contract';
import type { ApprovalDesk, ApprovalDeskEvent } from './tool-call/approval-desk';
import { notificationFailed } from '../integrations/telemetry/workflow-spans';

const TYPES: Readonly<Record<ApprovalDeskEvent['kind'], NotificationEventType>> = {
  requested: 'approval.requested',
  escalated: 'approval.escalated',
  decided: 'approval.decided',
  expired: 'approval.expired',
};

/** A desk event in the terms of `core/approvals/notifications`. */
function happening(e: ApprovalDeskEvent): ApprovalHappening {
  const base = { type: TYPES[e.kind], at: new Date().toISOString(), pending: e.pending };
  switch (e.kind) {
    case 'requested':
      return base;
    case 'escalated':
      return { ...base, to: e.to };
    case 'decided':
      return { ...base, decided: e.decided, via: e.via };
    case 'expired':
      return { ...base, outcome: e.outcome };
  }
}

/** Failure types the `notify` activity never retries. */
const NOT_RETRIED = ['NotificationRefused'];

function activityOptions(retry: NotifyRetrySpec | undefined): ActivityOptions {
  return {
    startToCloseTimeout: '15 seconds',
    retry: {
      maximumAttempts: retry?.maximumAttempts ?? 10,
      initialInterval: retry?.initialIntervalMs ?? 2_000,
      maximumInterval: retry?.maximumIntervalMs ?? 300_000,
      backoffCoefficient: 2,
      nonRetryableErrorTypes: NOT_RETRIED,
    },
  };
}

/** The message of a failed delivery (the activity's own, already redacted: it names the target, never its URL). */
function failureMessage(err: unknown): string {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  return cause instanceof Error ? cause.message : String(cause);
}

/** Input of {@link deliverNotifications}. */
export interface DeliverNotificationsInput {
  notifications: NotifyInput[];
  retry?: NotifyRetrySpec;
}

/** What {@link deliverNotifications} came to. */
export interface DeliverNotificationsResult {
  delivered: number;
  failed: Array<{ target: string; id: string; error: string }>;
}

/**
 * The notifications a run left undelivered when it closed, delivered by a workflow of their own (the
 * run's child, abandoned at its close: it goes on after the run has ended).
 */
export async function deliverNotifications(input: DeliverNotificationsInput): Promise<DeliverNotificationsResult> {
  const { notify } = proxyActivities<AgentActivities>(activityOptions(input.retry));
  const settled = await Promise.allSettled(input.notifications.map((n) => notify(n)));
  const failed: DeliverNotificationsResult['failed'] = [];
  settled.forEach((s, i) => {
    if (s.status === 'fulfilled') return;
    const n = input.notifications[i]!;
    failed.push({ target: n.target, id: n.id, error: failureMessage(s.reason) });
    notificationFailed(n.payload.agent, n.target, n.payload.type);
    workflowLog.warn('notification_failed', {
      kind: n.payload.type,
      callId: n.payload.callId,
      target: n.target,
      error: failureMessage(s.reason),
    });
  });
  return { delivered: settled.length - failed.length, failed };
}

/** A run's approval notifications: scheduled as its approval events are logged. */
export class Notifier {
  /** Deliveries scheduled and not finished, by `<id>|<target>`. */
  private readonly pending = new Map<string, NotifyInput>();
  private readonly notify: AgentActivities['notify'];
  private handedOver = false;

  private constructor(
    private readonly spec: NotifySpec,
    private readonly log: EventLog,
    private readonly agent: string,
  ) {
    this.notify = proxyActivities<AgentActivities>(activityOptions(spec.retry)).notify;
  }

  /**
   * The notifier of a run whose spec has notifications (runs described before notifications existed
   * have none, and replay without one); it sends `undelivered` (carried over at continue-as-new) at once.
   */
  static start(
    spec: NotifySpec | undefined,
    desk: ApprovalDesk,
    log: EventLog,
    agent: string,
    undelivered?: readonly NotifyInput[],
  ): Notifier | undefined {
    if (!spec || !patched('approval-notifications')) return undefined;
    const notifier = new Notifier(spec, log, agent);
    for (const n of undelivered ?? []) notifier.send(n);
    desk.onApprovalEvent((e) => {
      const info = workflowInfo();
      const run = { workflowId: info.workflowId, runId: info.runId, agent: notifier.agent };
      for (const n of notificationsFor(happening(e), spec, run)) notifier.send(n);
    });
    return notifier;
  }

  private send(n: NotifyInput): void {
    if (this.handedOver) return;
    const key = `${n.id}|${n.target}`;
    this.pending.set(key, n);
    void CancellationScope.nonCancellable(() => this.notify(n)).then(
      () => this.pending.delete(key),
      (err: unknown) => {
        this.pending.delete(key);
        if (this.handedOver) return;
        const failure = { kind: n.payload.type, callId: n.payload.callId, target: n.target, error: failureMessage(err) };
        workflowLog.warn('notification_failed', failure);
        notificationFailed(this.agent, n.target, n.payload.type);
        this.log.push({ type: 'notification_failed', ...failure });
      },
    );
  }

  /** Deliveries not finished yet (carried at continue-as-new). */
  undelivered(): NotifyInput[] {
    return [...this.pending.values()];
  }

  /**
   * The run closes: hand what is undelivered to a `deliverNotifications` child that outlives it (only its
   * start is awaited). Nothing is sent from the run after this.
   */
  async handOver(): Promise<void> {
    const notifications = this.undelivered();
    this.handedOver = true;
    if (notifications.length === 0) return;
    const info = workflowInfo();
    try {
      await CancellationScope.nonCancellable(() =>
        startChild(deliverNotifications, {
          workflowId: `${info.workflowId}:notifications:${info.runId}`,
          args: [{ notifications, ...(this.spec.retry ? { retry: this.spec.retry } : {}) }],
          parentClosePolicy: ParentClosePolicy.ABANDON,
        }),
      );
    } catch (err) {
      // The run's ending never depends on its notifications.
      workflowLog.warn('notification_failed', { kind: 'handover', target: '*', error: err instanceof Error ? err.message : String(err) });
    }
  }
}
