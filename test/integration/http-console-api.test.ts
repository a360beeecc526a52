/**
 * The HTTP API routes of the web console on the real dev server, called with real `fetch`: `/me`, the run
 * list and its filters, run reports, the approval inbox with context and `mayDecide`, its live event
 * stream, and the console's static files (no token, no traversal, a clear answer while not built).
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ListedRun, RunReportView } from '../../src/client';
import type { HttpApi } from '../../apps/http/app';
import { createHttpApi } from '../../apps/http/app';
import { parseTokens } from '../../apps/http/auth';
import { CONSOLE_NOT_BUILT } from '../../apps/http/console-static';
import type { HttpErrorBody } from '../../apps/http/errors';
import type { InboxView } from '../../apps/http/approval-inbox';
import type { HttpApiServer } from '../../apps/http/server';
import { serveHttpApi } from '../../apps/http/server';
import { refund } from '../replay/approval-tools';
import { ScriptedAgents } from '../helpers/agents';
import { resultWithin, waitForPending } from '../helpers/events';
import type { Harness } from '../helpers/harness';
import { startHarness, testId } from '../helpers/harness';
import type { Frame } from '../helpers/sse-frames';
import { readFrames } from '../helpers/sse-frames';

const S = new ScriptedAgents();
const LONG = 'x'.repeat(900);
S.add(
  'hc_refunder',
  [{ text: `Order 42 was charged twice. ${LONG}`, toolCalls: [{ name: 'refund', args: { amount: 500 } }] }, { text: 'refunded' }],
  { tools: [refund] },
);
S.add('hc_plain', [{ text: 'plain answer' }], { tools: [] });

const TOKENS = { alice: `alice-${randomUUID()}`, bob: `bob-${randomUUID()}`, viewer: `viewer-${randomUUID()}` };
const AUTH = parseTokens(
  JSON.stringify({
    tokens: {
      [TOKENS.alice]: { identity: 'ops:alice', approve: true },
      [TOKENS.bob]: { identity: 'ops:bob', approve: true },
      [TOKENS.viewer]: { identity: 'dashboard' },
    },
  }),
  'test tokens',
);

let h: Harness;
let api: HttpApi;
let server: HttpApiServer;
let consoleDir: string;
const internalErrors: unknown[] = [];

beforeAll(async () => {
  h = await startHarness({ agents: S.agents, providers: { scripted: S.provider } });
  consoleDir = mkdtempSync(join(tmpdir(), 'console-dist-'));
  api = createHttpApi({ client: h.client, auth: AUTH, consoleDir, onError: (err) => internalErrors.push(err) });
  server = await serveHttpApi(api, { port: 0 });
});
afterAll(async () => {
  await server?.close();
  await h?.stop();
  if (consoleDir) rmSync(consoleDir, { recursive: true, force: true });
});

function call(path: string, token: string | null = TOKENS.alice, init: RequestInit = {}): Promise<Response> {
  return fetch(`${server.url}${path}`, { ...init, headers: token ? { Authorization: `Bearer ${token}` } : {} });
}

async function ok<T>(res: Response): Promise<T> {
  const text = await res.text();
  expect(res.status, text).toBe(200);
  return JSON.parse(text) as T;
}

async function refusal(res: Response, status: number): Promise<HttpErrorBody['error']> {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  return (JSON.parse(text) as HttpErrorBody).error;
}

async function until<T>(what: string, read: () => Promise<T>, done: (v: T) => boolean, ms = 15_000): Promise<T> {
  let last: T | undefined;
  for (const start = Date.now(); Date.now() - start < ms;) {
    last = await read();
    if (done(last)) return last;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}: ${JSON.stringify(last)}`);
}

describe('HTTP API for the console: caller, runs, reports', () => {
  it('GET /me answers the token caller', async () => {
    expect(await ok(await call('/me'))).toEqual({
      identity: 'ops:alice',
      approve: true,
      permissions: ['read', 'start', 'message', 'cancel', 'decide'],
    });
    expect(await ok(await call('/me', TOKENS.viewer))).toEqual({
      identity: 'dashboard',
      approve: false,
      permissions: ['read', 'start', 'message', 'cancel'],
    });
    expect(await refusal(await call('/me', null), 401)).toMatchObject({ code: 'unauthorized' });
  });

  it('GET /runs lists runs newest first with the filters, and refuses bad ones naming the parameter', async () => {
    const first = await h.client.start('hc_plain', { input: 'one', workflowId: testId('hc-plain') });
    await resultWithin(first);
    const second = await h.client.start('hc_plain', { input: 'two', workflowId: testId('hc-plain') });
    const result = await resultWithin(second);
    const listed = await until(
      'both runs listed as ended',
      async () => (await ok<{ runs: ListedRun[] }>(await call('/runs?agent=hc_plain&limit=100'))).runs,
      (runs) => [first, second].every((r) => runs.some((l) => l.workflowId === r.workflowId && l.status === 'success')),
    );
    expect(listed.every((r) => r.agent === 'hc_plain')).toBe(true);
    const ids = listed.map((r) => r.workflowId);
    expect(ids.indexOf(second.workflowId)).toBeLessThan(ids.indexOf(first.workflowId));
    expect(listed.find((r) => r.workflowId === second.workflowId)).toMatchObject({
      status: 'success',
      steps: result.steps,
      runId: expect.any(String),
      startedAt: expect.any(String),
      closedAt: expect.any(String),
    });
    const one = await ok<{ runs: ListedRun[] }>(await call('/runs?agent=hc_plain&status=success&since=1h&limit=1'));
    expect(one.runs).toHaveLength(1);
    expect((await ok<{ runs: ListedRun[] }>(await call('/runs?agent=hc_plain&status=max_steps'))).runs).toEqual([]);

    expect(await refusal(await call('/runs?status=finished'), 400)).toMatchObject({
      code: 'invalid_request',
      field: 'status',
      message: expect.stringContaining('use one of: running, awaiting_approval'),
    });
    expect(await refusal(await call('/runs?since=soon'), 400)).toMatchObject({ field: 'since' });
    expect(await refusal(await call(`/runs?agent=${encodeURIComponent("x' OR 1")}`), 400)).toMatchObject({ field: 'agent' });
    expect(await refusal(await call('/runs?limit=0'), 400)).toMatchObject({ field: 'limit' });
    expect(await refusal(await call('/runs?limit=ten'), 400)).toMatchObject({ field: 'limit' });
    expect(await refusal(await call('/runs?colour=red'), 400)).toMatchObject({ field: 'colour' });
  });

  it('GET /runs/:id/report: the report of an ended run, what is known of a running one, 404 for none', async () => {
    const plain = await h.client.start('hc_plain', { input: 'report me', workflowId: testId('hc-report') });
    const result = await resultWithin(plain);
    const ended = await ok<RunReportView>(await call(`/runs/${plain.workflowId}/report`, TOKENS.viewer));
    expect(ended).toMatchObject({ ended: true, status: 'success', finalText: 'plain answer', steps: 1 });
    expect(ended).toMatchObject({ report: result.report });

    const waiting = await h.client.start('hc_refunder', { input: 'refund order 41', workflowId: testId('hc-report-running') });
    try {
      await waitForPending(waiting);
      const running = await ok<RunReportView>(await call(`/runs/${waiting.workflowId}/report`));
      expect(running).toMatchObject({ ended: false, status: 'awaiting_approval', step: 1, usage: { inputTokens: expect.any(Number) } });
      expect(running).not.toHaveProperty('report');
    } finally {
      await waiting.cancel();
    }
    expect(await refusal(await call(`/runs/no-such-run-${randomUUID()}/report`), 404)).toMatchObject({ code: 'run_not_found' });
  });
});

describe('HTTP API for the console: the approval inbox', () => {
  it('GET /approvals gives each run the context of its calls and says who may decide; /approvals/events drops a call decided elsewhere within a second', async () => {
    const run = await h.client.start('hc_refunder', { input: 'Please refund order 42', workflowId: testId('hc-inbox') });
    const [pending] = await waitForPending(run);
    const mine = (v: InboxView) => v.runs.find((r) => r.workflowId === run.workflowId);
    const seen = await until(
      'the run in the inbox',
      async () => ok<InboxView>(await call('/approvals')),
      (v) => Boolean(mine(v)),
    );
    const entry = mine(seen)!;
    expect(entry.pending).toMatchObject([
      {
        callId: pending!.callId,
        tool: 'refund',
        args: { amount: 500 },
        approvers: ['ops:alice'],
        requestedAt: expect.any(String),
        mayDecide: true,
      },
    ]);
    expect(entry.context[0]).toEqual({ role: 'user', text: 'Please refund order 42' });
    expect(entry.context[1]!.role).toBe('assistant');
    expect(entry.context[1]!.text.startsWith('Order 42 was charged twice.')).toBe(true);
    expect(entry.context[1]!.text.length).toBeLessThanOrEqual(500);
    expect(entry.context.length).toBeLessThanOrEqual(6);
    // bob may approve, but not this tool; the viewer may approve nothing.
    expect(mine(await ok<InboxView>(await call('/approvals', TOKENS.bob)))?.pending[0]?.mayDecide).toBe(false);
    expect(mine(await ok<InboxView>(await call('/approvals', TOKENS.viewer)))?.pending[0]?.mayDecide).toBe(false);

    // The live inbox: an event with the call at connect, then one without it soon after a decision made through the client.
    const controller = new AbortController();
    const res = await fetch(`${server.url}/approvals/events`, {
      headers: { Authorization: `Bearer ${TOKENS.viewer}` },
      signal: controller.signal,
    });
    const timeout = setTimeout(() => controller.abort(), 10_000); // fail fast rather than hang
    let decidedAt = 0;
    let goneAfter = -1;
    const frames = await readFrames(res, controller, (f: Frame, all) => {
      const view = JSON.parse(f.data) as InboxView;
      if (all.length === 1) {
        expect(f.event).toBe('inbox');
        expect(mine(view)?.pending[0]).toMatchObject({ callId: pending!.callId, mayDecide: false });
        decidedAt = Date.now();
        void run.decide({ callId: pending!.callId, decision: 'deny', by: 'ops:alice', reason: 'not today' });
        return false;
      }
      if (mine(view)) return false;
      goneAfter = Date.now() - decidedAt;
      return true;
    });
    clearTimeout(timeout);
    expect(frames.every((f) => f.event === 'inbox')).toBe(true);
    expect(goneAfter).toBeGreaterThanOrEqual(0);
    expect(goneAfter).toBeLessThan(1_500);
    await until(
      'the stream and its poller to stop',
      async () => ({ open: api.streams.open, polling: api.inbox.running }),
      (s) => s.open === 0 && !s.polling,
      3_000,
    );
    await resultWithin(run);
    expect(internalErrors).toEqual([]);
  });

  it('/approvals/events needs a token', async () => {
    expect(await refusal(await call('/approvals/events', null), 401)).toMatchObject({ code: 'unauthorized' });
  });
});

/** A GET with the path sent as is (fetch would normalise `..`). */
function rawGet(path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const url = new URL(server.url);
    const req = request({ host: url.hostname, port: url.port, path, method: 'GET' }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('HTTP API for the console: its static files', () => {
  it('says the assets are not built while console/dist/index.html is missing, then serves them without a token', async () => {
    const missing = await call('/console/', null);
    expect(missing.status).toBe(404);
    expect(await missing.text()).toBe(CONSOLE_NOT_BUILT);
    expect(CONSOLE_NOT_BUILT).toContain('npm run build:console');

    mkdirSync(join(consoleDir, 'assets'));
    writeFileSync(join(consoleDir, 'index.html'), '<!doctype html><title>console</title>');
    writeFileSync(join(consoleDir, 'assets', 'app.js'), 'console.log(1)');
    writeFileSync(join(consoleDir, 'assets', 'app.css'), 'body{}');
    writeFileSync(join(consoleDir, '..', `secret-${process.pid}.txt`), 'TOP-SECRET-CONTENT');

    const root = await fetch(`${server.url}/`, { redirect: 'manual' });
    expect(root.status).toBe(302);
    expect(root.headers.get('location')).toBe('/console/');
    const index = await call('/console/', null);
    expect(index.status).toBe(200);
    expect(index.headers.get('content-type')).toMatch(/^text\/html/);
    expect(index.headers.get('cache-control')).toBe('no-cache');
    expect(await index.text()).toContain('<title>console</title>');
    const js = await call('/console/assets/app.js', null);
    expect([js.status, js.headers.get('content-type')]).toEqual([200, 'text/javascript; charset=utf-8']);
    expect((await call('/console/assets/app.css', null)).headers.get('content-type')).toMatch(/^text\/css/);
    expect((await call('/console/nothing.js', null)).status).toBe(404);

    for (const path of [
      `/console/../secret-${process.pid}.txt`,
      `/console/%2e%2e/secret-${process.pid}.txt`,
      `/console/assets/%2e%2e%2f%2e%2e%2fsecret-${process.pid}.txt`,
      '/console/..%2f..%2fpackage.json',
    ]) {
      const r = await rawGet(path);
      expect(r.body, path).not.toContain('TOP-SECRET');
      expect(r.status, path).not.toBe(200);
    }
    // Data routes still need a token.
    expect((await call('/runs', null)).status).toBe(401);
    rmSync(join(consoleDir, '..', `secret-${process.pid}.txt`), { force: true });
  });
});
