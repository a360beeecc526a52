/**
 * One delivery attempt against a real local HTTP server: 2xx delivers; 4xx (but 408, 429) is final; 5xx,
 * a dropped connection and a timeout are retried; no failure names the URL. And what runs record of the
 * worker option (names and events only), which refuses incomplete webhooks.
 */
import type { IncomingHttpHeaders, Server } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliverWebhook, notificationSecrets, notifySpecOf, WebhookDeliveryError } from '../../src/integrations/webhooks/deliver';
import type { WebhookTarget } from '../../src/integrations/webhooks/deliver';
import { verifyWebhook } from '../../src/integrations/webhooks/sign';

let server: Server;
let base: string;
const seen: Array<{ path: string; body: string; headers: IncomingHttpHeaders }> = [];
beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      seen.push({ path: req.url ?? '', body, headers: req.headers });
      const status = Number(/\/status\/(\d+)/.exec(req.url ?? '')?.[1] ?? 200);
      if (req.url === '/drop') return void req.socket.destroy();
      if (req.url === '/hang') return; // never answers
      res.writeHead(status).end('the answer body, never read into errors');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});

const target = (path: string): WebhookTarget => ({
  name: 'ops',
  url: `${base}${path}`,
  secrets: ['new-secret', 'old-secret'],
  events: ['approval.requested'],
});

async function failure(path: string, timeoutMs?: number): Promise<WebhookDeliveryError> {
  const err = await deliverWebhook(target(path), 'id-1', '{}', timeoutMs).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(WebhookDeliveryError);
  expect((err as Error).message).not.toContain(base);
  expect((err as Error).message).not.toContain('127.0.0.1');
  return err as WebhookDeliveryError;
}

describe('deliverWebhook', () => {
  it('POSTs the body signed with every secret (either verifies)', async () => {
    await deliverWebhook(target('/status/204'), 'wf:r:call_1_0:approval.requested', '{"a":1}');
    const got = seen.at(-1)!;
    expect(got.body).toBe('{"a":1}');
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.headers['webhook-id']).toBe('wf:r:call_1_0:approval.requested');
    expect(verifyWebhook(got.body, got.headers, 'old-secret').valid).toBe(true);
    expect(verifyWebhook(got.body, got.headers, 'new-secret').valid).toBe(true);
  });

  it.each([
    [400, false],
    [404, false],
    [408, true],
    [429, true],
    [500, true],
    [503, true],
  ])('HTTP %i fails, retryable %s, naming the target and the status only', async (status, retryable) => {
    const err = await failure(`/status/${status}`);
    expect(err.message).toBe(`webhook "ops": HTTP ${status}`);
    expect(err.retryable).toBe(retryable);
  });

  it('a dropped connection, a refused one and a timeout are retryable', async () => {
    expect(await failure('/drop')).toMatchObject({ retryable: true, message: expect.stringMatching(/^webhook "ops": connection failed/) });
    expect(await failure('/hang', 200)).toMatchObject({ retryable: true, message: 'webhook "ops": no answer within 200 ms' });
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const err = await deliverWebhook({ ...target(''), url: `http://127.0.0.1:${port}/x` }, 'id', '{}').catch(
      (e: unknown) => e as WebhookDeliveryError,
    );
    expect(err).toMatchObject({ retryable: true, message: 'webhook "ops": connection failed (ECONNREFUSED)' });
  });
});

describe('notifySpecOf', () => {
  const ok: WebhookTarget = {
    name: 'ops',
    url: 'https://hooks.example/x?token=abc',
    secret: 's3cret',
    events: ['approval.decided'],
    includeArgs: true,
  };

  it('records names, events and flags: never a URL or a secret', () => {
    const spec = notifySpecOf({ webhooks: [ok], consoleUrl: 'https://console.example' });
    expect(spec).toEqual({
      targets: [{ name: 'ops', events: ['approval.decided'], includeArgs: true }],
      consoleUrl: 'https://console.example',
    });
    expect(JSON.stringify(spec)).not.toMatch(/hooks\.example|s3cret|token/);
    expect(notificationSecrets({ webhooks: [ok] })).toEqual(['https://hooks.example/x?token=abc', 's3cret']);
    expect(notifySpecOf(undefined)).toBeUndefined();
  });

  it('refuses a webhook without a secret, a URL or a name of its own, or with an unknown event', () => {
    expect(() => notifySpecOf({ webhooks: [{ ...ok, secret: '' }] })).toThrow(/no secret/);
    expect(() => notifySpecOf({ webhooks: [{ ...ok, url: '' }] })).toThrow(/no url/);
    expect(() => notifySpecOf({ webhooks: [ok, ok] })).toThrow(/name of its own/);
    expect(() => notifySpecOf({ webhooks: [{ ...ok, events: ['approval.maybe' as 'approval.decided'] }] })).toThrow(
      /unknown events approval.maybe/,
    );
  });
});
