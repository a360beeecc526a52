/**
 * Permissions per token on the HTTP API, on the real dev server with real `fetch`: every route checks its
 * permission; message and cancel act only on the caller's own runs (the starter recorded in the run's memo)
 * unless it holds `admin`; a refusal is 403 naming the missing permission and leaves the run untouched
 * (still running, nothing queued, not one more event in its history); `/metrics` needs `metrics`; every
 * answer carries the security headers.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunView } from '../../apps/http/app';
import { parseTokens } from '../../apps/http/auth';
import type { HttpApiServer } from '../../apps/http/server';
import { STARTED_BY_MEMO } from '../../src/core/run/definition';
import type { ModelRequest } from '../../src/core/output/native-output';
import type { ScriptedTurn } from '../../src/integrations/providers/scripted';
import { refund } from '../replay/approval-tools';
import { ScriptedAgents } from '../helpers/agents';
import { allEvents, pollUntil, waitForPending } from '../helpers/events';
import type { Harness } from '../helpers/harness';
import type { ServedApi } from '../helpers/http-api';
import { serveTestApi } from '../helpers/http-api';
import { testId } from '../helpers/harness';

const S = new ScriptedAgents();
S.add('perm_chat', (_request: ModelRequest): ScriptedTurn => ({ text: 'noted' }), { tools: [], maxSteps: 100 });
S.add('perm_refunder', [{ toolCalls: [{ name: 'refund', args: { amount: 500 } }] }, { text: 'refunded' }], { tools: [refund] });

const TOKENS = {
  alice: `alice-${randomUUID()}`,
  bob: `bob-${randomUUID()}`,
  dashboard: `dashboard-${randomUUID()}`,
  root: `root-${randomUUID()}`,
  scraper: `scraper-${randomUUID()}`,
};
const AUTH = parseTokens(
  JSON.stringify({
    tokens: {
      [TOKENS.alice]: { identity: 'ops:alice', approve: true },
      [TOKENS.bob]: { identity: 'ops:bob' },
      [TOKENS.dashboard]: { identity: 'dashboard', permissions: ['read'] },
      [TOKENS.root]: { identity: 'ops:root', permissions: ['admin'] },
      [TOKENS.scraper]: { identity: 'prometheus', permissions: ['metrics'] },
    },
  }),
  'test tokens',
);

let served: ServedApi;
let h: Harness;
let server: HttpApiServer;

beforeAll(async () => {
  served = await serveTestApi({ agents: S.agents, providers: { scripted: S.provider } }, AUTH);
  ({ h, server } = served);
});
afterAll(async () => {
  await served?.stop();
});

async function call(method: string, path: string, token: string, body?: unknown): Promise<Response> {
  return fetch(`${server.url}${path}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
}

/** A 403 naming `missing`. */
async function forbidden(res: Response, missing: string): Promise<void> {
  const text = await res.text();
  expect(res.status, text).toBe(403);
  expect(res.headers.get('content-type')).toMatch(/application\/json/);
  const body = JSON.parse(text) as { error: { code: string; message: string }; missing: string };
  expect(body).toMatchObject({ error: { code: 'forbidden' }, missing });
  expect(body.error.message).toContain(missing);
}

async function view(id: string): Promise<RunView> {
  const res = await call('GET', `/runs/${id}`, TOKENS.alice);
  expect(res.status).toBe(200);
  return (await res.json()) as RunView;
}

/** Poll `GET /runs/:id` until `ok` holds (10 s at most). */
function viewUntil(id: string, ok: (v: RunView) => boolean): Promise<RunView> {
  return pollUntil(() => view(id), ok, `run ${id}`);
}

async function historyLength(id: string): Promise<number> {
  return (await h.temporal.workflow.getHandle(id).fetchHistory()).events?.length ?? 0;
}

describe('HTTP API permissions', () => {
  it('records who started a run, and refuses message and cancel from tokens without the permission or not the starter, leaving the run untouched', async () => {
    const res = await call('POST', '/runs', TOKENS.alice, {
      agent: 'perm_chat',
      input: 'hello',
      session: true,
      workflowId: testId('perm-own'),
    });
    expect(res.status).toBe(201);
    const { workflowId: id } = (await res.json()) as { workflowId: string };
    expect((await h.temporal.workflow.getHandle(id).describe()).memo).toMatchObject({ [STARTED_BY_MEMO]: 'ops:alice' });
    await viewUntil(id, (v) => v.snapshot?.status === 'awaiting_message');
    const events = await allEvents(h.client.get(id));
    const history = await historyLength(id);

    await forbidden(await call('POST', `/runs/${id}/cancel`, TOKENS.dashboard), 'cancel');
    await forbidden(await call('POST', `/runs/${id}/messages`, TOKENS.dashboard, { text: 'from the dashboard' }), 'message');
    await forbidden(await call('POST', `/runs/${id}/cancel`, TOKENS.bob), 'admin');
    await forbidden(await call('POST', `/runs/${id}/messages`, TOKENS.bob, { text: 'from bob' }), 'admin');
    await forbidden(await call('POST', `/runs/${id}/cancel`, TOKENS.scraper), 'cancel');

    const still = await view(id);
    expect(still).toMatchObject({ status: 'running', snapshot: { status: 'awaiting_message', turn: 1, queuedMessages: 0 } });
    expect(await allEvents(h.client.get(id))).toEqual(events);
    expect(await historyLength(id)).toBe(history);

    // The starter may message and cancel its own run.
    const sent = await call('POST', `/runs/${id}/messages`, TOKENS.alice, { text: 'and again' });
    expect(sent.status, await sent.clone().text()).toBe(200);
    await viewUntil(id, (v) => v.snapshot?.status === 'awaiting_message' && v.snapshot.turn === 2);
    expect((await call('POST', `/runs/${id}/cancel`, TOKENS.alice)).status).toBe(202);
    expect((await viewUntil(id, (v) => v.status !== 'running')).result).toMatchObject({ status: 'cancelled' });
  });

  it('lets only admin cancel or message a run with no recorded starter, and a run another identity started', async () => {
    const unrecorded = await h.client.start('perm_chat', { input: 'hi', session: true, workflowId: testId('perm-unrecorded') });
    await viewUntil(unrecorded.workflowId, (v) => v.snapshot?.status === 'awaiting_message');
    const history = await historyLength(unrecorded.workflowId);
    await forbidden(await call('POST', `/runs/${unrecorded.workflowId}/messages`, TOKENS.alice, { text: 'mine?' }), 'admin');
    await forbidden(await call('POST', `/runs/${unrecorded.workflowId}/cancel`, TOKENS.alice), 'admin');
    expect(await historyLength(unrecorded.workflowId)).toBe(history);
    expect((await call('POST', `/runs/${unrecorded.workflowId}/messages`, TOKENS.root, { text: 'from root' })).status).toBe(200);
    expect((await call('POST', `/runs/${unrecorded.workflowId}/cancel`, TOKENS.root)).status).toBe(202);
    expect(await unrecorded.result()).toMatchObject({ status: 'cancelled' });

    // The client records a starter it is given.
    const bobs = await h.client.start('perm_chat', { input: 'hi', session: true, workflowId: testId('perm-bob'), startedBy: 'ops:bob' });
    expect((await bobs.handle.describe()).memo).toMatchObject({ [STARTED_BY_MEMO]: 'ops:bob' });
    await forbidden(await call('POST', `/runs/${bobs.workflowId}/cancel`, TOKENS.alice), 'admin');
    expect((await call('POST', `/runs/${bobs.workflowId}/cancel`, TOKENS.bob)).status).toBe(202);
    expect(await bobs.result()).toMatchObject({ status: 'cancelled' });
  });

  it("ends a session with POST /runs/:id/end: the message permission, on the caller's own runs unless admin", async () => {
    const res = await call('POST', '/runs', TOKENS.alice, {
      agent: 'perm_chat',
      input: 'hello',
      session: true,
      workflowId: testId('perm-end'),
    });
    const { workflowId: id } = (await res.json()) as { workflowId: string };
    await viewUntil(id, (v) => v.snapshot?.status === 'awaiting_message');
    const history = await historyLength(id);
    await forbidden(await call('POST', `/runs/${id}/end`, TOKENS.dashboard), 'message');
    await forbidden(await call('POST', `/runs/${id}/end`, TOKENS.bob), 'admin');
    expect(await historyLength(id)).toBe(history);
    expect((await view(id)).status).toBe('running');
    const ended = await call('POST', `/runs/${id}/end`, TOKENS.alice);
    expect(ended.status, await ended.clone().text()).toBe(202);
    expect(await ended.json()).toEqual({ workflowId: id, endRequested: true });
    expect((await viewUntil(id, (v) => v.status !== 'running')).result).toMatchObject({ status: 'success', finalText: 'noted' });
    expect((await call('POST', `/runs/${id}/end`, TOKENS.alice)).status).toBe(409);
    expect((await call('POST', '/runs/no-such-run-anywhere/end', TOKENS.alice)).status).toBe(404);
  });

  it('checks read, start, decide and metrics on their routes; /me lists the permissions', async () => {
    expect(await (await call('GET', '/me', TOKENS.alice)).json()).toEqual({
      identity: 'ops:alice',
      approve: true,
      permissions: ['read', 'start', 'message', 'cancel', 'decide'],
    });
    expect(await (await call('GET', '/me', TOKENS.dashboard)).json()).toEqual({
      identity: 'dashboard',
      approve: false,
      permissions: ['read'],
    });
    expect(await (await call('GET', '/me', TOKENS.root)).json()).toEqual({ identity: 'ops:root', approve: true, permissions: ['admin'] });

    const workflowId = testId('perm-start');
    await forbidden(await call('POST', '/runs', TOKENS.dashboard, { agent: 'perm_chat', input: 'x', workflowId }), 'start');
    await forbidden(await call('POST', '/runs', TOKENS.scraper, { agent: 'perm_chat', input: 'x', workflowId }), 'start');
    expect((await call('GET', `/runs/${workflowId}`, TOKENS.alice)).status).toBe(404); // nothing started

    for (const path of [
      '/runs',
      `/runs/${workflowId}`,
      `/runs/${workflowId}/events`,
      `/runs/${workflowId}/report`,
      '/approvals',
      '/approvals/events',
    ]) {
      await forbidden(await call('GET', path, TOKENS.scraper), 'read');
    }
    await forbidden(await call('GET', '/metrics', TOKENS.alice), 'metrics');
    await forbidden(await call('GET', '/metrics', TOKENS.dashboard), 'metrics');
    const scraped = await call('GET', '/metrics', TOKENS.scraper);
    expect(scraped.status).toBe(200);
    expect(await scraped.text()).toContain('durable_agent_runs');
    expect((await call('GET', '/metrics', TOKENS.root)).status).toBe(200);

    const run = await h.client.start('perm_refunder', { input: 'refund order 42', workflowId: testId('perm-decide') });
    const [pending] = await waitForPending(run);
    const history = await historyLength(run.workflowId);
    await forbidden(
      await call('POST', `/runs/${run.workflowId}/approvals/${pending!.callId}`, TOKENS.dashboard, { decision: 'approve' }),
      'decide',
    );
    await forbidden(
      await call('POST', `/runs/${run.workflowId}/approvals/${pending!.callId}`, TOKENS.bob, { decision: 'approve' }),
      'decide',
    );
    expect(await historyLength(run.workflowId)).toBe(history);
    expect((await run.pendingApprovals()).map((p) => p.callId)).toEqual([pending!.callId]);
    const decided = await call('POST', `/runs/${run.workflowId}/approvals/${pending!.callId}`, TOKENS.alice, { decision: 'approve' });
    expect(decided.status, await decided.clone().text()).toBe(200);
    expect(await run.result()).toMatchObject({ status: 'success' });
  });

  it('sends the security headers on API, error and console answers', async () => {
    for (const res of [
      await call('GET', '/me', TOKENS.alice),
      await call('GET', '/runs', TOKENS.scraper),
      await fetch(`${server.url}/runs`),
      await fetch(`${server.url}/console/`),
      await fetch(`${server.url}/console/app.js`),
    ]) {
      expect(res.headers.get('content-security-policy'), res.url).toMatch(/default-src 'self'/);
      expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      expect(res.headers.get('content-security-policy')).not.toContain('unsafe-inline');
      expect(res.headers.get('x-frame-options')).toBe('DENY');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('referrer-policy')).toBe('no-referrer');
      await res.body?.cancel();
    }
    // A stream too.
    const stop = new AbortController();
    const sse = await fetch(`${server.url}/approvals/events`, {
      headers: { Authorization: `Bearer ${TOKENS.alice}` },
      signal: stop.signal,
    });
    expect(sse.headers.get('content-type')).toMatch(/text\/event-stream/);
    expect(sse.headers.get('content-security-policy')).toMatch(/default-src 'self'/);
    expect(sse.headers.get('x-frame-options')).toBe('DENY');
    stop.abort();
  });
});
