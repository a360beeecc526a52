/**
 * The HTTP API on the real dev server, listening on a free port, called with real `fetch`: starting runs,
 * snapshots and results, server-sent events resumed with `Last-Event-ID`, messages to a session,
 * cancellation, approvals decided by the identity of a token, auth refusals and bad requests.
 */
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../src/agents/define';
import type { AgentEvent } from '../../src/core/events/events';
import { messageText } from '../../src/core/messages/messages';
import type { Message } from '../../src/core/messages/messages';
import type { ModelRequest } from '../../src/core/output/native-output';
import type { ScriptedTurn } from '../../src/integrations/providers/scripted';
import type { HttpApi, RunView } from '../../apps/http/app';
import { createHttpApi, SNAPSHOT_WAIT_MS } from '../../apps/http/app';
import { AGENT_WORKFLOW } from '../../src/core/run/contract';
import { parseTokens } from '../../apps/http/auth';
import type { HttpErrorBody } from '../../apps/http/errors';
import type { HttpApiServer } from '../../apps/http/server';
import { serveHttpApi } from '../../apps/http/server';
import { refund } from '../replay/approval-tools';
import { ScriptedAgents } from '../helpers/agents';
import { freePort, runCli, startCli, tempHome } from '../helpers/cli-run';
import { allEvents, pollUntil } from '../helpers/events';
import type { Harness } from '../helpers/harness';
import { startHarness, testId } from '../helpers/harness';
import { parsed, readFrames } from '../helpers/sse-frames';

const ANSWER = 'Streamed over HTTP in many small pieces, resumed after a disconnect, and never shown twice.';

function lastUserText(messages: readonly Message[]): string {
  const last = [...messages].reverse().find((m) => m.role === 'user');
  return last ? messageText(last) : '';
}

/** Opened by the SSE test once it has read the tool's progress: the tool waits for it. */
const progressSeen = new Map<string, () => void>();
const slowScan = defineTool({
  name: 'slow_scan',
  description: 'Scan, reporting progress.',
  input: z.object({}),
  async execute(_args, ctx) {
    ctx.progress({ message: 'scanning', fraction: 0.4 });
    await new Promise<void>((resolve) => progressSeen.set(ctx.workflowId, resolve));
    return 'scanned';
  },
});

const S = new ScriptedAgents();
S.add('http_progress', [{ toolCalls: [{ name: 'slow_scan', args: {} }] }, { text: 'scanned' }], { tools: [slowScan] });
S.add('http_streamer', [{ text: ANSWER, stream: { chunks: 40, intervalMs: 100 } }], { tools: [] });
S.add('http_refunder', [{ toolCalls: [{ name: 'refund', args: { amount: 500 } }] }, { text: 'refunded' }], { tools: [refund] });
S.add(
  'http_chat',
  (request: ModelRequest): ScriptedTurn => {
    const facts = /<facts>\n([^]*?)\n<\/facts>/.exec(request.system ?? '')?.[1];
    return { text: `re: ${lastUserText(request.messages)}${facts ? ` (facts: ${facts})` : ''}` };
  },
  { tools: [], maxSteps: 100, layers: [{ name: 'facts' }] },
);

const TOKENS = {
  alice: `alice-${randomUUID()}`,
  bob: `bob-${randomUUID()}`,
  viewer: `viewer-${randomUUID()}`,
};
const TOKEN_CONFIG = {
  tokens: {
    [TOKENS.alice]: { identity: 'ops:alice', approve: true },
    [TOKENS.bob]: { identity: 'ops:bob', approve: true },
    [TOKENS.viewer]: { identity: 'dashboard' },
  },
};

let h: Harness;
let api: HttpApi;
let server: HttpApiServer;
const internalErrors: unknown[] = [];

beforeAll(async () => {
  h = await startHarness({ agents: S.agents, providers: { scripted: S.provider } });
  api = createHttpApi({
    client: h.client,
    auth: parseTokens(JSON.stringify(TOKEN_CONFIG), 'test tokens'),
    onError: (err) => internalErrors.push(err),
  });
  server = await serveHttpApi(api, { port: 0 });
});
afterAll(async () => {
  await server?.close();
  await h?.stop();
});

/** A request to the API with `token` (none when null). */
async function call(
  method: string,
  path: string,
  options: { token?: string | null; body?: unknown; rawBody?: string; headers?: Record<string, string> } = {},
): Promise<Response> {
  const token = options.token === undefined ? TOKENS.alice : options.token;
  const headers: Record<string, string> = { ...(token !== null ? { Authorization: `Bearer ${token}` } : {}), ...options.headers };
  let body: string | undefined;
  if (options.rawBody !== undefined || options.body !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = options.rawBody ?? JSON.stringify(options.body);
  }
  return fetch(`${server.url}${path}`, { method, headers, ...(body !== undefined ? { body } : {}) });
}

async function json<T>(res: Response): Promise<T> {
  return (await res.json()) as T;
}

/** The error of a refused request, checked to have `status`. */
async function refusal(res: Response, status: number): Promise<HttpErrorBody['error']> {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/application\/json/);
  return (JSON.parse(text) as HttpErrorBody).error;
}

async function startRun(body: Record<string, unknown>): Promise<string> {
  const res = await call('POST', '/runs', { body });
  const text = await res.text();
  expect(res.status, text).toBe(201);
  const started = JSON.parse(text) as { workflowId: string; runId: string };
  expect(started.runId).toMatch(/\S/);
  return started.workflowId;
}

async function view(id: string): Promise<RunView> {
  const res = await call('GET', `/runs/${encodeURIComponent(id)}`);
  expect(res.status).toBe(200);
  return json<RunView>(res);
}

/** Poll `GET /runs/:id` until `ok` holds (10 s at most). */
function viewUntil(id: string, ok: (v: RunView) => boolean): Promise<RunView> {
  return pollUntil(() => view(id), ok, `run ${id}`);
}

async function waitFor(what: string, ok: () => boolean | Promise<boolean>, ms = 5000): Promise<void> {
  for (const start = Date.now(); Date.now() - start < ms;) {
    if (await ok()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('HTTP API: runs and their events', () => {
  it('starts a run, streams it as server-sent events, and resumes with Last-Event-ID with no gap and no duplicate', async () => {
    const id = await startRun({ agent: 'http_streamer', input: 'stream please', workflowId: testId('http-sse') });

    // First connection: read until some deltas came, then drop the connection mid-answer.
    const first = new AbortController();
    const res1 = await fetch(`${server.url}/runs/${id}/events`, {
      headers: { Authorization: `Bearer ${TOKENS.viewer}` },
      signal: first.signal,
    });
    const part1 = await readFrames(res1, first, (_f, all) => all.filter((f) => parsed(f).type === 'delta').length >= 5);
    // The server stops reading the run once the connection is gone (promptly: the run still streams).
    await waitFor('the server to end the aborted stream', () => api.streams.open === 0, 1000);
    expect((await view(id)).status).toBe('running');

    const durable1 = part1.filter((f) => f.id !== undefined);
    expect(durable1.length).toBeGreaterThan(0);
    const lastId = durable1.at(-1)!.id!;

    // Second connection: resume after the last durable event seen.
    const res2 = await fetch(`${server.url}/runs/${id}/events`, {
      headers: { Authorization: `Bearer ${TOKENS.viewer}`, 'Last-Event-ID': lastId },
    });
    const part2 = await readFrames(res2);
    expect(parsed(part2.at(-1)!)).toMatchObject({ type: 'done', status: 'success' });

    const all = [...part1, ...part2];
    for (const f of all) {
      const e = parsed(f);
      // Durable events carry their seq as id; deltas and voided attempts carry none.
      if ('seq' in e) expect(f.id).toBe(String(e.seq));
      else expect(f.id).toBeUndefined();
    }
    expect(part1.some((f) => parsed(f).type === 'delta')).toBe(true);
    const seqs = all.filter((f) => f.id !== undefined).map((f) => Number(f.id));
    expect(seqs).toEqual(seqs.map((_, i) => i)); // 0, 1, 2, … : every durable event exactly once, in order
    const events = await allEvents(h.client.get(id));
    expect(seqs.length).toBe(events.length);
    expect(all.filter((f) => f.id !== undefined).map((f) => parsed(f))).toEqual(events);

    // ?after= on a run that has ended: the events after that seq, then the response ends.
    const res3 = await call('GET', `/runs/${id}/events?after=1`);
    const part3 = await readFrames(res3);
    expect(part3.map((f) => Number(f.id))).toEqual(events.slice(2).map((e) => e.seq));
    expect(api.streams.open).toBe(0);

    // The snapshot of an ended run comes with its result.
    const v = await view(id);
    expect(v).toMatchObject({
      workflowId: id,
      status: 'completed',
      snapshot: { agent: 'http_streamer', status: 'success' },
      result: { status: 'success', finalText: ANSWER },
    });
  });

  it("sends a running tool's progress as a live event (no id), before its result", async () => {
    const id = await startRun({ agent: 'http_progress', input: 'scan', workflowId: testId('http-progress') });
    const res = await call('GET', `/runs/${id}/events`, { token: TOKENS.viewer });
    const frames = await readFrames(res, undefined, (f) => {
      if (parsed(f).type === 'tool_progress') progressSeen.get(id)?.();
      return false;
    });
    const types = frames.map((f) => parsed(f).type);
    const progress = frames.find((f) => parsed(f).type === 'tool_progress')!;
    expect(progress.id).toBeUndefined();
    expect(parsed(progress)).toMatchObject({
      type: 'tool_progress',
      tool: 'slow_scan',
      attempt: 1,
      n: 0,
      message: 'scanning',
      fraction: 0.4,
    });
    expect(types.indexOf('tool_progress')).toBeLessThan(types.indexOf('tool_result'));
    expect(types.at(-1)).toBe('done');
  });

  it('refuses bad ids, bad cursors, bad bodies and unknown runs with JSON errors naming the field, starting nothing', async () => {
    expect(await refusal(await call('POST', '/runs', { rawBody: '{"agent": "http_streamer", ' }), 400)).toMatchObject({
      code: 'invalid_json',
    });
    expect(await refusal(await call('POST', '/runs', { body: {} }), 400)).toMatchObject({ code: 'invalid_request', field: 'agent' });
    expect(await refusal(await call('POST', '/runs', { body: { agent: 'http_streamer', input: 42 } }), 400)).toMatchObject({
      field: 'input',
    });
    expect(await refusal(await call('POST', '/runs', { body: { agent: 'http_streamer' } }), 400)).toMatchObject({ field: 'input' });
    expect(await refusal(await call('POST', '/runs', { body: [1, 2] }), 400)).toMatchObject({ code: 'invalid_request' });
    const ids = [testId('bad-budget'), testId('bad-extra'), testId('bad-policy')];
    expect(
      await refusal(
        await call('POST', '/runs', { body: { agent: 'http_streamer', input: 'x', workflowId: ids[0], budget: { maxTokens: -1 } } }),
        400,
      ),
    ).toMatchObject({ field: 'budget.maxTokens' });
    expect(
      await refusal(await call('POST', '/runs', { body: { agent: 'http_streamer', input: 'x', workflowId: ids[1], colour: 'blue' } }), 400),
    ).toMatchObject({ field: 'colour' });
    expect(
      await refusal(
        await call('POST', '/runs', { body: { agent: 'http_streamer', input: 'x', workflowId: ids[2], policy: { refund: 'maybe' } } }),
        400,
      ),
    ).toMatchObject({ field: 'policy.refund' });
    expect(
      await refusal(await call('POST', '/runs', { body: { agent: 'http_streamer', input: 'x', workflowId: 'has a space' } }), 400),
    ).toMatchObject({ field: 'workflowId' });
    expect(
      await refusal(await call('POST', '/runs', { body: { agent: 'http_streamer', input: 'x', session: { idleTimeout: 'soon' } } }), 400),
    ).toMatchObject({ field: 'session.idleTimeout' });
    // None of those started a run.
    for (const id of ids) expect(await refusal(await call('GET', `/runs/${id}`), 404)).toMatchObject({ code: 'run_not_found' });

    expect(await refusal(await call('GET', '/runs/bad%20id'), 400)).toMatchObject({ field: 'id' });
    expect(await refusal(await call('GET', `/runs/${'x'.repeat(300)}`), 400)).toMatchObject({ field: 'id' });
    expect(await refusal(await call('GET', '/runs/no-such-run-anywhere'), 404)).toMatchObject({ code: 'run_not_found', field: 'id' });
    expect(await refusal(await call('GET', '/runs/no-such-run-anywhere/events'), 404)).toMatchObject({ code: 'run_not_found' });
    expect(await refusal(await call('POST', '/runs/no-such-run-anywhere/cancel'), 404)).toMatchObject({ code: 'run_not_found' });
    expect(await refusal(await call('POST', '/runs/no-such-run-anywhere/messages', { body: { text: 'hi' } }), 404)).toMatchObject({
      code: 'run_not_found',
    });
    expect(await refusal(await call('GET', '/runs/x/events?after=-1'), 400)).toMatchObject({ field: 'after' });
    expect(await refusal(await call('GET', '/runs/x/events', { headers: { 'Last-Event-ID': 'abc' } }), 400)).toMatchObject({
      field: 'Last-Event-ID',
    });
    expect(await refusal(await call('GET', '/nothing/here'), 404)).toMatchObject({ code: 'not_found' });
    expect(internalErrors).toEqual([]);
  });

  it('answers GET /runs/:id of a running run no worker serves without waiting for a worker, and says so', async () => {
    const id = testId('no-worker');
    // Started on a task queue nobody polls: the workflow exists, no worker will ever answer its queries.
    await h.temporal.workflow.start(AGENT_WORKFLOW, {
      taskQueue: testId('nobody'),
      workflowId: id,
      args: [{ agent: 'http_streamer', prompt: 'hi' }],
    });
    try {
      const t = Date.now();
      const res = await call('GET', `/runs/${id}`);
      expect(res.status).toBe(200);
      const view = (await res.json()) as { status: string; snapshot?: unknown; note?: string };
      expect(Date.now() - t).toBeLessThan(SNAPSHOT_WAIT_MS + 3_000);
      expect(view).toMatchObject({ status: 'running', note: expect.stringMatching(/No worker answered within \d+ ms/) });
      expect(view.snapshot).toBeUndefined();
    } finally {
      await h.temporal.workflow.getHandle(id).terminate('test over');
    }
  });

  it('refuses requests without a known bearer token (401), never echoing the token', async () => {
    const none = await call('GET', '/approvals', { token: null });
    expect(none.headers.get('www-authenticate')).toBe('Bearer');
    expect(await refusal(none, 401)).toMatchObject({ code: 'unauthorized', field: 'Authorization' });
    const guess = `guess-${randomUUID()}`;
    const wrong = await call('POST', '/runs', { token: guess, body: { agent: 'http_streamer', input: 'x' } });
    const text = await wrong.clone().text();
    expect(await refusal(wrong, 401)).toMatchObject({ code: 'unauthorized' });
    expect(text).not.toContain(guess);
    expect(
      await refusal(await call('GET', '/runs/x', { headers: { Authorization: `Basic ${TOKENS.alice}` }, token: null }), 401),
    ).toMatchObject({ code: 'unauthorized' });
  });
});

describe('HTTP API: sessions, cancellation, approvals', () => {
  it('sends messages to a session as the token identity, refuses bad ones with the run unchanged, and cancels it', async () => {
    const id = await startRun({ agent: 'http_chat', input: 'hello', session: true, workflowId: testId('http-chat') });
    await viewUntil(id, (v) => v.snapshot?.status === 'awaiting_message');
    const before = await allEvents(h.client.get(id));

    expect(await refusal(await call('POST', `/runs/${id}/messages`, { body: { text: 5 } }), 400)).toMatchObject({ field: 'text' });
    expect(await refusal(await call('POST', `/runs/${id}/messages`, { body: { text: '   ' } }), 400)).toMatchObject({ field: 'text' });
    expect(await refusal(await call('POST', `/runs/${id}/messages`, { body: { text: 'hi', by: 'user:mallory' } }), 400)).toMatchObject({
      field: 'by',
    });
    expect(await refusal(await call('POST', `/runs/${id}/messages`, { rawBody: 'text=hi' }), 400)).toMatchObject({ code: 'invalid_json' });
    const unchanged = await view(id);
    expect(unchanged.snapshot).toMatchObject({ turn: 1, queuedMessages: 0, status: 'awaiting_message' });
    expect(await allEvents(h.client.get(id))).toEqual(before);

    // Only the run's starter (or an admin) may message it: the viewer did not start it.
    expect(
      await refusal(await call('POST', `/runs/${id}/messages`, { token: TOKENS.viewer, body: { text: 'and in Lyon?' } }), 403),
    ).toMatchObject({ code: 'forbidden' });
    expect(await allEvents(h.client.get(id))).toEqual(before);
    const sent = await call('POST', `/runs/${id}/messages`, { body: { text: 'and in Lyon?' } });
    expect(sent.status).toBe(200);
    expect(await json(sent)).toMatchObject({ turn: 2 });
    await viewUntil(id, (v) => v.snapshot?.status === 'awaiting_message' && v.snapshot.turn === 2);
    const events = await allEvents(h.client.get(id));
    expect(events.find((e): e is Extract<AgentEvent, { type: 'user_message' }> => e.type === 'user_message' && e.turn === 2)).toMatchObject(
      { text: 'and in Lyon?', by: 'ops:alice' },
    );
    expect(events.some((e) => e.type === 'text' && e.text === 're: and in Lyon?')).toBe(true);

    // A message may set the agent's prompt layers; a name the agent does not declare is refused, nothing recorded.
    expect(
      await refusal(await call('POST', `/runs/${id}/messages`, { body: { text: 'x', context: { notes: 'no such layer' } } }), 409),
    ).toMatchObject({ code: 'message_refused', message: expect.stringContaining('notes') });
    expect(await refusal(await call('POST', `/runs/${id}/messages`, { body: { text: 'x', context: { facts: 5 } } }), 400)).toMatchObject({
      field: expect.stringContaining('context'),
    });
    const withFacts = await call('POST', `/runs/${id}/messages`, { body: { text: 'where?', context: { facts: 'the user is in Lyon' } } });
    expect(withFacts.status).toBe(200);
    await viewUntil(id, (v) => v.snapshot?.status === 'awaiting_message' && v.snapshot.turn === 3);
    expect((await allEvents(h.client.get(id))).some((e) => e.type === 'text' && e.text === 're: where? (facts: the user is in Lyon)')).toBe(
      true,
    );

    const cancelled = await call('POST', `/runs/${id}/cancel`);
    expect(cancelled.status).toBe(202);
    const ended = await viewUntil(id, (v) => v.status !== 'running');
    expect(ended.result).toMatchObject({ status: 'cancelled' });
    expect(await refusal(await call('POST', `/runs/${id}/cancel`), 409)).toMatchObject({ code: 'run_ended' });
    expect(await refusal(await call('POST', `/runs/${id}/messages`, { body: { text: 'still there?' } }), 409)).toMatchObject({
      code: 'run_ended',
    });
  });

  it('lists pending approvals and decides them as the token identity: 403 for tokens that may not approve and approvers the tool refuses', async () => {
    const id = await startRun({ agent: 'http_refunder', input: 'refund order 42', workflowId: testId('http-approve') });
    let pending: Array<{ callId: string; tool: string; approvers?: string[] }> = [];
    await waitFor(
      'the run to be listed as waiting for approval',
      async () => {
        const res = await call('GET', '/approvals', { token: TOKENS.viewer });
        expect(res.status).toBe(200);
        const { runs } = await json<{ runs: Array<{ workflowId: string; agent?: string; pending: typeof pending }> }>(res);
        pending = runs.find((r) => r.workflowId === id && r.agent === 'http_refunder')?.pending ?? [];
        return pending.length > 0;
      },
      15_000,
    );
    expect(pending).toMatchObject([{ tool: 'refund', approvers: ['ops:alice'] }]);
    const callId = pending[0]!.callId;
    const path = `/runs/${id}/approvals/${callId}`;

    // A token not allowed to approve.
    expect(await refusal(await call('POST', path, { token: TOKENS.viewer, body: { decision: 'approve' } }), 403)).toMatchObject({
      code: 'forbidden',
    });
    expect(await refusal(await call('POST', path, { token: null, body: { decision: 'approve' } }), 401)).toMatchObject({
      code: 'unauthorized',
    });
    // The approver comes from the token, never the body; bad bodies name the field.
    expect(await refusal(await call('POST', path, { body: { decision: 'approve', by: 'ops:alice' } }), 400)).toMatchObject({ field: 'by' });
    expect(await refusal(await call('POST', path, { body: { decision: 'maybe' } }), 400)).toMatchObject({ field: 'decision' });
    expect(await refusal(await call('POST', path, { body: { decision: 'approve', scope: 'everything' } }), 400)).toMatchObject({
      field: 'scope',
    });
    expect(await refusal(await call('POST', `/runs/${id}/approvals/bad%09call`, { body: { decision: 'approve' } }), 400)).toMatchObject({
      field: 'callId',
    });
    // A token that may approve, but not this tool: the run refuses it.
    const bob = await refusal(await call('POST', path, { token: TOKENS.bob, body: { decision: 'approve' } }), 403);
    expect(bob).toMatchObject({ code: 'approval_refused' });
    expect(bob.message).toContain('ops:bob may not decide');
    // Nothing of that reached the run.
    const still = await view(id);
    expect(still.snapshot?.pendingApprovals).toMatchObject([{ callId }]);
    expect((await allEvents(h.client.get(id))).some((e) => e.type === 'approval_decided')).toBe(false);

    const ok = await call('POST', path, { body: { decision: 'approve', reason: 'checked the order' } });
    expect(ok.status).toBe(200);
    expect(await json(ok)).toEqual({ callId, tool: 'refund', decision: 'approve', by: 'ops:alice', applied: [callId] });
    const ended = await viewUntil(id, (v) => v.status !== 'running');
    // The scripted model has no price: the run's cost is unknown (null), not $0.
    expect(ended.result).toMatchObject({ status: 'success', finalText: 'refunded', costUsd: null, report: { costUsd: null } });
    const decided = (await allEvents(h.client.get(id))).filter((e) => e.type === 'approval_decided');
    expect(decided).toMatchObject([{ callId, decision: 'approve', by: 'ops:alice', reason: 'checked the order', via: 'update' }]);
    expect(await refusal(await call('POST', path, { body: { decision: 'approve' } }), 409)).toMatchObject({
      code: 'run_ended',
      status: 'completed',
      message: `run "${id}" has already ended (completed)`,
    });
    expect(internalErrors).toEqual([]);
  });
});

describe('durable-agent serve', () => {
  it('refuses to start without tokens, and serves the API with the tokens of its file', async () => {
    const home = tempHome();
    const none = await runCli(['serve', '--address', inject('temporalAddress')], { home, env: { DURABLE_AGENT_HTTP_TOKENS: '' } });
    expect(none.code).not.toBe(0);
    expect(none.stderr).toContain('no bearer tokens configured');

    const file = join(home, 'tokens.json');
    writeFileSync(file, JSON.stringify(TOKEN_CONFIG));
    const port = await freePort();
    const cli = startCli(
      ['serve', '--address', inject('temporalAddress'), '--task-queue', h.taskQueue, '--http-port', String(port), '--tokens', file],
      { home },
    );
    try {
      await cli.waitFor('Press Ctrl-C to stop.');
      expect(cli.stdout()).toContain(`http://127.0.0.1:${port}`);
      expect(cli.stdout()).toContain(`Console:           http://127.0.0.1:${port}/console/`);
      const denied = await fetch(`http://127.0.0.1:${port}/approvals`);
      expect(denied.status).toBe(401);
      const id = testId('http-cli');
      const started = await fetch(`http://127.0.0.1:${port}/runs`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${TOKENS.viewer}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ agent: 'http_chat', input: 'over the CLI', workflowId: id }),
      });
      expect(started.status).toBe(201);
      expect(await h.client.get(id).result()).toMatchObject({ status: 'success', finalText: 're: over the CLI' });
    } finally {
      cli.child.kill('SIGTERM');
    }
    const result = await cli.done;
    expect(result.code).toBe(0);
    for (const token of Object.values(TOKENS)) expect(result.stdout + result.stderr).not.toContain(token);
  });
});
