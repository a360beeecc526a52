/**
 * Standard Webhooks signatures (https://www.standardwebhooks.com): HMAC-SHA256 over
 * `<webhook-id>.<webhook-timestamp>.<body>`, base64, sent as `webhook-signature: v1,<signature>` — one
 * per secret, space-separated, while a secret is rotated. Node's `crypto` only: no Temporal, no peer.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** The three Standard Webhooks headers of a signed delivery. */
export type WebhookHeaders = {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
};

/** Default tolerance (seconds) between a delivery's `webhook-timestamp` and the receiver's clock. */
export const WEBHOOK_TOLERANCE_SEC = 300;

/**
 * The HMAC key of a secret: a `whsec_<base64>` secret (the Standard Webhooks form) is its decoded bytes,
 * any other string its UTF-8 bytes.
 */
function keyOf(secret: string): Buffer {
  return secret.startsWith('whsec_') ? Buffer.from(secret.slice(6), 'base64') : Buffer.from(secret, 'utf8');
}

function signature(secret: string, id: string, timestamp: string, body: string): string {
  return createHmac('sha256', keyOf(secret)).update(`${id}.${timestamp}.${body}`).digest('base64');
}

/**
 * The headers that sign `body` (the exact bytes sent) as delivery `id` at `timestamp` (Unix seconds),
 * one `v1` signature per secret.
 *
 * @throws {Error} when no secret is given.
 */
export function signWebhook(body: string, id: string, timestamp: number, secrets: readonly string[]): WebhookHeaders {
  if (secrets.length === 0) throw new Error('signWebhook: no secret to sign with');
  const ts = String(Math.floor(timestamp));
  return {
    'webhook-id': id,
    'webhook-timestamp': ts,
    'webhook-signature': secrets.map((s) => `v1,${signature(s, id, ts, body)}`).join(' '),
  };
}

/** Headers read by name, as a Fetch `Headers` is. */
export interface HeaderGetter {
  /** The header's value, or null when it is absent. */
  get(name: string): string | null;
}

/** Request headers as a receiver has them: a Fetch `Headers`, or Node's `IncomingHttpHeaders`-like record. */
export type ReceivedHeaders = HeaderGetter | Readonly<Record<string, string | readonly string[] | undefined>>;

/** Options of {@link verifyWebhook}. */
export interface VerifyWebhookOptions {
  /** Largest difference (seconds) between `webhook-timestamp` and now. Default {@link WEBHOOK_TOLERANCE_SEC}. */
  toleranceSec?: number;
  /** The receiver's clock (ms since the epoch). Default `Date.now()`. */
  now?: number;
}

/** A delivery whose signature matched one of the secrets. */
export interface ValidWebhook {
  valid: true;
  /** `webhook-id`: the same across retries of one notification (deduplicate on it). */
  id: string;
  /** `webhook-timestamp` (Unix seconds) of this attempt. */
  timestamp: number;
}

/** A delivery refused, and why (a header missing, the timestamp out of tolerance, no signature matched). */
export interface InvalidWebhook {
  valid: false;
  reason: 'missing_headers' | 'timestamp' | 'signature';
}

/** What {@link verifyWebhook} found. */
export type WebhookVerification = ValidWebhook | InvalidWebhook;

function header(headers: ReceivedHeaders, name: string): string | undefined {
  if (typeof (headers as { get?: unknown }).get === 'function') return (headers as HeaderGetter).get(name) ?? undefined;
  const record = headers as Readonly<Record<string, string | readonly string[] | undefined>>;
  const key = Object.keys(record).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? (value as readonly string[]).join(' ') : (value as string | undefined);
}

/**
 * Check a received webhook: its `webhook-signature` holds a `v1` signature of `body` (the raw request
 * body, before any JSON parsing) made with one of `secrets` (give the old and the new one while rotating),
 * and its `webhook-timestamp` is within `toleranceSec` of now. Comparisons take constant time.
 *
 * @example
 * ```ts
 * const check = verifyWebhook(rawBody, request.headers, [process.env.APPROVALS_WEBHOOK_SECRET ?? '']);
 * if (!check.valid) return new Response(check.reason, { status: 401 });
 * ```
 */
export function verifyWebhook(
  body: string,
  headers: ReceivedHeaders,
  secrets: string | readonly string[],
  options: VerifyWebhookOptions = {},
): WebhookVerification {
  const id = header(headers, 'webhook-id');
  const ts = header(headers, 'webhook-timestamp');
  const sent = header(headers, 'webhook-signature');
  if (!id || !ts || !sent) return { valid: false, reason: 'missing_headers' };
  const timestamp = Number(ts);
  const now = Math.floor((options.now ?? Date.now()) / 1000);
  if (!/^\d+$/.test(ts) || Math.abs(now - timestamp) > (options.toleranceSec ?? WEBHOOK_TOLERANCE_SEC)) {
    return { valid: false, reason: 'timestamp' };
  }
  const offered = sent
    .split(' ')
    .filter((s) => s.startsWith('v1,'))
    .map((s) => Buffer.from(s.slice(3), 'base64'));
  for (const secret of typeof secrets === 'string' ? [secrets] : secrets) {
    if (!secret) continue;
    const expected = Buffer.from(signature(secret, id, ts, body), 'base64');
    if (offered.some((o) => o.length === expected.length && timingSafeEqual(o, expected))) return { valid: true, id, timestamp };
  }
  return { valid: false, reason: 'signature' };
}
