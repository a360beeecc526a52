/**
 * `durable-agent/webhooks`: the receiving side of approval notifications. `verifyWebhook` checks a
 * delivery's Standard Webhooks signature; `ApprovalNotification` is its JSON body. Loads nothing but
 * `node:crypto` (no Temporal, no peer): use it in the service that receives the webhooks.
 *
 * @example
 * ```ts
 * import { verifyWebhook } from 'durable-agent/webhooks';
 *
 * const check = verifyWebhook(rawBody, request.headers, [process.env.APPROVALS_WEBHOOK_SECRET ?? '']);
 * if (!check.valid) throw new Error(`refused: ${check.reason}`);
 * ```
 *
 * @module durable-agent/webhooks
 */
export { signWebhook, verifyWebhook, WEBHOOK_TOLERANCE_SEC } from '../integrations/webhooks/sign';
export type {
  HeaderGetter,
  InvalidWebhook,
  ReceivedHeaders,
  ValidWebhook,
  VerifyWebhookOptions,
  WebhookHeaders,
  WebhookVerification,
} from '../integrations/webhooks/sign';
export type { ApprovalNotification, NotificationEventType } from '../core/approvals/notifications';
