/**
 * Live deltas over Redis Streams, on the real dev server and a real throwaway redis-server: a worker
 * publishing with `RedisDeltaPublisher` (the heartbeat transport off, so every delta a client sees came
 * through Redis), clients following with `RedisDeltaFeed`. Also the publisher and the feed alone against
 * Redis: order, trimming, expiry, resuming, outages, connections released.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Redis from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import type { Agent } from '../../src/agents/define';
import { AgentClient } from '../../src/client';
import type { StreamEvent } from '../../src/client/live';
import type { LiveDelta, TextChunk } from '../../src/core/events/stream';
import type { ModelProvider } from '../../src/integrations/providers/types';
import { FileBlobStore } from '../../src/integrations/store/blob-store';
import { RedisDeltaFeed, RedisDeltaPublisher, streamKey } from '../../src/integrations/streaming/redis';
import type { RedisDeltaEntry } from '../../src/integrations/streaming/redis';
import type { DeltaPublisher } from '../../src/integrations/streaming/transport';
import { createWorker } from '../../src/worker';
import { ScriptedAgents } from '../helpers/agents';
import { installTestRuntime, testId } from '../helpers/harness';
import type { RedisServer } from '../helpers/redis';
import { describeWithRedis, startRedisServer } from '../helpers/redis';
import { collect, expectSlowReaderNotInTheWay, expectVoidedFirstAttempt } from '../helpers/stream';
import { echo } from '../helpers/tools';
import { freePort, runCli, soleError, startCli, tempHome } from '../helpers/cli-run';
import { parsed, readFrames } from '../helpers/sse-frames';

const ANSWER = 'The answer is forty-two: computed slowly, streamed through Redis in pieces, and checked against the transcript.';
/** Deltas a scripted reply streamed in `chunks` pieces makes (pieces of equal size, the last one shorter). */
const piecesOf = (chunks: number) => Math.ceil(ANSWER.length / Math.ceil(ANSWER.length / chunks));
const CHUNKS = 24;
const DELTAS = piecesOf(CHUNKS);
const LONG_DELTAS = piecesOf(60);
const S = new ScriptedAgents();
// `delayMs` before streaming: readers attached right after the start are there before the first delta.
S.add('redis_streamer', [{ text: ANSWER, delayMs: 400, stream: { chunks: CHUNKS, intervalMs: 50 } }], { tools: [] });
S.add('redis_long_streamer', [{ text: ANSWER, delayMs: 400, stream: { chunks: 60, intervalMs: 50 } }], { tools: [] });
S.add(
  'redis_flaky',
  [
    {
      text: ANSWER,
      delayMs: 300,
      stream: { chunks: 12, intervalMs: 50 },
      failures: [{ message: 'connection reset mid-answer', retryable: true, afterStreaming: true }],
    },
  ],
  { tools: [] },
);
// Three steps calling a tool, then the answer, each streaming: many durable events for a slow reader to read.
S.add(
  'redis_slow_read',
  (_request, ctx) =>
    ctx.step <= 3
      ? {
          text: `Step ${ctx.step}: echoing.`,
          toolCalls: [{ name: 'echo', args: { text: `n${ctx.step}` } }],
          stream: { chunks: 6, intervalMs: 40 },
        }
      : { text: ANSWER, stream: { chunks: 12, intervalMs: 40 } },
  { tools: [echo], maxSteps: 10 },
);

interface Side {
  client: AgentClient;
  taskQueue: string;
  stop(): Promise<void>;
}

let redis: RedisServer;
let admin: Redis;
let publisher: RedisDeltaPublisher;
let feed: RedisDeltaFeed;
let side: Side;
let temporal: Client;
const publisherLog: string[] = [];

/** A worker on its own task queue publishing with `publisher` (heartbeat transport off), and a client reading with `feed`. */
async function startSide(
  agents: Agent[],
  providers: Record<string, ModelProvider>,
  pub: DeltaPublisher,
  deltas: RedisDeltaFeed,
): Promise<Side> {
  const address = inject('temporalAddress');
  const taskQueue = `test-${randomUUID()}`;
  const nativeConnection = await NativeConnection.connect({ address });
  const worker = await createWorker({
    agents,
    providers,
    store: new FileBlobStore(mkdtempSync(join(tmpdir(), 'durable-agent-store-'))),
    connection: nativeConnection,
    taskQueue,
    workflowBundle: { codePath: inject('workflowBundlePath') },
    streaming: { heartbeat: false, publisher: pub },
  });
  const running = worker.run();
  return {
    client: await AgentClient.connect({ client: temporal, taskQueue, deltas }),
    taskQueue,
    async stop() {
      worker.shutdown();
      await running;
      await nativeConnection.close();
    },
  };
}

const textOf = (ds: Array<{ delta: LiveDelta['delta'] }>) => ds.map((d) => (d.delta.type === 'text' ? d.delta.text : '')).join('');
const numbers = (ds: Array<{ n: number }>) => ds.map((d) => d.n);
const range = (n: number) => [...Array(n).keys()];

/** Feed connections currently open on the server. */
async function feedConnections(): Promise<number> {
  const list = (await admin.client('LIST')) as string;
  return list.split('\n').filter((l) => l.includes('name=durable-agent:feed')).length;
}

/** Wait until `check` holds (polling), or fail naming `what`. */
async function until(what: string, check: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Subscriptions of the running test, ended after it whatever happened (no connection outlives its test). */
const controllers: AbortController[] = [];
function controller(): AbortController {
  const c = new AbortController();
  controllers.push(c);
  return c;
}
afterEach(() => {
  for (const c of controllers.splice(0)) c.abort();
});

describeWithRedis('live deltas over Redis Streams', () => {
  beforeAll(async () => {
    installTestRuntime();
    redis = await startRedisServer();
    admin = new Redis(redis.url, { maxRetriesPerRequest: null });
    admin.on('error', () => undefined);
    temporal = new Client({ connection: await Connection.connect({ address: inject('temporalAddress') }) });
    publisher = new RedisDeltaPublisher({ url: redis.url, ttlSeconds: 600, log: (m) => publisherLog.push(m) });
    feed = new RedisDeltaFeed({ url: redis.url });
    side = await startSide(S.agents, { scripted: S.provider }, publisher, feed);
  });
  afterAll(async () => {
    await side?.stop();
    await publisher?.close();
    admin?.disconnect();
    await temporal?.connection.close();
    await redis?.close();
  });

  it('delivers text deltas live through Redis, before the step ends, adding up to the answer; the stream expires', async () => {
    const run = await side.client.start('redis_streamer', { input: 'compute', workflowId: testId('redis-live') });
    const events: Array<{ e: StreamEvent; at: number }> = [];
    for await (const e of run.stream()) events.push({ e, at: Date.now() });
    const deltas = events.flatMap(({ e }) => (e.type === 'delta' ? [e] : []));
    // Every delta, in order, none twice: the heartbeat transport is off, so they all came through Redis.
    expect(numbers(deltas)).toEqual(range(DELTAS));
    expect(textOf(deltas)).toBe(ANSWER);
    const firstDelta = events.find(({ e }) => e.type === 'delta')!;
    const finished = events.find(({ e }) => e.type === 'step_finished')!;
    expect(finished.at - firstDelta.at).toBeGreaterThan((DELTAS - 4) * 50 * 0.8);
    expect(events.at(-1)?.e).toMatchObject({ type: 'done', status: 'success' });
    expect((await run.result()).finalText).toBe(ANSWER);
    // The run's stream: one entry per delta, expiring (ttlSeconds) rather than kept forever.
    const key = streamKey(run.workflowId);
    expect(await admin.xlen(key)).toBe(DELTAS);
    const ttl = await admin.ttl(key);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(600);
  });

  it("a reader attaching after the end gets the durable events, each step's text whole, and no old deltas", async () => {
    const run = await side.client.start('redis_streamer', { input: 'compute', workflowId: testId('redis-late') });
    await run.result();
    const chunks = await collect(side.client.get(run.workflowId).textStream());
    expect(chunks).toEqual([{ type: 'text', step: 1, text: ANSWER }]);
    const events = await collect(side.client.get(run.workflowId).stream());
    expect(events.some((e) => e.type === 'delta')).toBe(false);
    expect(events.filter((e) => 'seq' in e).map((e) => ('seq' in e ? e.seq : -1))).toEqual(range(events.length));
  });

  it('a reader that comes back with the last stream id it saw gets the rest: no gap, no duplicate', async () => {
    const run = await side.client.start('redis_long_streamer', { input: 'compute', workflowId: testId('redis-resume') });
    const first: RedisDeltaEntry[] = [];
    const stop = controller();
    for await (const entry of feed.entries(run.workflowId, { after: '0-0', signal: stop.signal })) {
      first.push(entry);
      if (first.length === 10) break;
    }
    // Away for a while: deltas go on being published.
    await new Promise((r) => setTimeout(r, 400));
    const rest: RedisDeltaEntry[] = [];
    const back = controller();
    const reading = collect(feed.entries(run.workflowId, { after: first.at(-1)!.id, signal: back.signal }), rest);
    await run.result();
    await until('the last delta', () => rest.at(-1)?.delta.n === LONG_DELTAS - 1);
    back.abort();
    await reading;
    const all = [...first, ...rest].map((e) => e.delta);
    expect(numbers(all)).toEqual(range(LONG_DELTAS));
    expect(textOf(all)).toBe(ANSWER);
    expect(rest[0]!.id > first.at(-1)!.id).toBe(true);
  });

  it('a reader whose connection drops reconnects and reads on from its last stream id: no gap, no duplicate', async () => {
    const run = await side.client.start('redis_long_streamer', { input: 'compute', workflowId: testId('redis-drop') });
    const seen: LiveDelta[] = [];
    const stop = controller();
    const reading = collect(feed.follow(run.workflowId, { signal: stop.signal }), seen);
    for (const after of [10, 30]) {
      await until(`${after} deltas`, () => seen.length >= after);
      const list = (await admin.client('LIST')) as string;
      const ids = list
        .split('\n')
        .filter((l) => l.includes('name=durable-agent:feed'))
        .map((l) => /\bid=(\d+)/.exec(l)![1]!);
      expect(ids.length).toBe(1);
      expect(await admin.client('KILL', 'ID', ids[0]!)).toBe(1);
    }
    await run.result();
    await until('the last delta', () => seen.at(-1)?.n === LONG_DELTAS - 1);
    stop.abort();
    await reading;
    expect(numbers(seen)).toEqual(range(LONG_DELTAS));
    expect(textOf(seen)).toBe(ANSWER);
  });

  it('voids an attempt that fails after streaming part of its answer: the text shown equals the transcript', async () => {
    const run = await side.client.start('redis_flaky', { input: 'compute', workflowId: testId('redis-flaky') });
    const chunks: TextChunk[] = [];
    const text = collect(run.textStream(), chunks);
    const events = await collect(run.stream());
    await text;
    const result = await run.result();
    expect(result.status).toBe('success');
    expectVoidedFirstAttempt(events, chunks, result);
    expect(result.finalText).toBe(ANSWER);
  });

  it('a slow reader (300 ms an event) does not slow the run, and still gets every durable event once and the final text', async () => {
    const run = await side.client.start('redis_slow_read', { input: 'echo three times', workflowId: testId('redis-slow-reader') });
    await expectSlowReaderNotInTheWay(run);
    expect(await admin.xlen(streamKey(run.workflowId))).toBeGreaterThan(0); // the run did stream through Redis
    expect((await run.result()).finalText).toBe(ANSWER);
  });

  it('25 clients watching one run all get the same deltas; every feed connection is released after', async () => {
    const run = await side.client.start('redis_streamer', { input: 'compute', workflowId: testId('redis-many') });
    const all = await Promise.all(Array.from({ length: 25 }, () => collect(side.client.get(run.workflowId).stream({ pollMs: 250 }))));
    for (const events of all) {
      const deltas = events.flatMap((e) => (e.type === 'delta' ? [e] : []));
      expect(numbers(deltas)).toEqual(range(DELTAS));
      expect(textOf(deltas)).toBe(ANSWER);
      expect(events.at(-1)).toMatchObject({ type: 'done', status: 'success' });
    }
    await until('no feed connection left', async () => (await feedConnections()) === 0, 5000);
  });

  it('a subscription ends promptly when its signal aborts while blocked in XREAD, and quits its connection', async () => {
    const stop = controller();
    const reading = collect(feed.follow(testId('redis-idle'), { signal: stop.signal }));
    await until('the feed connection', async () => (await feedConnections()) === 1);
    await new Promise((r) => setTimeout(r, 100)); // blocked in XREAD by now
    const t = Date.now();
    stop.abort();
    expect(await reading).toEqual([]);
    expect(Date.now() - t).toBeLessThan(500);
    await until('no feed connection left', async () => (await feedConnections()) === 0, 5000);
  });

  it('Redis restarted while runs go on: model calls succeed, and deltas flow again once it is back', async () => {
    const run = await side.client.start('redis_long_streamer', { input: 'compute', workflowId: testId('redis-restart') });
    const seen: LiveDelta[] = [];
    const stop = controller();
    const reading = collect(feed.follow(run.workflowId, { signal: stop.signal }), seen);
    await until('some deltas', () => seen.length >= 5);
    await redis.stop();
    await new Promise((r) => setTimeout(r, 600));
    await redis.start();
    const result = await run.result();
    expect(result.status).toBe('success');
    expect(result.finalText).toBe(ANSWER);
    // Deltas published after the restart reached the reader that was there all along (gap shown by numbers).
    await until('a delta from after the restart', () => seen.at(-1)?.n === LONG_DELTAS - 1);
    stop.abort();
    await reading;
    const ns = numbers(seen);
    expect(ns).toEqual([...new Set(ns)].sort((a, b) => a - b));
    // The next run streams through the same publisher as before.
    const next = await side.client.start('redis_streamer', { input: 'compute', workflowId: testId('redis-after-restart') });
    const deltas = (await collect(next.stream())).flatMap((e) => (e.type === 'delta' ? [e] : []));
    expect(numbers(deltas)).toEqual(range(DELTAS));
    expect(textOf(deltas)).toBe(ANSWER);
  });

  it('Redis unreachable from the start: runs succeed, the problem is logged, close() does not hang', async () => {
    const log: string[] = [];
    const nowhere = `redis://127.0.0.1:${redis.port + 1}`;
    const down = new RedisDeltaPublisher({ url: nowhere, log: (m) => log.push(m), closeTimeoutMs: 500 });
    const other = await startSide(S.agents, { scripted: S.provider }, down, new RedisDeltaFeed({ url: nowhere }));
    try {
      const run = await other.client.start('redis_streamer', { input: 'compute', workflowId: testId('redis-down') });
      const result = await run.result();
      expect(result.status).toBe('success');
      expect(result.finalText).toBe(ANSWER);
      expect(log.some((m) => m.includes(nowhere))).toBe(true);
    } finally {
      await other.stop();
      const t = Date.now();
      await down.close();
      expect(Date.now() - t).toBeLessThan(2000);
    }
  });
  it(
    'the CLI: `worker --redis-url` publishes deltas to Redis, `serve` with DURABLE_AGENT_REDIS_URL streams them over SSE',
    { timeout: 120_000 },
    async () => {
      const home = tempHome();
      const repo = resolve(__dirname, '..', '..');
      const agentsFile = join(home, 'agents.ts');
      writeFileSync(
        agentsFile,
        [
          `import { defineAgent } from ${JSON.stringify(join(repo, 'src', 'agents', 'define'))};`,
          `import { ScriptedProvider } from ${JSON.stringify(join(repo, 'src', 'integrations', 'providers', 'scripted'))};`,
          "export const streamer = defineAgent({ name: 'cli_redis_streamer', model: { provider: 'scripted', model: 'cli_redis_streamer' }, tools: [] });",
          `export const providers = { scripted: new ScriptedProvider({ cli_redis_streamer: [{ text: ${JSON.stringify(ANSWER)}, delayMs: 400, stream: { chunks: ${CHUNKS}, intervalMs: 50 } }] }) };`,
        ].join('\n'),
      );
      const token = `redis-cli-${randomUUID()}`;
      const tokens = join(home, 'tokens.json');
      writeFileSync(tokens, JSON.stringify({ tokens: { [token]: { identity: 'watcher' } } }));
      const address = inject('temporalAddress');
      const taskQueue = `test-redis-cli-${randomUUID()}`;
      const port = await freePort();
      const worker = startCli(
        ['worker', '--agents', agentsFile, '--address', address, '--task-queue', taskQueue, '--redis-url', redis.url],
        { home, timeoutMs: 110_000 },
      );
      const serve = startCli(['serve', '--address', address, '--task-queue', taskQueue, '--http-port', String(port), '--tokens', tokens], {
        home,
        env: { DURABLE_AGENT_REDIS_URL: redis.url },
        timeoutMs: 110_000,
      });
      try {
        await Promise.all([worker.waitFor('Press Ctrl-C to stop.'), serve.waitFor('Press Ctrl-C to stop.')]);
        expect(worker.stdout()).toContain(`Live deltas:       published to Redis at ${redis.url}`);
        expect(serve.stdout()).toContain(`Live deltas:       read from Redis at ${redis.url}`);
        const api = `http://127.0.0.1:${port}`;
        const headers = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' };
        const workflowId = testId('redis-cli');
        const started = await fetch(`${api}/runs`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ agent: 'cli_redis_streamer', input: 'compute', workflowId }),
        });
        expect(started.status).toBe(201);
        const frames = await readFrames(await fetch(`${api}/runs/${workflowId}/events`, { headers }));
        const events = frames.map(parsed);
        // serve reads deltas from Redis only: every one, in order, adding up to the answer.
        const deltas = events.flatMap((e) => (e.type === 'delta' ? [e] : []));
        expect(numbers(deltas)).toEqual(range(DELTAS));
        expect(textOf(deltas)).toBe(ANSWER);
        expect(events.at(-1)).toMatchObject({ type: 'done', status: 'success', finalText: ANSWER });
        // The CLI worker published them there.
        expect(await admin.xlen(streamKey(workflowId))).toBe(DELTAS);
      } finally {
        worker.child.kill('SIGINT');
        serve.child.kill('SIGINT');
      }
      for (const stopped of [await worker.done, await serve.done]) {
        expect(stopped.stderr).toBe('');
        expect(stopped.code).toBe(0);
      }
    },
  );
});

describeWithRedis('RedisDeltaPublisher and RedisDeltaFeed against Redis', () => {
  let server: RedisServer;
  let r: Redis;
  beforeAll(async () => {
    server = await startRedisServer();
    r = new Redis(server.url);
  });
  afterAll(async () => {
    r?.disconnect();
    await server?.close();
  });

  const delta = (workflowId: string, n: number, attempt = 1): LiveDelta => ({
    workflowId,
    step: 1,
    attempt,
    n,
    delta: { type: 'text', text: `<${n}>` },
  });
  const stored = async (workflowId: string) =>
    (await r.xrange(streamKey(workflowId), '-', '+')).map(([, fields]) => JSON.parse(fields[1]!) as { n: number; attempt: number });

  it('writes every delta of each run to its own stream, in the order of their numbers, and close() sends what is buffered', async () => {
    const pub = new RedisDeltaPublisher({ url: server.url });
    const a = testId('pub-a');
    const b = testId('pub-b');
    const t = Date.now();
    for (let n = 0; n < 3000; n++) {
      pub.publish(delta(a, n));
      pub.publish(delta(b, n, 2));
    }
    expect(Date.now() - t).toBeLessThan(1000); // publish only buffers
    await pub.close();
    for (const [id, attempt] of [
      [a, 1],
      [b, 2],
    ] as const) {
      const entries = await stored(id);
      expect(entries.map((e) => e.n)).toEqual(range(3000));
      expect(entries.every((e) => e.attempt === attempt)).toBe(true);
    }
    expect(await feedConnectionsOf(r, 'durable-agent:publisher')).toBe(0);
    pub.publish(delta(a, 3000)); // after close: dropped, never thrown
  });

  it('trims each stream to about maxLen entries (the newest) and sets its expiry', async () => {
    const pub = new RedisDeltaPublisher({ url: server.url, maxLen: 500, ttlSeconds: 30 });
    const id = testId('pub-trim');
    for (let n = 0; n < 5000; n++) pub.publish(delta(id, n));
    await pub.close();
    const entries = await stored(id);
    expect(entries.length).toBeGreaterThanOrEqual(500);
    expect(entries.length).toBeLessThan(1000);
    expect(entries.at(-1)!.n).toBe(4999);
    const ttl = await r.ttl(streamKey(id));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(30);
  });

  it('a feed skips entries it cannot read and goes on', async () => {
    const id = testId('feed-junk');
    const key = streamKey(id);
    await r.xadd(key, '*', 'd', JSON.stringify({ step: 1, attempt: 1, n: 0, delta: { type: 'text', text: 'a' } }));
    await r.xadd(key, '*', 'd', 'not json');
    await r.xadd(key, '*', 'other', 'field');
    await r.xadd(key, '*', 'd', JSON.stringify({ step: 1, attempt: 1, n: 1, delta: { type: 'text', text: 'b' } }));
    const stop = controller();
    const got: LiveDelta[] = [];
    const reading = collect(new RedisDeltaFeed({ url: server.url }).follow(id, { after: '0-0', signal: stop.signal }), got);
    await until('two deltas', () => got.length === 2);
    stop.abort();
    await reading;
    expect(got.map((d) => (d.delta.type === 'text' ? d.delta.text : ''))).toEqual(['a', 'b']);
    expect(got[0]!.workflowId).toBe(id);
  });

  it('a feed started from now does not replay what the stream already holds', async () => {
    const pub = new RedisDeltaPublisher({ url: server.url });
    const id = testId('feed-now');
    for (let n = 0; n < 5; n++) pub.publish(delta(id, n));
    await until('five entries', async () => (await r.xlen(streamKey(id))) === 5);
    const stop = controller();
    const got: LiveDelta[] = [];
    const f = new RedisDeltaFeed({ url: server.url });
    const reading = collect(f.follow(id, { signal: stop.signal }), got);
    await until('the feed connection', async () => (await feedConnectionsOf(r, 'durable-agent:feed')) === 1);
    await new Promise((res) => setTimeout(res, 100));
    for (let n = 5; n < 8; n++) pub.publish(delta(id, n));
    await until('three deltas', () => got.length === 3);
    stop.abort();
    await reading;
    await pub.close();
    expect(numbers(got)).toEqual([5, 6, 7]);
  });

  it('rejects a bad resume id with a clear error', async () => {
    const f = new RedisDeltaFeed({ url: server.url });
    await expect(collect(f.entries('x', { after: 'yesterday' }))).rejects.toThrow(/after "yesterday" is not a stream id/);
  });
});

async function feedConnectionsOf(r: Redis, name: string): Promise<number> {
  const list = (await r.client('LIST')) as string;
  return list.split('\n').filter((l) => l.includes(`name=${name}`)).length;
}

describe('durable-agent --redis-url', () => {
  it('a bad Redis URL is one clear error naming the option, before anything starts; the password is never shown', async () => {
    const home = tempHome();
    const bad = await runCli(['worker', '--redis-url', 'http://localhost:6379', '--address', '127.0.0.1:1'], { home });
    expect(soleError(bad)).toBe(
      'error: --redis-url (or DURABLE_AGENT_REDIS_URL): "http://localhost:6379" has scheme http:; expected redis://host:port (or rediss:// for TLS)',
    );
    const fromEnv = await runCli(['tail', 'some-run', '--address', '127.0.0.1:1'], {
      home,
      env: { DURABLE_AGENT_REDIS_URL: 'redis://ops:hunter2@' },
    });
    expect(soleError(fromEnv)).toBe(
      'error: --redis-url (or DURABLE_AGENT_REDIS_URL): "redis://ops:***@" is not a URL; expected redis://host:port (or rediss:// for TLS)',
    );
  });

  it('a Redis that does not answer is named in a warning (live deltas only; the command goes on)', async () => {
    const home = tempHome();
    const port = await freePort(); // nothing listens there
    const missing = await runCli(
      ['tail', testId('no-such-run'), '--address', inject('temporalAddress'), '--redis-url', `redis://ops:hunter2@127.0.0.1:${port}`],
      { home },
    );
    // A note among the command's own (where the worker's publisher reports Redis too).
    const notes = missing.stdout.split('\n').filter((l) => l.trim() !== '');
    expect(
      notes.some(
        (l) =>
          l.startsWith(`warning: Redis at redis://ops:***@127.0.0.1:${port} does not answer (`) &&
          l.endsWith('live deltas will be missing until it does; runs and their durable events do not depend on it'),
      ),
    ).toBe(true);
    // The command itself still runs and fails for its own reason; the password is never shown.
    expect(soleError(missing)).toMatch(/^error: no run with workflow id/);
    expect(missing.stdout + missing.stderr).not.toContain('hunter2');
  });
});
