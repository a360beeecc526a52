/**
 * The Temporal server restarts under a streaming run that waits for a person: the server (a file-backed
 * dev server of this file's own: test/helpers/restartable-server.ts) is stopped and started again on the
 * same port and database while readers follow the run through the client API (`run.stream()`) and over
 * HTTP (server-sent events). The worker and the clients keep running across the restart; the approval is
 * decided after it; every reader gets every durable event exactly once and in order.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, Connection } from '@temporalio/client';
import type { AgentRun } from '../../src/client';
import { AgentClient } from '../../src/client';
import type { StreamEvent } from '../../src/client/live';
import { TextAccumulator } from '../../src/client/live';
import type { AgentEvent } from '../../src/core/events/events';
import { messageText } from '../../src/core/messages/messages';
import type { HttpApi } from '../../apps/http/app';
import { createHttpApi } from '../../apps/http/app';
import { parseTokens } from '../../apps/http/auth';
import type { HttpApiServer } from '../../apps/http/server';
import { serveHttpApi } from '../../apps/http/server';
import { ScriptedAgents } from '../helpers/agents';
import { allEvents, resultWithin, waitForPending } from '../helpers/events';
import type { Harness } from '../helpers/harness';
import { startHarness, testId } from '../helpers/harness';
import type { RestartableServer } from '../helpers/restartable-server';
import { restartableServer } from '../helpers/restartable-server';
import type { Frame } from '../helpers/sse-frames';
import { parsed, readFrames } from '../helpers/sse-frames';
import { collect } from '../helpers/stream';
import { deploy } from '../helpers/tools';

const BEFORE = 'Deploying the billing service once someone approves it.';
const AFTER = 'Deployed billing: approved, run and answered after the Temporal server came back.';
const S = new ScriptedAgents();
S.add(
  'restart_deployer',
  [
    { text: BEFORE, toolCalls: [{ name: 'deploy', args: { service: 'billing' } }], stream: { chunks: 10, intervalMs: 30 } },
    { text: AFTER, stream: { chunks: 12, intervalMs: 40 } },
  ],
  { tools: [deploy] },
);

const VIEWER = `viewer-${Math.random().toString(36).slice(2)}`;

let server: RestartableServer;
let h: Harness;
let api: HttpApi;
let http: HttpApiServer;
const httpErrors: unknown[] = [];

beforeAll(async () => {
  server = await restartableServer();
  h = await startHarness({ agents: S.agents, providers: { scripted: S.provider }, address: server.address });
  api = createHttpApi({
    client: h.client,
    auth: parseTokens(JSON.stringify({ tokens: { [VIEWER]: { identity: 'dashboard' } } }), 'test tokens'),
    onError: (err) => httpErrors.push(err),
  });
  http = await serveHttpApi(api, { port: 0 });
});
afterAll(async () => {
  await http?.close();
  await h?.stop();
  await server?.close();
});

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The seq after the last durable event in `events` (0 when there is none). */
function nextSeq(events: readonly StreamEvent[]): number {
  const durable = events.filter((e) => 'seq' in e);
  const last = durable.at(-1);
  return last && 'seq' in last ? last.seq + 1 : 0;
}

/** The durable events of a stream, in the order received. */
const durableOf = (events: readonly StreamEvent[]): AgentEvent[] => events.filter((e): e is AgentEvent => 'seq' in e);

/**
 * Follow `run` with `run.stream()` into `events` until `done`, re-attaching from the last cursor whenever a
 * stream ends without it (a failure goes to `failures`): what a client that outlives an outage does.
 */
async function follow(run: AgentRun, events: StreamEvent[], failures: unknown[]): Promise<number> {
  for (let attaches = 1; attaches <= 50; attaches++) {
    try {
      for await (const e of run.stream({ after: nextSeq(events) })) events.push(e);
    } catch (err) {
      failures.push(err);
    }
    if (events.at(-1)?.type === 'done') return attaches;
    await pause(200);
  }
  throw new Error(`${run.workflowId}: no done after 50 attaches; failures: ${failures.map(String).join('; ')}`);
}

/**
 * Follow the run's server-sent events into `frames` until `done`, reconnecting with `Last-Event-ID` (the
 * last id seen) whenever the response ends without it, as `EventSource` does; error frames go to `errorFrames`.
 */
async function followSse(workflowId: string, frames: Frame[], errorFrames: Frame[]): Promise<number> {
  for (let connects = 1; connects <= 50; connects++) {
    const lastId = frames.filter((f) => f.id !== undefined).at(-1)?.id;
    try {
      const res = await fetch(`${http.url}/runs/${workflowId}/events`, {
        headers: { Authorization: `Bearer ${VIEWER}`, ...(lastId !== undefined ? { 'Last-Event-ID': lastId } : {}) },
      });
      // Frames as they come (an `event: error` frame, sent when the stream fails, carries no event).
      await readFrames(res, undefined, (f) => {
        if (f.event === 'error') errorFrames.push(f);
        else frames.push(f);
        return false;
      });
    } catch (err) {
      // The HTTP server refused or dropped the request while Temporal was down: connect again.
      errorFrames.push({ event: 'refused', data: String(err) });
    }
    if (frames.length && parsed(frames.at(-1)!).type === 'done') return connects;
    await pause(200);
  }
  throw new Error(`${workflowId}: no done over SSE after 50 connections`);
}

/** Every durable event exactly once and in order (0, 1, 2, … as the run logged them), `done` last. */
function expectEveryEventOnce(durable: readonly AgentEvent[], logged: readonly AgentEvent[]): void {
  expect(durable.map((e) => e.seq)).toEqual(logged.map((_, i) => i));
  expect(durable).toEqual(logged);
  expect(durable.at(-1)).toMatchObject({ type: 'done', status: 'success' });
}

async function waitUntil(what: string, ok: () => boolean, ms = 20_000): Promise<void> {
  for (const start = Date.now(); !ok(); await pause(20)) if (Date.now() - start > ms) throw new Error(`timed out waiting for ${what}`);
}

describe('Temporal server restart', () => {
  it(
    'a streaming run waiting for approval outlives a server restart: worker and clients reconnect, every durable event once and in order',
    { timeout: 90_000 },
    async () => {
      const run = await h.client.start('restart_deployer', { input: 'deploy billing', workflowId: testId('server-restart') });
      const events: StreamEvent[] = [];
      const failures: unknown[] = [];
      const frames: Frame[] = [];
      const following = follow(run, events, failures);
      const sseErrors: Frame[] = [];
      const followingSse = followSse(run.workflowId, frames, sseErrors);

      // Mid-run: waiting for a person, both readers up to date.
      const [pending] = await waitForPending(run);
      expect(pending).toMatchObject({ callId: 'call_1_0', tool: 'deploy' });
      await waitUntil(
        'the readers to see the approval request',
        () => events.some((e) => e.type === 'approval_requested') && frames.some((f) => parsed(f).type === 'approval_requested'),
      );
      const beforeStop = nextSeq(events);

      await server.stop();
      // Down for a while: the readers' polls and the worker's polls fail (and are retried) meanwhile.
      await pause(1000);
      expect(events.at(-1)?.type).not.toBe('done');
      await server.start();
      expect(server.starts).toBe(2);

      // The worker that ran all along answers the decision (an update: it needs a worker polling again).
      const receipt = await run.decide({ callId: pending!.callId, decision: 'approve', by: 'ops:alice', reason: 'after the restart' });
      expect(receipt).toMatchObject({ callId: pending!.callId, decision: 'approve', by: 'ops:alice' });
      const result = await resultWithin(run);
      expect(result.status).toBe('success');
      expect(result.finalText).toBe(AFTER);
      const [attaches, connects] = await Promise.all([following, followingSse]);

      const logged = await allEvents(run);
      expect(logged.find((e) => e.type === 'approval_decided')).toMatchObject({ decision: 'approve', by: 'ops:alice' });
      expect(logged.length).toBeGreaterThan(beforeStop);

      // The client that followed across the restart (re-attaching from its cursor if its stream broke).
      expectEveryEventOnce(durableOf(events), logged);
      const text = new TextAccumulator();
      for (const e of events) text.push(e);
      const assistantTexts = result.messages.filter((m) => m.role === 'assistant').map((m) => messageText(m));
      expect([text.textOf(1), text.textOf(2)]).toEqual(assistantTexts);
      expect(assistantTexts).toEqual([BEFORE, AFTER]);

      // The same client re-attaching from its cursor before the outage gets the rest, nothing twice.
      const rest = await collect(run.stream({ after: beforeStop, deltas: false }));
      expect(durableOf(rest)).toEqual(logged.slice(beforeStop));

      // A fresh client, on a connection of its own made after the restart, from the start.
      const connection = await Connection.connect({ address: server.address });
      try {
        const fresh = await collect(new AgentClient(new Client({ connection }), h.taskQueue).get(run.workflowId).stream());
        expectEveryEventOnce(durableOf(fresh), logged);
      } finally {
        await connection.close();
      }

      // Over HTTP: the SSE reader (reconnecting with Last-Event-ID if its response ended) got each durable event once.
      for (const f of frames) {
        const e = parsed(f);
        if ('seq' in e) expect(f.id).toBe(String(e.seq));
      }
      expectEveryEventOnce(durableOf(frames.map(parsed)), logged);
      // And a reconnection after the restart, from the last event before the outage, gets the rest.
      const resumed = await readFrames(
        await fetch(`${http.url}/runs/${run.workflowId}/events`, {
          headers: { Authorization: `Bearer ${VIEWER}`, 'Last-Event-ID': String(beforeStop - 1) },
        }),
      );
      expect(resumed.map((f) => Number(f.id))).toEqual(logged.slice(beforeStop).map((e) => e.seq));
      expect(api.streams.open).toBe(0);

      console.log(
        `server restart: run.stream() attached ${attaches}x (${failures.map(String).join('; ') || 'no failure'}); SSE connected ${connects}x (${sseErrors.map((f) => f.data).join('; ') || 'no error'}); HTTP errors: ${httpErrors.map(String).join('; ') || 'none'}`,
      );
    },
  );
});
