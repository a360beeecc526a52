/**
 * A finished run's events are read from its recorded history with no worker at all — by the client, the
 * HTTP API and the CLI — quickly and completely; a running run with no worker says so.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Client, Connection } from '@temporalio/client';
import { AgentClient, NoWorkerError } from '../../src/client';
import type { AgentEvent } from '../../src/core/events/events';
import { createHttpApi } from '../../apps/http/app';
import { parseTokens } from '../../apps/http/auth';
import type { HttpApiServer } from '../../apps/http/server';
import { serveHttpApi } from '../../apps/http/server';
import { ScriptedAgents } from '../helpers/agents';
import { allEvents, resultWithin } from '../helpers/events';
import { startHarness, testId } from '../helpers/harness';
import { runCli, tempHome } from '../helpers/cli-run';
import { readFrames } from '../helpers/sse-frames';
import { echo } from '../helpers/tools';

const S = new ScriptedAgents();
S.add(
  'ee_echo',
  [
    { toolCalls: [{ name: 'echo', args: { text: 'one' } }] },
    { toolCalls: [{ name: 'echo', args: { text: 'two' } }] },
    { text: 'all echoed' },
  ],
  { tools: [echo] },
);

const TOKEN = `viewer-${randomUUID()}`;
let connection: Connection;
let client: AgentClient;
let server: HttpApiServer;
let taskQueue: string;
let workflowId: string;
let withWorker: AgentEvent[];

beforeAll(async () => {
  // The run ends while its worker runs; then the worker stops: nothing polls its task queue any more.
  const h = await startHarness({ agents: S.agents, providers: { scripted: S.provider } });
  taskQueue = h.taskQueue;
  const run = await h.client.start('ee_echo', { input: 'echo', workflowId: testId('ee') });
  workflowId = run.workflowId;
  expect((await resultWithin(run)).status).toBe('success');
  withWorker = await allEvents(run);
  await h.stop();
  connection = await Connection.connect({ address: inject('temporalAddress') });
  client = new AgentClient(new Client({ connection }), taskQueue);
  const api = createHttpApi({
    client,
    auth: parseTokens(JSON.stringify({ tokens: { [TOKEN]: { identity: 'dashboard' } } }), 'test tokens'),
  });
  server = await serveHttpApi(api, { port: 0 });
});
afterAll(async () => {
  await server?.close();
  await connection?.close();
});

async function within<T>(ms: number, p: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      p,
      new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`not within ${ms} ms`)), ms))),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

describe('a finished run with no worker', () => {
  it('the client reads every event (readEvents and events()) from history, quickly', async () => {
    expect(withWorker.at(-1)?.type).toBe('done');
    const run = client.get(workflowId);
    const page = await within(5000, run.readEvents(0));
    expect(page.events).toEqual(withWorker);
    expect(page.done).toBe(true);
    const read: AgentEvent[] = [];
    await within(
      5000,
      (async () => {
        for await (const e of run.events()) read.push(e);
      })(),
    );
    expect(read).toEqual(withWorker);
    // From a cursor, too.
    expect((await within(5000, run.readEvents(3, 2))).events).toEqual(withWorker.slice(3, 5));
    expect((await run.result()).status).toBe('success');
  });

  it('GET /runs/:id/events streams every event and ends', async () => {
    const res = await within(10_000, fetch(`${server.url}/runs/${workflowId}/events`, { headers: { Authorization: `Bearer ${TOKEN}` } }));
    const frames = await within(10_000, readFrames(res));
    const seqs = frames.filter((f) => f.id !== undefined).map((f) => Number(f.id));
    expect(seqs).toEqual(withWorker.map((e) => e.seq));
  });

  it('durable-agent tail prints every event and the result', { timeout: 60_000 }, async () => {
    const r = await runCli(['tail', workflowId, '--json', '--address', inject('temporalAddress'), '--task-queue', taskQueue], {
      home: tempHome(),
      timeoutMs: 40_000,
    });
    expect(r.code, r.stderr).toBe(0);
    const types = r.stdout
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => (JSON.parse(l) as { type: string }).type);
    expect(types.filter((t) => t !== 'result')).toEqual(withWorker.map((e) => e.type));
    expect(types.at(-1)).toBe('result');
  });
});

describe('its result and report with no worker', () => {
  it('durable-agent result and report, and GET /runs/:id/report, answer from history', { timeout: 60_000 }, async () => {
    const address = inject('temporalAddress');
    const result = await runCli(['result', workflowId, '--json', '--address', address, '--task-queue', taskQueue], {
      home: tempHome(),
      timeoutMs: 30_000,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ status: 'success', finalText: 'all echoed' });
    const report = await runCli(['report', workflowId, '--json', '--address', address], { home: tempHome(), timeoutMs: 30_000 });
    expect(report.code, report.stderr).toBe(0);
    const printed = JSON.parse(report.stdout) as { agent: string; workflowId: string; steps: unknown[] };
    expect(printed).toMatchObject({ agent: 'ee_echo', workflowId });
    expect(printed.steps).toHaveLength(3);
    const res = await within(10_000, fetch(`${server.url}/runs/${workflowId}/report`, { headers: { Authorization: `Bearer ${TOKEN}` } }));
    expect(await res.json()).toMatchObject({ ended: true, status: 'success', steps: 3 });
  });
});

describe('a running run with no worker', () => {
  it('readEvents says no worker polls its task queue', async () => {
    const queue = `ee-none-${randomUUID()}`;
    const run = await new AgentClient(new Client({ connection }), queue).start('ee_echo', { input: 'echo', workflowId: testId('ee-none') });
    const err = await within(
      10_000,
      run.readEvents(0).then(
        () => undefined,
        (e: unknown) => e,
      ),
    );
    expect(err).toBeInstanceOf(NoWorkerError);
    expect((err as Error).message).toContain(`no worker polls task queue "${queue}"`);
    expect((err as Error).message).toContain('which is still running');
    // A terminated run recorded no events: they too need a worker, and reading says so at once.
    await run.handle.terminate('test over');
    const ended = await within(
      10_000,
      run.readEvents(0).then(
        () => undefined,
        (e: unknown) => e,
      ),
    );
    expect(ended).toBeInstanceOf(NoWorkerError);
    expect((ended as Error).message).toContain('which ended without recording its events in history');
    await expect(
      within(
        10_000,
        (async () => {
          for await (const e of run.events()) void e;
        })(),
      ),
    ).rejects.toBeInstanceOf(NoWorkerError);
    // Over HTTP: the stream's error event says so.
    const res = await within(
      10_000,
      fetch(`${server.url}/runs/${run.workflowId}/events`, { headers: { Authorization: `Bearer ${TOKEN}` } }),
    );
    const frames = await within(10_000, readFrames(res));
    const error = frames.find((f) => f.event === 'error');
    expect(JSON.parse(error?.data ?? '{}')).toMatchObject({ error: { code: 'no_worker' } });
  });
});
