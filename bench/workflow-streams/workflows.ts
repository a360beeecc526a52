/**
 * The workflow of the comparison: `steps` model steps, each an activity that streams `chunks` deltas,
 * then (but for the last step) a trivial tool activity — the shape of a durable-agent step in
 * bench/streaming.ts. The workflow hosts a Workflow Stream; whether the model activity publishes to it
 * is the only difference between a streaming run and the quiet baseline.
 */
import { proxyActivities } from '@temporalio/workflow';
import { WorkflowStream } from '@temporalio/workflow-streams/workflow';
import type * as activities from './activities';

/** What a run does. */
export interface StepsInput {
  steps: number;
  chunks: number;
  intervalMs: number;
  /** Publish each delta to the Workflow Stream (else the activity only paces them, the baseline). */
  publish: boolean;
  /** The publisher's `batchInterval`. */
  batchMs: number;
}

const { modelStep, note } = proxyActivities<typeof activities>({
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: '30 seconds',
  retry: { maximumAttempts: 1 },
});

/** Run the steps; the stream is hosted by every run, streaming or not (its handlers add no history by themselves). */
export async function streamingSteps(input: StepsInput): Promise<number> {
  new WorkflowStream();
  for (let step = 1; step <= input.steps; step++) {
    await modelStep({ ...input, step });
    if (step < input.steps) await note(step);
  }
  return input.steps;
}
