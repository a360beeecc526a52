/**
 * Benchmark, run by hand (not a test): `@temporalio/workflow-streams` (the Temporal SDK's contrib
 * Workflow Streams: publish by signal, subscribe by long-poll update) measured the way
 * bench/streaming.ts measures durable-agent's Temporal-native transport (deltas in heartbeat details).
 *
 *   cd bench/workflow-streams && npm install && npx tsx compare.ts [--help]
 *
 * 1. Delta latency from the activity's `publish` to a subscriber's receipt (same process, same clock),
 *    one subscriber, for each publisher batch interval.
 * 2. History: events and bytes per step of streaming runs (0, 1 and `--clients` subscribers) against
 *    the same run that does not publish, and which event types the difference is made of.
 *
 * See README.md here, and bench/README.md (bench/workflow-streams) for the figures.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { WorkflowStreamClient } from '@temporalio/workflow-streams/client';
import * as activities from './activities';
import { DELTAS, deltaText, sentAt, sentKey } from './activities';
import type { Delta } from './activities';
import { benchServer } from './dev-server';
import { latencyRow, num, table } from '../stats';
import type { StepsInput } from './workflows';

const USAGE = `Usage: npx tsx compare.ts [options]

  -s, --steps N           model steps of each run (default 3)
  -c, --chunks K          deltas each step publishes (default 1000)
  -i, --interval-ms T     time between deltas (default 2)
  -b, --batch-ms LIST     publisher batchInterval(s), comma-separated (default 100,2000; 2000 is the library's default)
  -n, --clients M         subscribers of the many-subscriber run in part 2 (default 10, 0 skips it)
  -r, --reps R            repetitions of part 1 (default 1)
  -h, --help              show this help

Uses TEMPORAL_ADDRESS if set, else starts an in-memory dev server.`;

interface Settings {
  steps: number;
  chunks: number;
  intervalMs: number;
  batchMs: number[];
  clients: number;
  reps: number;
}

function int(name: string, value: string, min: number): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) throw new Error(`--${name} must be an integer ≥ ${min}, got "${value}"`);
  return n;
}

function parseSettings(argv: string[]): Settings | undefined {
  const { values } = parseArgs({
    args: argv,
    options: {
      steps: { type: 'string', short: 's', default: '3' },
      chunks: { type: 'string', short: 'c', default: '1000' },
      'interval-ms': { type: 'string', short: 'i', default: '2' },
      'batch-ms': { type: 'string', short: 'b', default: '100,2000' },
      clients: { type: 'string', short: 'n', default: '10' },
      reps: { type: 'string', short: 'r', default: '1' },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  });
  if (values.help) return undefined;
  return {
    steps: int('steps', values.steps, 1),
    chunks: int('chunks', values.chunks, 1),
    intervalMs: int('interval-ms', values['interval-ms'], 0),
    batchMs: values['batch-ms'].split(',').map((b) => int('batch-ms', b.trim(), 1)),
    clients: int('clients', values.clients, 0),
    reps: int('reps', values.reps, 1),
  };
}

/** What one subscriber saw. */
interface Watched {
  latencies: number[];
  received: number;
  /** Every delta it received came once, in order, with its text. */
  ordered: boolean;
  /** Deltas published that it never received. */
  missed: number;
  /** Of those, how many came after the last delta it received (the run's tail). */
  missedAtEnd: number;
}

/** Subscribe to a run's `deltas` topic from offset 0 until the run ends; time each delta against its publish. */
async function watch(client: Client, workflowId: string, settings: Settings): Promise<Watched> {
  const latencies: number[] = [];
  let received = 0;
  let ordered = true;
  let index = -1; // of the last delta received, counting every delta of the run in order
  for await (const item of WorkflowStreamClient.create(client, workflowId).topic<Delta>(DELTAS).subscribe(0)) {
    const now = performance.now();
    const d = item.data;
    received++;
    const at = sentAt.get(sentKey(workflowId, d.step, d.n));
    if (at !== undefined) latencies.push(now - at);
    const i = (d.step - 1) * settings.chunks + d.n;
    if (i !== index + 1 || d.text !== deltaText(d.step, d.n)) ordered = false;
    index = Math.max(index, i);
  }
  const total = settings.steps * settings.chunks;
  return { latencies, received, ordered, missed: total - received, missedAtEnd: total - 1 - index };
}

/** A run's history: events, bytes (as protobuf), and events by type. */
interface HistorySize {
  events: number;
  bytes: number;
  byType: Map<string, number>;
}

async function historySize(client: Client, workflowId: string): Promise<HistorySize> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  const events = history.events ?? [];
  const byType = new Map<string, number>();
  let bytes = 0;
  for (const e of events) {
    bytes += temporal.api.history.v1.HistoryEvent.encode(e).finish().length;
    const type = (temporal.api.enums.v1.EventType[e.eventType ?? 0] ?? String(e.eventType)).replace(/^EVENT_TYPE_/, '');
    byType.set(type, (byType.get(type) ?? 0) + 1);
  }
  return { events: events.length, bytes, byType };
}

async function main(): Promise<void> {
  const settings = parseSettings(process.argv.slice(2));
  if (!settings) {
    console.log(USAGE);
    return;
  }
  const log = (line: string) => console.log(line);
  // The worker warns about poll updates still waiting when a run completes (they end with the run): noise here.
  Runtime.install({
    logger: new DefaultLogger('ERROR'),
    telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' }, forward: {} } },
  });
  const cleanups: Array<() => Promise<unknown> | unknown> = [];
  try {
    const server = await benchServer();
    cleanups.push(() => server.stop());
    const native = await NativeConnection.connect({ address: server.address });
    cleanups.push(() => native.close());
    const connection = await Connection.connect({ address: server.address });
    cleanups.push(() => connection.close());
    const client = new Client({ connection });
    const taskQueue = `bench-workflow-streams-${randomUUID().slice(0, 8)}`;
    const worker = await Worker.create({ connection: native, taskQueue, workflowsPath: require.resolve('./workflows'), activities });
    const running = worker.run();
    cleanups.push(async () => {
      worker.shutdown();
      await running;
    });

    /** Start a run, watch it with `subscribers` subscribers, wait for its end. */
    const run = async (publish: boolean, batchMs: number, subscribers: number) => {
      const workflowId = `wfstreams-${randomUUID().slice(0, 8)}`;
      const input: StepsInput = { steps: settings.steps, chunks: settings.chunks, intervalMs: settings.intervalMs, publish, batchMs };
      const started = performance.now();
      const handle = await client.workflow.start('streamingSteps', { taskQueue, workflowId, args: [input] });
      const watched = await Promise.all(Array.from({ length: subscribers }, () => watch(client, workflowId, settings)));
      await handle.result();
      return { workflowId, watched, seconds: (performance.now() - started) / 1000 };
    };

    log(`server: ${server.description}`);
    log(
      `@temporalio/workflow-streams ${require('@temporalio/workflow-streams/package.json').version}, @temporalio/worker ${require('@temporalio/worker/package.json').version}`,
    );
    log(
      `each run: ${settings.steps} model steps (all but the last followed by a tool activity), each publishing ${num(settings.chunks)} deltas of 8 characters, ${settings.intervalMs} ms apart`,
    );
    log(
      'publisher: WorkflowStreamClient.fromWithinActivity({ batchInterval }) (a signal per batch); subscriber: topic.subscribe(0) (a poll update at most every 100 ms, the default pollCooldown)',
    );

    // Part 1: latency, one subscriber.
    log('');
    log('Part 1: delta latency, publish → one subscriber (ms)');
    const rows: string[][] = [['', 'deltas', 'p50', 'p90', 'p99', 'max']];
    const notes: string[] = [];
    const oneClientRuns = new Map<number, string>();
    for (let rep = 1; rep <= settings.reps; rep++) {
      for (const batchMs of settings.batchMs) {
        const r = await run(true, batchMs, 1);
        oneClientRuns.set(batchMs, r.workflowId);
        const w = r.watched[0]!;
        const label = `batchInterval ${batchMs} ms${settings.reps > 1 ? `, rep ${rep}` : ''}`;
        rows.push(latencyRow(label, w.latencies));
        notes.push(
          `${label}: received ${num(w.received)} of ${num(settings.steps * settings.chunks)} (missed ${num(w.missed)}, ${num(w.missedAtEnd)} of them the run's last); in order, none twice: ${w.ordered}; run took ${num(r.seconds, 1)} s`,
        );
      }
    }
    log(table(rows));
    for (const n of notes) log(n);

    // Part 2: history.
    log('');
    const batchMs = settings.batchMs[0]!;
    log(`Part 2: history per step, batchInterval ${batchMs} ms, against the same run without publishing`);
    const quiet = await run(false, batchMs, 0);
    const noReader = await run(true, batchMs, 0);
    const many = settings.clients > 0 ? await run(true, batchMs, settings.clients) : undefined;
    const measured: Array<[string, string]> = [
      ['not publishing', quiet.workflowId],
      ['publishing, no subscriber', noReader.workflowId],
      ['publishing, 1 subscriber', oneClientRuns.get(batchMs)!],
      ...(many ? [[`publishing, ${settings.clients} subscribers`, many.workflowId] as [string, string]] : []),
    ];
    const sizes = await Promise.all(measured.map(([, id]) => historySize(client, id)));
    const base = sizes[0]!;
    const steps = settings.steps;
    log(
      table([
        ['', 'events', 'events/step', 'added/step', 'bytes/step', 'added bytes/step'],
        ...measured.map(([label], i) => {
          const s = sizes[i]!;
          return [
            label,
            num(s.events),
            num(s.events / steps, 1),
            num((s.events - base.events) / steps, 1),
            num(s.bytes / steps),
            num((s.bytes - base.bytes) / steps),
          ];
        }),
      ]),
    );
    log('');
    log('events added per step, by type:');
    const types = [...new Set(sizes.flatMap((s) => [...s.byType.keys()]))].sort();
    const added = types
      .map((t) => [t, ...sizes.slice(1).map((s) => num(((s.byType.get(t) ?? 0) - (base.byType.get(t) ?? 0)) / steps, 1))])
      .filter((row) => row.slice(1).some((c) => c !== '0.0'));
    log(table([['', ...measured.slice(1).map(([label]) => label.replace('publishing, ', ''))], ...added]));
    if (many) {
      const all = many.watched.flatMap((w) => w.latencies);
      log('');
      log(table([['', 'deltas', 'p50', 'p90', 'p99', 'max'], latencyRow(`${settings.clients} subscribers, all deltas`, all)]));
      const missed = many.watched.map((w) => w.missed);
      log(
        `per subscriber: missed ${num(Math.min(...missed))}–${num(Math.max(...missed))} of ${num(settings.steps * settings.chunks)} (${num(many.watched.reduce((s, w) => s + w.missedAtEnd, 0))} of the ${num(missed.reduce((a, b) => a + b, 0))} missed in all were the run's last); in order, none twice: ${many.watched.every((w) => w.ordered)}`,
      );
    }
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup();
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? (err.stack ?? err.message) : err);
  process.exitCode = 1;
});
