/**
 * Benchmark, run by hand (not a test): what the loop features of issue 11 cost per step, against the
 * plain loop measured in the same run on the same worker. Every variant runs the same scripted model
 * (zero latency): `--steps` tool steps of one read-only `lookup` call each, then an answer.
 *
 *   npx tsx bench/loop-features.ts [--steps 10] [--runs 8]
 *
 * Variants: `plain` (the baseline); `guardrails` (one input and one output guardrail that pass: a
 * `checkGuardrails` activity before and after every model call); `hooks` (a `beforeToolCall` that rewrites
 * and an `afterToolCall` that transforms, inside `runTool`); `untrusted` (the tool's output fenced);
 * `output` (the final answer through the `final_answer` tool, validated by zod); `sub-agent` (each step's
 * call is an agent tool: a child workflow whose model answers at once, instead of a `runTool` activity).
 * For each: wall time per step (median over runs, and its ratio to `plain`), and history events per step
 * of the parent run.
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
import type { Agent, AgentConfig } from '../src/agents/define';
import { defineAgent, defineTool } from '../src/agents/define';
import { agentTool } from '../src/agents/agent-tool';
import { defineGuardrail } from '../src/agents/guardrails';
import { AgentClient } from '../src/client';
import { ScriptedProvider } from '../src/integrations/providers/scripted';
import type { Script } from '../src/integrations/providers/scripted';
import { FileBlobStore } from '../src/integrations/store/blob-store';
import { createWorker } from '../src/worker';
import { benchServer } from './environment';
import { intFlag } from './flags';
import { num, spread, table } from './stats';

const USAGE = `Usage: npx tsx bench/loop-features.ts [options]

  -s, --steps N   tool steps of each run (default 10)
  -r, --runs R    runs of each variant, interleaved (default 8)
  -h, --help      show this help`;

/** The variants, in the order they are printed. */
const VARIANTS = ['plain', 'guardrails', 'hooks', 'untrusted', 'output', 'sub-agent'] as const;
type Variant = (typeof VARIANTS)[number];

function parseSettings(argv: string[]): { steps: number; runs: number } {
  const { values } = parseArgs({
    args: argv,
    options: {
      steps: { type: 'string', short: 's', default: '10' },
      runs: { type: 'string', short: 'r', default: '8' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  return { steps: intFlag('steps', values.steps, 1), runs: intFlag('runs', values.runs, 1) };
}

const lookup = (untrusted: boolean) =>
  defineTool({
    name: 'lookup',
    description: 'Look up a key (read-only, instant)',
    input: z.object({ key: z.string() }),
    readOnly: true,
    ...(untrusted ? { untrusted: true } : {}),
    execute: ({ key }) => `value of ${key}`,
  });

/** The scripted model of a variant: `steps` calls of `tool`, then an answer (or a final_answer call). */
function script(steps: number, tool: string, args: Record<string, string>, final: 'text' | 'output'): Script {
  return (_request, ctx) => {
    if (ctx.step <= steps) return { toolCalls: [{ name: tool, args }] };
    return final === 'output'
      ? { toolCalls: [{ name: 'final_answer', args: { answer: `done after ${steps} tool steps` } }] }
      : { text: `done after ${steps} tool steps` };
  };
}

/** One agent per variant, and the scripted provider serving them all. */
function variantAgents(steps: number): { agents: Agent[]; provider: ScriptedProvider } {
  // The scripted provider picks a script by model id: each agent's model id is its name.
  const model = (name: string) => ({ provider: 'scripted', model: name });
  const base: Omit<AgentConfig, 'name' | 'model'> = { tools: [lookup(false)], maxSteps: steps + 2 };
  const pass = (name: string) => defineGuardrail({ name, check: () => ({ pass: true }) });
  const child = defineAgent({ name: 'bench_child', model: model('bench_child'), tools: [] });
  const agents: Agent[] = [
    defineAgent({ ...base, name: 'bench_plain', model: model('bench_plain') }),
    defineAgent({
      ...base,
      name: 'bench_guardrails',
      model: model('bench_guardrails'),
      guardrails: { input: [pass('input_ok')], output: [pass('output_ok')] },
    }),
    defineAgent({
      ...base,
      name: 'bench_hooks',
      model: model('bench_hooks'),
      hooks: {
        beforeToolCall: ({ args }) => ({ args: { ...args, key: 'rewritten' } }),
        afterToolCall: ({ result }) => ({ result: String(result).toUpperCase() }),
      },
    }),
    defineAgent({ ...base, name: 'bench_untrusted', model: model('bench_untrusted'), tools: [lookup(true)] }),
    defineAgent({ ...base, name: 'bench_output', model: model('bench_output'), output: z.object({ answer: z.string() }) }),
    defineAgent({ ...base, name: 'bench_sub-agent', model: model('bench_sub-agent'), tools: [agentTool(child, { name: 'ask_child' })] }),
  ];
  const provider = new ScriptedProvider({
    bench_plain: script(steps, 'lookup', { key: 'k' }, 'text'),
    bench_guardrails: script(steps, 'lookup', { key: 'k' }, 'text'),
    bench_hooks: script(steps, 'lookup', { key: 'k' }, 'text'),
    bench_untrusted: script(steps, 'lookup', { key: 'k' }, 'text'),
    bench_output: script(steps, 'lookup', { key: 'k' }, 'output'),
    'bench_sub-agent': script(steps, 'ask_child', { input: 'k' }, 'text'),
    bench_child: () => ({ text: 'value of k' }),
  });
  return { agents, provider };
}

async function main(): Promise<void> {
  const settings = parseSettings(process.argv.slice(2));
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const cleanups: Array<() => Promise<unknown> | unknown> = [];
  const log = (line: string) => console.error(line);
  try {
    const { address, server } = await benchServer(log, cleanups);
    const dir = mkdtempSync(join(tmpdir(), 'durable-agent-bench-features-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const { agents, provider } = variantAgents(settings.steps);
    const taskQueue = `bench-features-${randomUUID().slice(0, 8)}`;
    const nativeConnection = await NativeConnection.connect({ address });
    cleanups.push(() => nativeConnection.close());
    log('bundling workflows…');
    const worker = await createWorker({
      agents,
      providers: { scripted: provider },
      store: new FileBlobStore(dir),
      connection: nativeConnection,
      taskQueue,
      encryption: false,
    });
    const running = worker.run();
    cleanups.push(async () => {
      worker.shutdown();
      await running;
    });
    const connection = await Connection.connect({ address });
    cleanups.push(() => connection.close());
    const client = new AgentClient(new Client({ connection }), taskQueue);

    const seconds: Record<Variant, number[]> = Object.fromEntries(VARIANTS.map((v) => [v, []])) as unknown as Record<Variant, number[]>;
    const events: Record<Variant, number> = Object.fromEntries(VARIANTS.map((v) => [v, 0])) as Record<Variant, number>;
    log(`server: ${server}; ${settings.runs} runs × ${VARIANTS.length} variants × ${settings.steps} tool steps`);
    // One warm-up run of each variant (bundle loaded, caches filled), then the measured runs, interleaved.
    for (let round = 0; round <= settings.runs; round++) {
      for (const v of VARIANTS) {
        const begun = performance.now();
        const run = await client.start(`bench_${v}`, { input: 'go', workflowId: `bench-${v}-${randomUUID().slice(0, 8)}` });
        const result = await run.result();
        const took = (performance.now() - begun) / 1000;
        if (result.status !== 'success') throw new Error(`${v}: the run ended ${result.status}: ${result.error?.message ?? ''}`);
        if (round === 0) continue;
        seconds[v].push(took);
        events[v] = (await run.handle.describe()).historyLength;
      }
    }
    const plain = spread(seconds.plain).median / (settings.steps + 1);
    const rows = [['variant', 'ms/step (median)', 'ratio to plain', 'history events/step']];
    for (const v of VARIANTS) {
      const perStep = spread(seconds[v]).median / (settings.steps + 1);
      rows.push([v, num(perStep * 1000, 1), `${num(perStep / plain, 2)}×`, num(events[v] / (settings.steps + 1), 1)]);
    }
    console.log(table(rows));
    console.log(
      `(${settings.runs} runs each after a warm-up, ${settings.steps} tool steps + 1 answer per run, zero-latency scripted model, one worker)`,
    );
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup();
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
