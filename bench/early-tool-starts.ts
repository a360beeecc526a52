/**
 * Benchmark, run by hand (not a test): streaming tool execution. A scripted model streams a read-only
 * tool call first, then `--text-ms` of text; the tool takes `--tool-ms`. The same agent runs with early
 * starts (`earlyStart: true` on the tool) and without (the default), alternately, `--reps` times each.
 *
 *   npx tsx bench/early-tool-starts.ts [--reps 3] [--text-ms 3000] [--tool-ms 1000]
 *
 * Per run, step 1 (the step whose tool starts early): its wall time, from its `step_started` event to
 * step 2's (the model's answer, then its tool step), and the history events it added (`callModel`
 * scheduled to the next `callModel` scheduled, as bench/history.ts attributes them); ratios against the
 * baseline measured in the same run of this script.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { z } from 'zod';
import { defineAgent, defineTool } from '../src/agents/define';
import { AgentClient } from '../src/client';
import type { AgentEvent } from '../src/core/events/events';
import { ScriptedProvider } from '../src/integrations/providers/scripted';
import type { ScriptedTurn } from '../src/integrations/providers/scripted';
import { FileBlobStore } from '../src/integrations/store/blob-store';
import { createWorker } from '../src/worker';
import { benchServer } from './environment';
import { intFlag } from './flags';
import { summarizeHistory } from './history';
import { num, spread, table } from './stats';

const USAGE = `Usage: npx tsx bench/early-tool-starts.ts [options]

  -r, --reps N        runs of each side (default 3)
      --text-ms T     text the model streams after the call (default 3000)
      --tool-ms T     time the tool takes (default 1000)
  -h, --help          show this help`;

interface Measured {
  stepMs: number;
  stepEvents: number;
  runEvents: number;
  early: boolean;
}

const stepStarted = (events: AgentEvent[], step: number) =>
  Date.parse(events.find((e) => e.type === 'step_started' && e.step === step)!.at);

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      reps: { type: 'string', short: 'r', default: '3' },
      'text-ms': { type: 'string', default: '3000' },
      'tool-ms': { type: 'string', default: '1000' },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  });
  if (values.help) return console.log(USAGE);
  const reps = intFlag('reps', values.reps, 1);
  const textMs = intFlag('text-ms', values['text-ms'], 0);
  const toolMs = intFlag('tool-ms', values['tool-ms'], 0);
  Runtime.install({
    logger: new DefaultLogger('WARN'),
    telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' }, forward: {} } },
  });
  const cleanups: Array<() => Promise<unknown> | unknown> = [];
  try {
    const { address, server } = await benchServer(console.log, cleanups);
    const storeDir = mkdtempSync(join(tmpdir(), 'durable-agent-bench-'));
    cleanups.push(() => rmSync(storeDir, { recursive: true, force: true }));
    const read = (earlyStart: boolean) =>
      defineTool({
        name: 'read_file',
        description: 'Read a file (read-only)',
        input: z.object({ path: z.string() }),
        readOnly: true,
        earlyStart,
        execute: ({ path }) => new Promise<string>((r) => setTimeout(() => r(`contents of ${path}`), toolMs)),
      });
    const turn: ScriptedTurn = {
      text: 'I am reading the file while I explain what I will do with it. '.repeat(5),
      toolCalls: [{ name: 'read_file', args: { path: 'README.md' } }],
      stream: { chunks: 30, intervalMs: 5, callsFirst: true, textIntervalMs: Math.round(textMs / 30) },
    };
    const provider = new ScriptedProvider({ bench_early: [turn, { text: 'done' }], bench_plain: [turn, { text: 'done' }] });
    const model = (m: string) => ({ provider: 'scripted', model: m });
    const agents = [
      defineAgent({ name: 'bench_early', model: model('bench_early'), tools: [read(true)] }),
      defineAgent({ name: 'bench_plain', model: model('bench_plain'), tools: [read(false)] }),
    ];
    const taskQueue = `bench-early-${randomUUID()}`;
    const native = await NativeConnection.connect({ address });
    cleanups.push(() => native.close());
    const worker = await createWorker({
      agents,
      providers: { scripted: provider },
      store: new FileBlobStore(storeDir),
      connection: native,
      taskQueue,
    });
    const connection = await Connection.connect({ address });
    cleanups.push(() => connection.close());
    const client = new AgentClient(new Client({ connection }), taskQueue);
    console.log(`server: ${server}; ${reps} runs each side; tool ${toolMs} ms, text ${textMs} ms after the call\n`);
    const measured: Measured[] = [];
    await worker.runUntil(async () => {
      // A warm-up run of each side (bundle loading, first connections), not counted.
      for (let i = 0; i <= reps; i++) {
        for (const early of [false, true]) {
          const run = await client.start(early ? 'bench_early' : 'bench_plain', {
            input: 'read it',
            workflowId: `bench-early-${randomUUID()}`,
          });
          const result = await run.result();
          if (result.status !== 'success') throw new Error(`run ended ${result.status}: ${result.error?.message}`);
          if (i === 0) continue;
          const events = (await run.readEvents(0, 1000)).events;
          const history = summarizeHistory(await run.handle.fetchHistory());
          if (events.some((e) => e.type === 'tool_started' && e.early) !== early) throw new Error('the call did not start as expected');
          measured.push({
            early,
            stepMs: stepStarted(events, 2) - stepStarted(events, 1),
            stepEvents: history.steps.get(1)!.events,
            runEvents: history.events,
          });
        }
      }
    });
    const side = (early: boolean) => measured.filter((m) => m.early === early);
    const median = (xs: number[]) => spread(xs).median;
    const rows = [false, true].map((early) => {
      const ms = side(early);
      const s = spread(ms.map((m) => m.stepMs));
      return [
        early ? 'early starts' : 'without (baseline)',
        `${num(s.median)} (${num(s.min)}–${num(s.max)})`,
        num(median(ms.map((m) => m.stepEvents))),
        num(median(ms.map((m) => m.runEvents))),
      ];
    });
    console.log(table([['', 'step 1 wall ms, median (min–max)', 'history events of step 1', 'history events of the run'], ...rows]));
    const base = median(side(false).map((m) => m.stepMs));
    const withEarly = median(side(true).map((m) => m.stepMs));
    console.log(
      `\nstep 1 with early starts: ${num(withEarly / base, 2)}× the baseline's wall time (saved ${num(base - withEarly)} ms of the tool's ${toolMs} ms); ` +
        `+${num(median(side(true).map((m) => m.stepEvents)) - median(side(false).map((m) => m.stepEvents)))} history events in the step`,
    );
  } finally {
    for (const c of cleanups.reverse()) await c();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
