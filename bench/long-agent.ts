/**
 * A long run, by hand: one agent run of many tool steps (20 KB tool outputs by default) that continues as
 * new on its own. Prints, per execution, its events; the time a step takes early in the run against late
 * in it (ratio: late / early, measured in this same run); and the worker process's memory along the way.
 *
 *   npx tsx bench/long-agent.ts [--steps 1000] [--bytes 20480]
 */
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import type { AgentEvent } from '../core/events';
import { LONG_AGENT } from './agents';
import { startBenchEnvironment } from './environment';

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { steps: { type: 'string', default: '1000' }, bytes: { type: 'string', default: '20480' } } });
  const steps = Number(values.steps);
  const bytes = Number(values.bytes);
  if (!Number.isInteger(steps) || steps < 200 || !Number.isInteger(bytes) || bytes < 0) throw new Error('--steps must be an integer ≥ 200 and --bytes a non-negative integer');
  const env = await startBenchEnvironment({ steps: 1, longSteps: steps, longBytes: bytes }, (l) => console.error(l));
  try {
    const rss: Array<[string, number]> = [['start', process.memoryUsage().rss]];
    const started = performance.now();
    const run = await env.agents.start(LONG_AGENT, { input: 'Read the manual page by page.', workflowId: `bench-long-agent-${Date.now()}` });
    const sampler = setInterval(() => rss.push([`${Math.round((performance.now() - started) / 1000)} s`, process.memoryUsage().rss]), 10_000);
    const result = await run.result();
    clearInterval(sampler);
    rss.push(['end', process.memoryUsage().rss]);
    const seconds = (performance.now() - started) / 1000;
    if (result.status !== 'success' || result.steps !== steps + 1) throw new Error(`the run ended ${result.status} after ${result.steps} steps`);

    const events: AgentEvent[] = [];
    for (let cursor = 0; ; ) {
      const page = await run.readEvents(cursor);
      events.push(...page.events);
      if (page.events.length === 0) break;
      cursor = page.next;
    }
    const finished = events.filter((e): e is Extract<AgentEvent, { type: 'step_finished' }> & { at: string } => e.type === 'step_finished');
    const msPerStep = (from: number, to: number) => (Date.parse(finished[to]!.at) - Date.parse(finished[from]!.at)) / (to - from);
    const early = msPerStep(50, 150);
    const late = msPerStep(finished.length - 101, finished.length - 1);

    const executions: Array<{ runId: string; events: number }> = [];
    for await (const w of env.temporal.workflow.list({ query: `WorkflowId = '${run.workflowId}'` })) {
      executions.push({ runId: w.runId, events: (await env.temporal.workflow.getHandle(run.workflowId, w.runId).describe()).historyLength });
    }

    console.log(`long agent run: ${steps} tool steps, ${bytes} B per tool output, ${seconds.toFixed(1)} s in all`);
    console.log(`executions: ${executions.length}; events per execution: ${executions.map((e) => e.events).join(', ')} (max ${Math.max(...executions.map((e) => e.events))})`);
    console.log(`events read across executions: ${events.length} (seq 0..${events.at(-1)?.seq}), step_finished: ${finished.length}`);
    console.log(`ms per step, steps 50-150: ${early.toFixed(1)}; last 100 steps: ${late.toFixed(1)}; ratio late/early: ${(late / early).toFixed(2)}`);
    console.log(`worker process RSS (MB): ${rss.map(([at, b]) => `${at} ${Math.round(b / 1e6)}`).join(', ')}`);
    console.log(`result: ${JSON.stringify(result).length} B (report steps ${result.report.steps.length}, omitted ${result.report.stepsOmitted})`);
  } finally {
    await env.close();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
