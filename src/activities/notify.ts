/**
 * The `notify` activity: one approval notification to one of the worker's webhooks, signed (Standard
 * Webhooks). The run names the target; its URL and secrets stay here. The body is redacted with the
 * worker's secrets before it is signed; failures name the target and what happened, never its URL.
 */
import { ApplicationFailure } from '@temporalio/common';
import type { NotifyInput } from '../core/approvals/notifications';
import type { WebhookTarget } from '../integrations/webhooks/deliver';
import { deliverWebhook, WebhookDeliveryError } from '../integrations/webhooks/deliver';
import type { RedactorSource } from './redaction';

/** Failure type of a delivery retrying cannot help (the webhook answered 4xx, but 408 and 429; an unknown target). */
export const NOTIFY_REFUSED = 'NotificationRefused';

/** The activity, bound to the worker's webhooks. */
export function notifyActivity(targets: readonly WebhookTarget[], redact?: RedactorSource): (input: NotifyInput) => Promise<void> {
  const byName = new Map(targets.map((t) => [t.name, t]));
  return async (input) => {
    const target = byName.get(input.target);
    if (!target) {
      throw ApplicationFailure.nonRetryable(`this worker has no webhook named "${input.target}"`, NOTIFY_REFUSED);
    }
    const payload = redact ? redact().value(input.payload, true) : input.payload;
    try {
      await deliverWebhook(target, input.id, JSON.stringify(payload));
    } catch (err) {
      if (err instanceof WebhookDeliveryError) {
        throw ApplicationFailure.create({
          message: err.message,
          type: err.retryable ? 'NotificationFailed' : NOTIFY_REFUSED,
          nonRetryable: !err.retryable,
        });
      }
      throw ApplicationFailure.create({ message: `webhook "${input.target}": delivery failed`, type: 'NotificationFailed' });
    }
  };
}
