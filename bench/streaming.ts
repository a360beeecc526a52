/**
 * Benchmark, run by hand (not a test): live streaming of a model's answer to clients, through the
 * Temporal-native transport (deltas in the model activity's heartbeat details, read with `describe`) and
 * through Redis Streams (a redis-server started here, or `--redis <url>`; skipped when there is none).
 *
 *   npx tsx bench/streaming.ts [--steps 3] [--chunks 1000] [--interval-ms 2] [--clients 100] [--redis URL | --no-redis]
 *
 * 1. Delta latency from the provider to one client's `run.stream()`: the worker's delta publisher
 *    stamps each delta as the model activity receives it, keyed by (run, step, attempt, n); the client
 *    stamps it as `run.stream()` yields it (same process, same clock).
 * 2. History events per step of a streaming run against the same run without streaming.
 * 3. `--clients` clients watching one run: latency across all of them, and what each received.
 *
 * See bench/README.md for what is measured and how to read the output.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { z } from 'zod';
import { defineAgent, defineTool } from '../src/agents/define';
import { AgentClient } from '../src/client';
import type { AgentRun } from '../src/client';
import { TextAccumulator } from '../src/client/live';
import type { LiveDelta } from '../src/core/events/stream';
import { ScriptedProvider } from '../src/integrations/providers/scripted';
import type { ScriptedTurn } from '../src/integrations/providers/scripted';
import { FileBlobStore } from '../src/integrations/store/blob-store';
import { RedisDeltaFeed, RedisDeltaPublisher } from '../src/integrations/streaming/redis';
import type { DeltaFeed, DeltaPublisher } from '../src/integrations/streaming/transport';
import { createWorker } from '../src/worker';
import { benchServer } from './environment';
import { summarizeHistory } from './history';
import { latencyRow, num, percentile, spread, table } from './stats';
import { intFlag } from './flags';
import { findRedisServer, startRedis } from './redis-server';

const USAGE = `Usage: npx tsx bench/streaming.ts [options]

  -s, --steps N         model steps of each run, each streaming its answer (default 3)
  -c, --chunks K        deltas each step streams (default 1000)
  -i, --interval-ms T   time between deltas (default 2)
  -n, --clients M       clients watching one run in part 3, 0 to skip it (default 100)
      --redis URL       also measure Redis Streams on this server (default: start a redis-server
                        found on PATH or as DURABLE_AGENT_REDIS_SERVER, if any)
      --no-redis        measure the Temporal-native transport only
  -h, --help            show this help`;

interface Settings {
  steps: number;
  chunks: number;
  intervalMs: number;
  clients: number;
  /** A Redis URL, 'start' (start a redis-server here if one is installed) or 'none'. */
  redis: string;
}

function parseSettings(argv: string[]): Settings | undefined {
  const { values } = parseArgs({
    args: argv,
    options: {
      steps: { type: 'string', short: 's', default: '3' },
      chunks: { type: 'string', short: 'c', default: '1000' },
      'interval-ms': { type: 'string', short: 'i', default: '2' },
      clients: { type: 'string', short: 'n', default: '100' },
      redis: { type: 'string' },
      'no-redis': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  });
  if (values.help) return undefined;
  const int = intFlag;
  const redis = values['no-redis'] ? 'none' : (values.redis ?? 'start');
  return {
    steps: int('steps', values.steps, 1),
    chunks: int('chunks', values.chunks, 1),
    intervalMs: int('interval-ms', values['interval-ms'], 0),
    clients: int('clients', values.clients, 0),
    redis,
  };
}

const STREAMING = 'bench_streaming';
/** The same script without streaming; a name as long as {@link STREAMING}'s, so history sizes compare. */
const QUIET = 'bench_no_stream';
/** Characters of each delta's text. */
const DELTA_CHARS = 8;

/** The answer of one step: `chunks` pieces of {@link DELTA_CHARS} characters. */
function stepText(step: number, chunks: number): string {
  const piece = (i: number) => `${step}.${i} `.padEnd(DELTA_CHARS, '-').slice(0, DELTA_CHARS);
  return Array.from({ length: chunks }, (_, i) => piece(i)).join('');
}

/** Steps 1..steps-1 answer with text and one tool call; the last answers with text only. */
function script(settings: Settings, stream: boolean) {
  return (_request: unknown, ctx: { step: number }): ScriptedTurn => ({
    text: stepText(ctx.step, settings.chunks),
    ...(ctx.step < settings.steps ? { toolCalls: [{ name: 'note', args: { step: ctx.step } }] } : {}),
    ...(stream ? { stream: { chunks: settings.chunks, intervalMs: settings.intervalMs } } : {}),
  });
}

/** The worker's delta publisher: stamps every delta the moment the model activity receives it. */
class SendTimes implements DeltaPublisher {
  private readonly sent = new Map<string, number>();

  static key(workflowId: string, step: number, attempt: number, n: number): string {
    return `${workflowId}/${step}/${attempt}/${n}`;
  }

  publish(d: LiveDelta): void {
    this.sent.set(SendTimes.key(d.workflowId, d.step, d.attempt, d.n), performance.now());
  }

  /** When the delta was sent, if it was. */
  at(key: string): number | undefined {
    return this.sent.get(key);
  }

  /** Deltas sent for a run. */
  countFor(workflowId: string): number {
    return [...this.byAttempt(workflowId).values()].reduce((a, b) => a + b, 0);
  }

  /** Deltas sent for a run, by `step/attempt`. */
  byAttempt(workflowId: string): Map<string, number> {
    const counts = new Map<string, number>();
    for (const k of this.sent.keys()) {
      if (!k.startsWith(`${workflowId}/`)) continue;
      const attempt = k.slice(workflowId.length + 1, k.lastIndexOf('/'));
      counts.set(attempt, (counts.get(attempt) ?? 0) + 1);
    }
    return counts;
  }

  async close(): Promise<void> {}
}

/** Hands every delta to several publishers (the stamping one first). */
class Tee implements DeltaPublisher {
  constructor(private readonly publishers: DeltaPublisher[]) {}
  publish(d: LiveDelta): void {
    for (const p of this.publishers) p.publish(d);
  }
  async close(): Promise<void> {
    await Promise.all(this.publishers.map((p) => p.close()));
  }
}

/** What one client saw of a run. */
interface Watched {
  latencies: number[];
  deltas: number;
  durable: number;
  /** The text the client would show, all steps together. */
  text: string;
  /** Highest delta number received, by `step/attempt`. */
  lastN: Map<string, number>;
}

/** Watch a run's stream to its end, timing each delta against its send time. */
async function watch(run: AgentRun, sent: SendTimes, feed?: DeltaFeed): Promise<Watched> {
  const latencies: number[] = [];
  const text = new TextAccumulator();
  const steps = new Set<number>();
  let deltas = 0;
  let durable = 0;
  const lastN = new Map<string, number>();
  for await (const e of run.stream(feed ? { deltas: feed } : {})) {
    const now = performance.now();
    if (e.type === 'delta') {
      deltas++;
      lastN.set(`${e.step}/${e.attempt}`, Math.max(lastN.get(`${e.step}/${e.attempt}`) ?? -1, e.n));
      const at = sent.at(SendTimes.key(run.workflowId, e.step, e.attempt, e.n));
      if (at !== undefined) latencies.push(now - at);
      steps.add(e.step);
    } else if ('seq' in e) {
      durable++;
      if (e.type === 'text') steps.add(e.step);
    }
    text.push(e);
  }
  return {
    latencies,
    deltas,
    durable,
    lastN,
    text: [...steps]
      .sort((a, b) => a - b)
      .map((s) => text.textOf(s))
      .join(''),
  };
}

async function main(): Promise<void> {
  const settings = parseSettings(process.argv.slice(2));
  if (!settings) {
    console.log(USAGE);
    return;
  }
  const log = (line: string) => console.log(line);
  // The worker core's own warnings (e.g. a query that timed out under 100 pollers) would drown the figures.
  Runtime.install({
    logger: new DefaultLogger('WARN'),
    telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' }, forward: {} } },
  });
  const cleanups: Array<() => Promise<unknown> | unknown> = [];
  try {
    const { address, server } = await benchServer(log, cleanups);
    const storeDir = mkdtempSync(join(tmpdir(), 'durable-agent-bench-'));
    cleanups.push(() => rmSync(storeDir, { recursive: true, force: true }));
    const native = await NativeConnection.connect({ address });
    cleanups.push(() => native.close());
    const connection = await Connection.connect({ address });
    cleanups.push(() => connection.close());
    const temporal = new Client({ connection });

    const note = defineTool({
      name: 'note',
      description: 'Take a note (instant)',
      input: z.object({ step: z.number() }),
      readOnly: true,
      execute: ({ step }) => `noted ${step}`,
    });
    const agents = [STREAMING, QUIET].map((name) =>
      defineAgent({ name, model: { provider: 'scripted', model: name }, tools: [note], maxSteps: settings.steps + 1 }),
    );
    const provider = new ScriptedProvider({ [STREAMING]: script(settings, true), [QUIET]: script(settings, false) });
    let redisUrl: string | undefined = settings.redis === 'none' || settings.redis === 'start' ? undefined : settings.redis;
    let redisNote = settings.redis === 'none' ? 'not measured (--no-redis)' : `${redisUrl} (--redis)`;
    if (settings.redis === 'start') {
      const bin = findRedisServer();
      if (bin) {
        const redis = await startRedis(bin, storeDir);
        cleanups.push(() => redis.stop());
        redisUrl = redis.url;
        redisNote = `redis-server started here at ${redis.url}`;
      } else {
        redisNote = 'not measured: no redis-server on PATH (set DURABLE_AGENT_REDIS_SERVER or pass --redis <url>)';
      }
    }

    const sent = new SendTimes();
    const publisher = redisUrl ? new Tee([sent, new RedisDeltaPublisher({ url: redisUrl })]) : sent;
    cleanups.push(() => publisher.close()); // after the worker stops, before redis-server does
    const worker = await createWorker({
      agents,
      providers: { scripted: provider },
      store: new FileBlobStore(storeDir),
      connection: native,
      taskQueue: `bench-streaming-${randomUUID().slice(0, 8)}`,
      // Deltas travel in heartbeats (the default) and, with Redis, to Redis too; the stamping publisher sees each first.
      streaming: { publisher },
    });
    const running = worker.run();
    cleanups.push(async () => {
      await worker.close();
      await running;
    });
    const client = new AgentClient(temporal, worker.taskQueue);
    const transports: Array<{ name: string; feed?: DeltaFeed }> = [
      { name: 'Temporal-native' },
      ...(redisUrl ? [{ name: 'Redis Streams', feed: new RedisDeltaFeed({ url: redisUrl }) }] : []),
    ];

    log(`server: ${server}`);
    log(`redis: ${redisNote}`);
    log(
      `each run: ${settings.steps} model steps, each streaming ${num(settings.chunks)} deltas of ${DELTA_CHARS} characters, ${settings.intervalMs} ms apart`,
    );
    log(
      'Temporal-native: heartbeat details sent at most every 100 ms, each client polls describe every 100 ms; Redis Streams: XREAD BLOCK per client',
    );

    // Part 1: one client, a run per transport.
    log('');
    log('Part 1: delta latency, provider → one client (ms), a run per transport');
    const rows: string[][] = [['', 'deltas', 'p50', 'p90', 'p99', 'max']];
    const notes: string[] = [];
    const single = new Map<string, number[]>();
    let temporalRun: AgentRun | undefined;
    for (const t of transports) {
      const run = await client.start(STREAMING, { input: 'stream', workflowId: `stream-${randomUUID().slice(0, 8)}` });
      temporalRun ??= run;
      const started = performance.now();
      const one = await watch(run, sent, t.feed);
      const result = await run.result();
      const wall = performance.now() - started;
      if (result.status !== 'success') throw new Error(`the streaming run ended ${result.status}: ${result.error?.message}`);
      const sentOne = sent.countFor(run.workflowId);
      rows.push(latencyRow(t.name, one.latencies));
      single.set(t.name, one.latencies);
      const tail = [...sent.byAttempt(run.workflowId)].reduce(
        (sum, [attempt, count]) => sum + count - ((one.lastN.get(attempt) ?? -1) + 1),
        0,
      );
      notes.push(
        `${t.name}: received ${num(one.deltas)} of ${num(sentOne)} deltas sent (${num((100 * one.deltas) / sentOne, 1)}%; of those missed, ${num(tail)} are the last ones of their step); ` +
          `text shown equals the transcript's: ${one.text === expectedText(settings)}; run took ${num(wall / 1000, 1)} s`,
      );
    }
    log(table(rows));
    for (const n of notes) log(n);
    const p50 = (v: readonly number[]) =>
      percentile(
        [...v].sort((a, b) => a - b),
        50,
      );
    if (single.size > 1)
      log(`p50 ratio, Redis Streams / Temporal-native: ${num(p50(single.get('Redis Streams')!) / p50(single.get('Temporal-native')!), 3)}`);

    // Part 2: history per step.
    log('');
    log('Part 2: history events per step, streaming against the same run without streaming');
    const quiet = await client.start(QUIET, { input: 'stream', workflowId: `nostrm-${randomUUID().slice(0, 8)}` });
    await quiet.result();
    const histories = await Promise.all(
      [temporalRun!, quiet].map(async (r) => summarizeHistory(await temporal.workflow.getHandle(r.workflowId).fetchHistory())),
    );
    const [streamingHistory, quietHistory] = histories as [ReturnType<typeof summarizeHistory>, ReturnType<typeof summarizeHistory>];
    const perStep = (h: ReturnType<typeof summarizeHistory>) => [...h.steps.values()].reduce((s, st) => s + st.events, 0) / h.steps.size;
    const bytesPerStep = (h: ReturnType<typeof summarizeHistory>) =>
      [...h.steps.values()].reduce((s, st) => s + st.bytes, 0) / h.steps.size;
    log(
      table([
        ['', 'events', 'events/step', 'bytes/step'],
        ['streaming', num(streamingHistory.events), num(perStep(streamingHistory), 1), num(bytesPerStep(streamingHistory))],
        ['not streaming', num(quietHistory.events), num(perStep(quietHistory), 1), num(bytesPerStep(quietHistory))],
        [
          'ratio',
          num(streamingHistory.events / quietHistory.events, 2),
          num(perStep(streamingHistory) / perStep(quietHistory), 2),
          num(bytesPerStep(streamingHistory) / bytesPerStep(quietHistory), 2),
        ],
      ]),
    );
    log('(Redis Streams adds nothing to history either: its deltas never touch Temporal; the run above published to both)');

    // Part 3: many clients on one run, a run per transport.
    if (settings.clients > 0) {
      for (const t of transports) {
        log('');
        log(`Part 3: ${settings.clients} clients watching one run, ${t.name} (ms)`);
        const many = await client.start(STREAMING, { input: 'stream', workflowId: `many-${randomUUID().slice(0, 8)}` });
        const watchers = await Promise.all(
          Array.from({ length: settings.clients }, () => watch(client.get(many.workflowId), sent, t.feed)),
        );
        const manyResult = await many.result();
        const sentMany = sent.countFor(many.workflowId);
        const all = watchers.flatMap((w) => w.latencies);
        const clientP50 = watchers.map((w) => p50(w.latencies));
        const received = watchers.map((w) => (100 * w.deltas) / sentMany);
        const durableCounts = new Set(watchers.map((w) => w.durable));
        log(
          table([
            ['', 'deltas', 'p50', 'p90', 'p99', 'max'],
            latencyRow(`${settings.clients} clients, all deltas`, all),
            latencyRow('one client (part 1)', single.get(t.name)!),
          ]),
        );
        log(`p50 ratio, ${settings.clients} clients / one client: ${num(p50(all) / p50(single.get(t.name)!), 2)}`);
        const r = spread(received);
        const c = spread(clientP50);
        log(
          `per client: deltas received ${num(r.min, 1)}% / ${num(r.median, 1)}% / ${num(r.max, 1)}% (min / median / max) of ${num(sentMany)} sent; every client got all of them: ${received.every((x) => x === 100)}`,
        );
        log(`per client p50 latency ${num(c.min, 1)} / ${num(c.median, 1)} / ${num(c.max, 1)} ms (min / median / max)`);
        log(
          `durable events: every client got the same ${[...durableCounts].join(', ')} (${durableCounts.size === 1 ? 'all equal' : 'DIFFERENT'}); text shown equals the transcript's for ${watchers.filter((w) => w.text === expectedText(settings)).length} of ${settings.clients} clients; run ${manyResult.status}`,
        );
      }
    }
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup();
  }
}

/** The text of every step of a run, in order. */
function expectedText(settings: Settings): string {
  return Array.from({ length: settings.steps }, (_, i) => stepText(i + 1, settings.chunks)).join('');
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exitCode = 1;
});
