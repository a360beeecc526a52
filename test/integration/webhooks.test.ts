/**
 * Approval notifications on the real dev server: a local HTTP server receives signed webhooks (checked
 * with `verifyWebhook`); a failing webhook never changes the run; a run that closes while a delivery is
 * in flight hands it to a child that outlives it; the webhook's URL and secret never reach history.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { AgentRun } from '../../src/client';
import { defineTool } from '../../src/agents/define';
import type { ApprovalNotification } from '../../src/core/approvals/notifications';
import type { AgentEvent } from '../../src/core/events/events';
import { verifyWebhook } from '../../src/integrations/webhooks/sign';
import { ScriptedAgents } from '../helpers/agents';
import { echo } from '../helpers/tools';
import type { Harness } from '../helpers/harness';
import { startHarness, testId } from '../helpers/harness';

const SECRET = `whsec_${Buffer.from('webhook test secret, 32 bytes!!').toString('base64')}`;

/** What the receiver answers: 200, 500 always, a dropped connection, or 200 after `SLOW_MS` for decisions. */
let mode: 'ok' | 'fail' | 'reset' | 'slow' = 'ok';
const SLOW_MS = 1_500;
interface Received {
  body: string;
  headers: IncomingHttpHeaders;
  payload: ApprovalNotification;
  status: number;
}
const received: Received[] = [];
const waiters: Array<() => void> = [];

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const body = Buffer.concat(chunks).toString('utf8');
    const payload = JSON.parse(body) as ApprovalNotification;
    const answer = (status: number) => {
      received.push({ body, headers: req.headers, payload, status });
      for (const w of waiters.splice(0)) w();
      res.writeHead(status).end();
    };
    if (mode === 'fail') answer(500);
    else if (mode === 'reset') {
      received.push({ body, headers: req.headers, payload, status: 0 });
      for (const w of waiters.splice(0)) w();
      req.socket.destroy();
    } else if (mode === 'slow' && payload.type === 'approval.decided') setTimeout(() => answer(200), SLOW_MS);
    else answer(200);
  });
});

/** Resolves once `predicate` holds for what the server received (or fails after `ms`). */
function receivedWhen(predicate: (r: Received[]) => boolean, ms = 15_000): Promise<Received[]> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not received in time: ${JSON.stringify(received.map((r) => r.payload))}`)), ms);
    const check = () => {
      if (predicate(received)) {
        clearTimeout(timer);
        resolve(received);
      } else waiters.push(check);
    };
    check();
  });
}

const deploy = defineTool({
  name: 'deploy',
  description: 'Deploy a service',
  input: z.object({ service: z.string() }),
  needsApproval: true,
  approvers: ['ops:alice'],
  execute: ({ service }) => `deployed ${service}`,
});
const S = new ScriptedAgents();
S.add('notified', [{ toolCalls: [{ name: 'deploy', args: { service: 'api' } }] }, { text: 'finished' }], { tools: [deploy] });
// A deploy, then echo steps: the history grows long enough to continue as new a few steps after the decision.
S.add(
  'continued',
  [
    { toolCalls: [{ name: 'deploy', args: { service: 'db' } }] },
    ...[2, 3, 4, 5, 6, 7].map((n) => ({ toolCalls: [{ name: 'echo', args: { text: `step ${n}` } }] })),
    { text: 'continued and finished' },
  ],
  { tools: [deploy, echo], continueAsNewAfterEvents: 50 },
);

let h: Harness;
let url: string;
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/approvals`;
  h = await startHarness({
    agents: S.agents,
    providers: { scripted: S.provider },
    notifications: {
      webhooks: [{ name: 'ops', url, secret: SECRET, events: ['approval.requested', 'approval.decided'], includeArgs: true }],
      consoleUrl: 'https://console.example/',
      retry: { maximumAttempts: 2, initialIntervalMs: 200, maximumIntervalMs: 200 },
    },
  });
});
afterAll(async () => {
  await h?.stop();
  server.close();
});

async function waitForPending(run: AgentRun): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if ((await run.pendingApprovals()).length) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no pending approval for ${run.workflowId}`);
}

const of = (run: AgentRun) => (r: Received) => r.payload.workflowId === run.workflowId;
// A decision's update id is its own in each run.
const shape = (events: AgentEvent[]) =>
  events
    .filter((e) => e.type !== 'notification_failed')
    .map((e) => ({
      ...e,
      seq: undefined,
      at: undefined,
      latencyMs: undefined,
      ...(e.type === 'approval_decided' ? { updateId: undefined } : {}),
    }));

/** Approve the run's call once `ready` holds; its result and events. */
async function approved(name: string, ready: (r: Received[]) => boolean) {
  const run = await h.client.start('notified', { input: 'deploy', workflowId: testId(name) });
  await waitForPending(run);
  await receivedWhen(ready);
  await run.decide({ callId: 'call_1_0', decision: 'approve', by: 'ops:alice', reason: 'ok' });
  const result = await run.result();
  return { run, result, events: (await run.readEvents(0)).events };
}

/** An execution's history as JSON, its payloads (base64 there) decoded. */
async function decodedHistory(handle: { fetchHistory(): Promise<unknown> }): Promise<string> {
  return JSON.stringify(await handle.fetchHistory()).replace(/"data":"([A-Za-z0-9+/=]*)"/g, (_m, b64: string) =>
    JSON.stringify(Buffer.from(b64, 'base64').toString('utf8')),
  );
}

let baseline: Awaited<ReturnType<typeof approved>>;

describe('approval webhooks', () => {
  it('requested and decided arrive signed (verifyWebhook accepts them; a tampered body fails), with the run, args and a console link', async () => {
    mode = 'ok';
    baseline = await approved('hook-ok', (r) => r.some((x) => x.payload.type === 'approval.requested'));
    const { run } = baseline;
    const mine = await receivedWhen((r) => r.filter(of(run)).length >= 2).then((r) => r.filter(of(run)));
    expect(mine.map((r) => r.payload.type)).toEqual(['approval.requested', 'approval.decided']);
    for (const r of mine) {
      expect(verifyWebhook(r.body, r.headers, SECRET)).toMatchObject({ valid: true, id: r.payload.id });
      expect(verifyWebhook(r.body.replace('"api"', '"db"'), r.headers, SECRET)).toEqual({ valid: false, reason: 'signature' });
      expect(verifyWebhook(r.body, r.headers, 'another secret').valid).toBe(false);
    }
    expect(mine[0]!.payload).toMatchObject({
      workflowId: run.workflowId,
      agent: 'notified',
      callId: 'call_1_0',
      tool: 'deploy',
      args: { service: 'api' },
      approvers: ['ops:alice'],
      consoleUrl: `https://console.example/#/runs/${encodeURIComponent(run.workflowId)}`,
    });
    expect(mine[1]!.payload).toMatchObject({
      decision: 'approve',
      by: 'ops:alice',
      reason: 'ok',
      path: 'sdk',
      approvers: ['ops:alice'],
    });
    expect(mine[0]!.payload.id).not.toBe(mine[1]!.payload.id);
    expect(baseline.result.status).toBe('success');
    expect(baseline.events.some((e) => e.type === 'notification_failed')).toBe(false);
  });

  it.each(['fail', 'reset'] as const)(
    'a webhook that always fails (%s) changes nothing in the run but a notification_failed event',
    async (failing) => {
      mode = failing;
      const before = received.length;
      // Both attempts of the request's notification fail before the decision.
      const { run, result, events } = await approved(
        `hook-${failing}`,
        (r) => r.slice(before).filter((x) => x.payload.type === 'approval.requested').length >= 2,
      );
      expect(result.status).toBe(baseline.result.status);
      expect(result.finalText).toBe(baseline.result.finalText);
      expect(result.messages).toEqual(baseline.result.messages);
      expect(shape(events)).toEqual(shape(baseline.events));
      const failed = events.filter((e) => e.type === 'notification_failed');
      expect(failed[0]).toMatchObject({
        kind: 'approval.requested',
        callId: 'call_1_0',
        target: 'ops',
        error: failing === 'fail' ? 'webhook "ops": HTTP 500' : expect.stringMatching(/^webhook "ops": connection failed/),
      });
      expect(JSON.stringify(events)).not.toContain(url);
      void run;
    },
  );

  it('a run that closes while a delivery is in flight hands it to a child that outlives the run; URL and secret never reach history', async () => {
    mode = 'slow';
    const { run, result } = await approved('hook-close', (r) => r.some((x) => x.payload.type === 'approval.requested'));
    expect(result.status).toBe('success');
    // The run has closed; the decision's notification is delivered by the abandoned child.
    const child = h.temporal.workflow.getHandle(`${run.workflowId}:notifications:${result.report.runId}`);
    expect(await child.result()).toEqual({ delivered: 1, failed: [] });
    const decided = received.filter(of(run)).filter((r) => r.payload.type === 'approval.decided' && r.status === 200);
    expect(decided.length).toBeGreaterThanOrEqual(1);
    expect(new Set(decided.map((r) => r.headers['webhook-id']))).toEqual(new Set([decided[0]!.payload.id]));
    for (const r of decided) expect(verifyWebhook(r.body, r.headers, SECRET).valid).toBe(true);

    for (const handle of [run.handle, child]) {
      const history = await decodedHistory(handle);
      expect(history).toContain('approval.decided');
      expect(history).not.toContain(url);
      expect(history).not.toContain(`127.0.0.1:${(server.address() as AddressInfo).port}`);
      expect(history).not.toContain(SECRET);
      expect(history).not.toContain(SECRET.slice(6));
    }
  });

  it('a delivery in flight when the run continues as new is sent again by the next execution, with the same id', async () => {
    mode = 'slow';
    const run = await h.client.start('continued', { input: 'deploy', workflowId: testId('hook-can') });
    await waitForPending(run);
    await run.decide({ callId: 'call_1_0', decision: 'approve', by: 'ops:alice' });
    const result = await run.result();
    expect(result.status).toBe('success');
    const [decided] = await receivedWhen((r) =>
      r.some((x) => of(run)(x) && x.payload.type === 'approval.decided' && x.status === 200),
    ).then((r) => r.filter((x) => of(run)(x) && x.payload.type === 'approval.decided'));
    const raisedIn = decided!.payload.runId;
    expect(decided!.headers['webhook-id']).toBe(`${run.workflowId}:${raisedIn}:call_1_0:approval.decided`);
    expect(raisedIn).not.toBe(result.report.runId); // the run continued as new after the decision…
    // …and the execution it continued into sent it again (carried in its input), not a child of the first.
    await expect(h.temporal.workflow.getHandle(`${run.workflowId}:notifications:${raisedIn}`).describe()).rejects.toThrow(/not found/i);
    let next = result.report.runId;
    let notifyInputs: string[] = [];
    for (let i = 0; i < 10; i++) {
      const history = await h.temporal.workflow.getHandle(run.workflowId, next).fetchHistory();
      const started = history.events?.[0]?.workflowExecutionStartedEventAttributes;
      notifyInputs = (history.events ?? []).flatMap((e) => {
        const a = e.activityTaskScheduledEventAttributes;
        const data = a?.input?.payloads?.[0]?.data;
        return a?.activityType?.name === 'notify' && data ? [Buffer.from(data).toString('utf8')] : [];
      });
      if (started?.continuedExecutionRunId === raisedIn) break;
      expect(started?.continuedExecutionRunId, 'the execution the decision was made in').toBeTruthy();
      next = started!.continuedExecutionRunId!;
    }
    expect(notifyInputs.some((input) => input.includes(`"id":"${decided!.payload.id}"`))).toBe(true);
    const events = (await run.readEvents(0)).events;
    expect(events.some((e) => e.type === 'continued_as_new')).toBe(true);
  });
});
