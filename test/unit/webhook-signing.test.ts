/** Standard Webhooks signing and verification: signatures, secret rotation, timestamp tolerance, tampering. */
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signWebhook, verifyWebhook } from '../../src/integrations/webhooks/sign';

const secret = `whsec_${Buffer.from('a secret of 32 bytes, more or less').toString('base64')}`;
const body = '{"type":"approval.requested","callId":"call_1_0"}';
const now = 1_700_000_000_000;

describe('signWebhook / verifyWebhook', () => {
  it('signs id.timestamp.body with HMAC-SHA256 of the decoded whsec_ key, as the spec says', () => {
    const h = signWebhook(body, 'wf:3', now / 1000, [secret]);
    const key = Buffer.from(secret.slice(6), 'base64');
    const expected = createHmac('sha256', key)
      .update(`wf:3.${now / 1000}.${body}`)
      .digest('base64');
    expect(h).toEqual({ 'webhook-id': 'wf:3', 'webhook-timestamp': String(now / 1000), 'webhook-signature': `v1,${expected}` });
    expect(verifyWebhook(body, h, secret, { now })).toEqual({ valid: true, id: 'wf:3', timestamp: now / 1000 });
  });

  it('refuses a tampered body, another id, a wrong secret and missing headers', () => {
    const h = signWebhook(body, 'wf:3', now / 1000, [secret]);
    expect(verifyWebhook(body.replace('call_1_0', 'call_1_1'), h, secret, { now })).toEqual({ valid: false, reason: 'signature' });
    expect(verifyWebhook(body, { ...h, 'webhook-id': 'wf:4' }, secret, { now })).toEqual({ valid: false, reason: 'signature' });
    expect(verifyWebhook(body, h, 'another secret', { now })).toEqual({ valid: false, reason: 'signature' });
    expect(verifyWebhook(body, { 'webhook-id': 'wf:3' }, secret, { now })).toEqual({ valid: false, reason: 'missing_headers' });
  });

  it('rotation: several secrets sign, either one verifies; a receiver may hold several too', () => {
    const h = signWebhook(body, 'id', now / 1000, ['new-secret', secret]);
    expect(h['webhook-signature'].split(' ')).toHaveLength(2);
    expect(verifyWebhook(body, h, 'new-secret', { now }).valid).toBe(true);
    expect(verifyWebhook(body, h, secret, { now }).valid).toBe(true);
    const old = signWebhook(body, 'id', now / 1000, [secret]);
    expect(verifyWebhook(body, old, ['new-secret', secret], { now }).valid).toBe(true);
    expect(verifyWebhook(body, old, ['new-secret'], { now }).valid).toBe(false);
  });

  it('tolerance: a timestamp more than toleranceSec away (either way) is refused', () => {
    const h = signWebhook(body, 'id', now / 1000, [secret]);
    expect(verifyWebhook(body, h, secret, { now: now + 299_000 }).valid).toBe(true);
    expect(verifyWebhook(body, h, secret, { now: now + 301_000 })).toEqual({ valid: false, reason: 'timestamp' });
    expect(verifyWebhook(body, h, secret, { now: now - 301_000 })).toEqual({ valid: false, reason: 'timestamp' });
    expect(verifyWebhook(body, h, secret, { now: now + 30_000, toleranceSec: 10 })).toEqual({ valid: false, reason: 'timestamp' });
  });

  it('reads Fetch Headers and Node header records (any case)', () => {
    const h = signWebhook(body, 'id', now / 1000, [secret]);
    expect(verifyWebhook(body, new Headers({ ...h }), secret, { now }).valid).toBe(true);
    const upper = {
      'Webhook-Id': h['webhook-id'],
      'Webhook-Timestamp': h['webhook-timestamp'],
      'Webhook-Signature': h['webhook-signature'],
    };
    expect(verifyWebhook(body, upper, secret, { now }).valid).toBe(true);
  });
});
