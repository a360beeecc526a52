/**
 * Tool progress (`ctx.progress`) on the real dev server: live to `run.stream()` through the heartbeat
 * transport and through Redis Streams (one worker publishing to both), in order, never in history; a
 * client attaching late sees the newest progress of the running call; a retried attempt's progress
 * replaces the failed one's. The tool waits on gates the test opens when it sees each update, so the
 * test, not sleeps, sets the timing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../src/agents/define';
import type { StreamEvent } from '../../src/client/live';
import type { ToolProgressDelta } from '../../src/core/events/stream';
import type { DeltaFeed } from '../../src/integrations/streaming/transport';
import { RedisDeltaFeed, RedisDeltaPublisher } from '../../src/integrations/streaming/redis';
import { ScriptedAgents } from '../helpers/agents';
import type { Harness } from '../helpers/harness';
import { startHarness, testId } from '../helpers/harness';
import type { RedisServer } from '../helpers/redis';
import { describeWithRedis, findRedisServer, startRedisServer } from '../helpers/redis';

/** Gates the tools wait on, by name; the test opens them. Opening one nobody waits on yet leaves it open. */
const gates = new Map<string, { promise: Promise<void>; open: () => void }>();
function gate(name: string) {
  let g = gates.get(name);
  if (!g) {
    let open!: () => void;
    const promise = new Promise<void>((resolve) => (open = resolve));
    g = { promise, open };
    gates.set(name, g);
  }
  return g;
}

const STEPS = 3;
const scan = defineTool({
  name: 'scan',
  description: 'Scan, reporting progress.',
  input: z.object({}),
  readOnly: true,
  async execute(_args, ctx) {
    for (let i = 1; i <= STEPS; i++) {
      ctx.progress({ message: `scanning ${i}`, fraction: i / (STEPS + 1), data: { files: i * 10 } });
      await gate(`${ctx.workflowId}/scanning ${i}`).promise;
    }
    return 'scanned';
  },
});
const flakyScan = defineTool({
  name: 'flaky_scan',
  description: 'Scan, failing its first attempt after some progress.',
  input: z.object({}),
  readOnly: true,
  retry: { maximumAttempts: 2, initialInterval: '50ms' },
  async execute(_args, ctx) {
    const message = `attempt ${ctx.attempt} at work`;
    ctx.progress({ message });
    await gate(`${ctx.workflowId}/${message}`).promise;
    if (ctx.attempt === 1) throw new Error('lost the disk');
    return 'scanned';
  },
});

/** A tool that heartbeats its own details once, then waits: the runtime's keep-alive beats must keep them. */
const beating = defineTool({
  name: 'beating',
  description: 'Heartbeat once, then wait.',
  input: z.object({}),
  heartbeatTimeout: '300ms', // keep-alive beats every 100 ms
  async execute(_args, ctx) {
    ctx.heartbeat({ stage: 'warming up' });
    await gate(`${ctx.workflowId}/beating`).promise;
    return 'warm';
  },
});

/** A tool reporting progress at every millisecond tick for half a second: far more than reaches clients. */
const chatty = defineTool({
  name: 'chatty',
  description: 'Report progress very often.',
  input: z.object({}),
  readOnly: true,
  async execute(_args, ctx) {
    const started = Date.now();
    let reports = 0;
    while (Date.now() - started < 500) {
      ctx.progress({ message: `tick ${++reports}`, fraction: (Date.now() - started) / 500 });
      await new Promise((r) => setTimeout(r, 1));
    }
    ctx.progress({ message: `done after ${reports} reports` });
    await gate(`${ctx.workflowId}/chatty`).promise;
    return reports;
  },
});

const S = new ScriptedAgents();
S.add('progress_chatty', [{ toolCalls: [{ name: 'chatty', args: {} }] }, { text: 'done' }], { tools: [chatty] });
S.add('progress_beating', [{ toolCalls: [{ name: 'beating', args: {} }] }, { text: 'done' }], { tools: [beating] });
S.add('progress_scanner', [{ toolCalls: [{ name: 'scan', args: {} }] }, { text: 'done' }], { tools: [scan] });
S.add('progress_flaky', [{ toolCalls: [{ name: 'flaky_scan', args: {} }] }, { text: 'done' }], { tools: [flakyScan] });

let h: Harness;
let redis: RedisServer | undefined;
let publisher: RedisDeltaPublisher | undefined;
let redisFeed: RedisDeltaFeed | undefined;
beforeAll(async () => {
  if (findRedisServer()) {
    redis = await startRedisServer();
    publisher = new RedisDeltaPublisher({ url: redis.url, ttlSeconds: 600 });
    redisFeed = new RedisDeltaFeed({ url: redis.url });
  }
  h = await startHarness({
    agents: S.agents,
    providers: { scripted: S.provider },
    ...(publisher ? { streaming: { publisher } } : {}),
  });
});
afterAll(async () => {
  for (const g of gates.values()) g.open(); // a failed test's tool must not hold the worker's shutdown
  await h?.stop();
  await publisher?.close();
  await redis?.close();
});

const progressOf = (events: StreamEvent[]) => events.filter((e): e is ToolProgressDelta => e.type === 'tool_progress');

/**
 * Follow `workflowId`'s stream with `deltas`, opening the gate of each progress update seen when `open`
 * allows it; ends with the run (`done`) or when `until` holds.
 */
async function follow(
  workflowId: string,
  deltas: DeltaFeed | undefined,
  open: (p: ToolProgressDelta) => boolean,
  until: (e: StreamEvent) => boolean = () => false,
): Promise<StreamEvent[]> {
  const events: StreamEvent[] = [];
  for await (const e of h.client.get(workflowId).stream(deltas ? { deltas } : {})) {
    events.push(e);
    if (e.type === 'tool_progress' && open(e)) gate(`${workflowId}/${e.message}`).open();
    if (until(e)) break;
  }
  return events;
}

/** The run's history as JSON text. */
async function historyText(workflowId: string): Promise<string> {
  const history = await h.temporal.workflow.getHandle(workflowId).fetchHistory();
  return JSON.stringify(history);
}

function transports(each: (name: string, feed: () => DeltaFeed | undefined) => void): void {
  describe('through the heartbeat transport', () => each('heartbeat', () => undefined));
  describeWithRedis('through Redis Streams', () => each('redis', () => redisFeed));
}

transports((name, feed) => {
  it('run.stream() shows each progress update of the running tool, in order; its result keeps the last; none is in history', async () => {
    const run = await h.client.start('progress_scanner', { input: 'scan', workflowId: testId(`progress-${name}`) });
    const events = await follow(run.workflowId, feed(), () => true);
    const progress = progressOf(events);
    expect(progress.map((p) => [p.message, p.n, p.fraction, p.data])).toEqual([
      ['scanning 1', 0, 0.25, { files: 10 }],
      ['scanning 2', 1, 0.5, { files: 20 }],
      ['scanning 3', 2, 0.75, { files: 30 }],
    ]);
    const call = events.find((e) => e.type === 'tool_call');
    expect(progress.every((p) => p.tool === 'scan' && p.attempt === 1 && call && 'callId' in call && p.callId === call.callId)).toBe(true);
    const at = (pred: (e: StreamEvent) => boolean) => events.findIndex(pred);
    // (Its step finished before it ran; over Redis, progress may come before the step_finished event is read.)
    expect(at((e) => e.type === 'tool_result')).toBeGreaterThan(events.lastIndexOf(progress.at(-1)!));
    expect(events.at(-1)).toMatchObject({ type: 'done', status: 'success' });
    // The last progress is kept with the call's result: in its tool_result event and its report entry.
    const last = { message: 'scanning 3', fraction: 0.75, data: { files: 30 } };
    expect(events.find((e) => e.type === 'tool_result')).toMatchObject({ lastProgress: last });
    expect((await run.result()).report.toolCalls.find((c) => c.tool === 'scan')?.lastProgress).toEqual(last);
    const history = await historyText(run.workflowId);
    expect(history).not.toContain('scanning 1');
    expect(history).not.toContain('scanning 2');
  });

  it('a tool reporting hundreds of times reaches clients at most every 250 ms, numbered without gaps, its last report included', async () => {
    const run = await h.client.start('progress_chatty', { input: 'scan', workflowId: testId(`progress-chatty-${name}`) });
    const events = await follow(run.workflowId, feed(), (p) => {
      if (p.message.startsWith('done')) gate(`${run.workflowId}/chatty`).open();
      return false;
    });
    const progress = progressOf(events);
    const reports = Number(/done after (\d+) reports/.exec(progress.at(-1)?.message ?? '')?.[1]);
    expect(reports).toBeGreaterThan(100);
    // Half a second of reports: the first at once, then one per 250 ms at most (the last one waits out its interval).
    expect(progress.length).toBeGreaterThanOrEqual(2);
    expect(progress.length).toBeLessThanOrEqual(4);
    expect(progress.map((p) => p.n)).toEqual(progress.map((_, i) => i));
  });

  it('a client attaching while the tool runs sees its newest progress', async () => {
    const run = await h.client.start('progress_scanner', { input: 'scan', workflowId: testId(`progress-late-${name}`) });
    // The first client lets the tool past its first gate only, and stops once it has seen the second update.
    const first = await follow(
      run.workflowId,
      feed(),
      (p) => p.message === 'scanning 1',
      (e) => e.type === 'tool_progress' && e.message === 'scanning 2',
    );
    expect(progressOf(first).map((p) => p.message)).toEqual(['scanning 1', 'scanning 2']);
    // Attached now, after 'scanning 2' was sent: it must see it (then lets the tool finish).
    const late = progressOf(await follow(run.workflowId, feed(), () => true)).map((p) => p.message);
    expect(late).toContain('scanning 2');
    expect(late.at(-1)).toBe('scanning 3');
    if (name === 'redis') expect(late).toEqual(['scanning 2', 'scanning 3']);
  });

  it("a retried call's progress replaces the failed attempt's, for a client there all along and one attaching late", async () => {
    const run = await h.client.start('progress_flaky', { input: 'scan', workflowId: testId(`progress-retry-${name}`) });
    const first = follow(run.workflowId, feed(), (p) => p.attempt === 1);
    const second = await follow(
      run.workflowId,
      feed(),
      () => false,
      (e) => e.type === 'tool_progress' && e.attempt === 2,
    );
    // Attached once attempt 2 reported: attempt 1's progress is void.
    const late = await follow(run.workflowId, feed(), (p) => p.attempt === 2);
    const all = progressOf(await first);
    expect(all.map((p) => [p.attempt, p.message])).toEqual([
      [1, 'attempt 1 at work'],
      [2, 'attempt 2 at work'],
    ]);
    expect(progressOf(second).at(-1)).toMatchObject({ attempt: 2 });
    expect(progressOf(late).map((p) => p.attempt)).toEqual([2]);
    expect(late.at(-1)).toMatchObject({ type: 'done', status: 'success' });
    // The call's result keeps the last progress of the attempt that produced it.
    expect(late.find((e) => e.type === 'tool_result')).toMatchObject({ attempts: 2, lastProgress: { message: 'attempt 2 at work' } });
  });
});

describe("a tool's own heartbeat details", () => {
  it("are kept by the runtime's keep-alive beats (they carry them instead of overwriting them)", async () => {
    const run = await h.client.start('progress_beating', { input: 'beat', workflowId: testId('progress-beating') });
    const pending = async () => {
      const activity = ((await run.handle.describe()).raw.pendingActivities ?? []).find((a) => a.activityType?.name === 'runTool');
      const details = (activity?.heartbeatDetails?.payloads ?? [])
        .map((p) => Buffer.from(p.data ?? new Uint8Array()).toString('utf8'))
        .join();
      const beat = activity?.lastHeartbeatTime?.seconds;
      const at =
        beat === undefined || beat === null ? 0 : Number(beat) * 1000 + Math.floor((activity?.lastHeartbeatTime?.nanos ?? 0) / 1e6);
      return { details, at };
    };
    let first = await pending();
    for (let i = 0; i < 100 && !first.details.includes('warming up'); i++) {
      await new Promise((r) => setTimeout(r, 50));
      first = await pending();
    }
    expect(first.details).toContain('warming up');
    // Keep-alive beats (every 100 ms) come after the tool's: wait until the server has recorded a later one.
    let later = first;
    for (let i = 0; i < 100 && later.at < first.at + 250; i++) {
      await new Promise((r) => setTimeout(r, 50));
      later = await pending();
    }
    expect(later.at).toBeGreaterThanOrEqual(first.at + 250);
    expect(later.details).toContain('warming up');
    gate(`${run.workflowId}/beating`).open();
    expect((await run.result()).status).toBe('success');
  });
});
