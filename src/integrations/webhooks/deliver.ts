/**
 * One delivery attempt of a signed webhook: POST the JSON body with the Standard Webhooks headers,
 * within a timeout. Failures say what happened (HTTP status, timeout, connection failure) and never
 * the URL or the secret: they are recorded in history.
 */
import type { NotificationEventType, NotifyRetrySpec, NotifySpec } from '../../core/approvals/notifications';
import { NOTIFICATION_EVENT_TYPES } from '../../core/approvals/notifications';
import { signWebhook } from './sign';

/** A webhook the worker notifies (its URL and secrets stay in the worker: runs know only its name). */
export interface WebhookTarget {
  /** Its name, as runs and `notification_failed` events name it. */
  name: string;
  /** Where notifications are POSTed (a secret too: Slack and Teams URLs carry their token). */
  url: string;
  /** The signing secret (`whsec_<base64>`, or any string: its UTF-8 bytes). */
  secret?: string;
  /** Several signing secrets, each signing every delivery (while a secret is rotated): the new one and the old. */
  secrets?: readonly string[];
  /** The notifications it receives. */
  events: readonly NotificationEventType[];
  /** Send the call's arguments (redacted, at most 4 KiB of JSON). Default false. */
  includeArgs?: boolean;
}

/** Why a delivery attempt failed; `retryable` false for a refusal retrying cannot change (4xx but 408 and 429). */
export class WebhookDeliveryError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
    this.name = 'WebhookDeliveryError';
  }
}

/** Default timeout (ms) of one delivery attempt. */
export const WEBHOOK_TIMEOUT_MS = 10_000;

/** The signing secrets of `target` (`secrets`, else `secret`). */
export function secretsOf(target: WebhookTarget): string[] {
  return [...(target.secrets ?? []), ...(target.secret !== undefined && !target.secrets ? [target.secret] : [])].filter(
    (s) => s.length > 0,
  );
}

/**
 * POST `body` to `target`, signed as delivery `id` at the current time.
 *
 * @throws {WebhookDeliveryError} on a status other than 2xx, a timeout or a connection failure (the
 * message names the target, never its URL).
 */
export async function deliverWebhook(target: WebhookTarget, id: string, body: string, timeoutMs = WEBHOOK_TIMEOUT_MS): Promise<void> {
  const headers = signWebhook(body, id, Date.now() / 1000, secretsOf(target));
  let response: Response;
  try {
    response = await fetch(target.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body,
      signal: AbortSignal.timeout(timeoutMs),
      redirect: 'manual',
    });
  } catch (err) {
    const name = err instanceof Error ? err.name : '';
    if (name === 'TimeoutError' || name === 'AbortError') {
      throw new WebhookDeliveryError(`webhook "${target.name}": no answer within ${timeoutMs} ms`, true);
    }
    const code = (err as { cause?: { code?: unknown } }).cause?.code;
    throw new WebhookDeliveryError(
      `webhook "${target.name}": connection failed${typeof code === 'string' && /^[A-Z_]+$/.test(code) ? ` (${code})` : ''}`,
      true,
    );
  }
  // The answer's body is not read into any message (it may echo the request); just released.
  await response.body?.cancel().catch(() => undefined);
  if (response.status >= 200 && response.status < 300) return;
  const retryable = response.status < 400 || response.status >= 500 || response.status === 408 || response.status === 429;
  throw new WebhookDeliveryError(`webhook "${target.name}": HTTP ${response.status}`, retryable);
}

/** A worker's approval notifications (worker option `notifications`). */
export interface NotificationsOptions {
  /** The webhooks notified (each with its own events). */
  webhooks: readonly WebhookTarget[];
  /** The console's base URL: notifications link to the run's page (`<consoleUrl>/#/runs/<id>`). */
  consoleUrl?: string;
  /** How deliveries are retried. Default: 10 attempts, 2 s growing to at most 5 minutes apart. */
  retry?: NotifyRetrySpec;
}

/**
 * What runs record of `options` (`AgentSpec.notify`): target names, events and flags, never a URL or a secret.
 *
 * @throws {Error} on a webhook without a name, URL or secret, or two with one name.
 */
export function notifySpecOf(options: NotificationsOptions | undefined): NotifySpec | undefined {
  if (!options || options.webhooks.length === 0) return undefined;
  const names = new Set<string>();
  for (const t of options.webhooks) {
    if (!t.name || names.has(t.name)) throw new Error(`notifications: every webhook needs a name of its own (got "${t.name}")`);
    names.add(t.name);
    if (!t.url) throw new Error(`notifications: webhook "${t.name}" has no url`);
    if (secretsOf(t).length === 0) throw new Error(`notifications: webhook "${t.name}" has no secret`);
    const unknown = t.events.filter((e) => !NOTIFICATION_EVENT_TYPES.includes(e));
    if (unknown.length) throw new Error(`notifications: webhook "${t.name}" names unknown events ${unknown.join(', ')}`);
  }
  return {
    targets: options.webhooks.map((t) => ({ name: t.name, events: [...t.events], ...(t.includeArgs ? { includeArgs: true } : {}) })),
    ...(options.consoleUrl ? { consoleUrl: options.consoleUrl } : {}),
    ...(options.retry ? { retry: { ...options.retry } } : {}),
  };
}

/** The secret values of `options` (URLs and signing secrets), for the worker's redaction. */
export function notificationSecrets(options: NotificationsOptions | undefined): string[] {
  return (options?.webhooks ?? []).flatMap((t) => [t.url, ...secretsOf(t)]);
}
