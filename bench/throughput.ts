/**
 * One timed batch: `runs` runs of `steps` tool steps each, started together, on one side (the agent
 * or the baseline). Every run is checked to have done exactly the work asked of it.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { STEP_AGENT } from './agents';
import type { BenchEnvironment } from './environment';
import type { baselineWorkflow } from './baseline/workflows';

/** The two sides of the comparison. */
export type Side = 'durable-agent' | 'baseline';

/** Size of a batch. */
export interface BatchSize {
  runs: number;
  /** Tool steps per run (each run also makes one final answering model call). */
  steps: number;
}

/** Tool steps per second of one batch, start of the first run to end of the last. */
export async function timeBatch(env: BenchEnvironment, side: Side, size: BatchSize): Promise<number> {
  const batch = randomUUID().slice(0, 8);
  const started = performance.now();
  const work = Array.from({ length: size.runs }, (_, i) =>
    side === 'durable-agent' ? agentRun(env, size, `${batch}-${i}`) : baselineRun(env, size, `${batch}-${i}`),
  );
  await Promise.all(work);
  const seconds = (performance.now() - started) / 1000;
  return (size.runs * size.steps) / seconds;
}

async function agentRun(env: BenchEnvironment, size: BatchSize, id: string): Promise<void> {
  // A prompt of its own: every run's transcript differs, as real ones do (with one prompt, every run
  // would store the same blobs, which a worker writes only once).
  const run = await env.agents.start(STEP_AGENT, { input: `go ${id}`, workflowId: `bench-agent-${id}` });
  const result = await run.result();
  const tools = result.report.toolCalls.filter((c) => !c.isError).length;
  if (result.status !== 'success' || result.steps !== size.steps + 1 || tools !== size.steps) {
    throw new Error(
      `agent run ${run.workflowId} did not do the expected work: status ${result.status}, ${result.steps} model calls, ${tools} tool calls`,
    );
  }
}

async function baselineRun(env: BenchEnvironment, size: BatchSize, id: string): Promise<void> {
  const result = await env.temporal.workflow.execute<typeof baselineWorkflow>('baselineWorkflow', {
    taskQueue: env.baselineQueue,
    workflowId: `bench-baseline-${id}`,
    args: [{ toolSteps: size.steps }],
  });
  if (result.modelCalls !== size.steps + 1 || result.toolCalls !== size.steps) {
    throw new Error(`baseline run ${id} did not do the expected work: ${result.modelCalls} model calls, ${result.toolCalls} tool calls`);
  }
}
