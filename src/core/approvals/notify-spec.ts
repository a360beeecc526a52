/** What an agent's spec records of the worker's approval notifications (names, events, retry: no URL, no secret). */
/** The approval notifications a webhook can receive. */
export type NotificationEventType = 'approval.requested' | 'approval.escalated' | 'approval.decided' | 'approval.expired';

/** Every notification type, in the order a call goes through them. */
export const NOTIFICATION_EVENT_TYPES: readonly NotificationEventType[] = [
  'approval.requested',
  'approval.escalated',
  'approval.decided',
  'approval.expired',
];

/** A webhook as a run knows it: its name and what it receives (its URL and secrets stay in the worker). */
export interface NotifyTargetSpec {
  name: string;
  events: NotificationEventType[];
  /** The notifications carry the call's arguments. */
  includeArgs?: boolean;
}

/** How deliveries are retried (each attempt signed afresh, with the same `webhook-id`). */
export interface NotifyRetrySpec {
  /** Attempts in all. Default 10. */
  maximumAttempts?: number;
  /** Wait before the first retry. Default 2000. */
  initialIntervalMs?: number;
  /** Longest wait between attempts. Default 300000. */
  maximumIntervalMs?: number;
}

/** The notifications of an agent's runs, recorded in the agent's spec (`AgentSpec.notify`). */
export interface NotifySpec {
  targets: NotifyTargetSpec[];
  /** The console's base URL: notifications link to the run's page. */
  consoleUrl?: string;
  retry?: NotifyRetrySpec;
}
