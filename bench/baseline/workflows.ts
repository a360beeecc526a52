/**
 * The baseline: a minimal hand-written Temporal workflow doing the same work as an agent run of the
 * benchmark, with none of durable-agent's machinery. Per step: one model-like activity, then one
 * tool-like activity; after the last tool step, one more model-like call gives the answer.
 * Workflow code: deterministic, imports only `@temporalio/workflow` (and types).
 */
import { proxyActivities } from '@temporalio/workflow';
import type { BaselineActivities, ModelLikeInput, ModelLikeOutput } from './activities';

const { modelLike, toolLike } = proxyActivities<BaselineActivities>({ startToCloseTimeout: '1 minute' });

/** Input of {@link baselineWorkflow}. */
export interface BaselineInput {
  /** Steps that call a tool. */
  toolSteps: number;
}

/** What a baseline run did. */
export interface BaselineResult {
  /** Model-like calls made (tool steps plus the answer). */
  modelCalls: number;
  toolCalls: number;
  finalText: string;
}

/** Run `toolSteps` model+tool steps, then one answering model call. */
export async function baselineWorkflow(input: BaselineInput): Promise<BaselineResult> {
  let head: string | null = null;
  let append: ModelLikeInput['append'] = null;
  let toolCalls = 0;
  for (let step = 1; ; step++) {
    const reply: ModelLikeOutput = await modelLike({ step, toolSteps: input.toolSteps, head, append });
    head = reply.head;
    if (!reply.call) return { modelCalls: step, toolCalls, finalText: reply.text ?? '' };
    const result = await toolLike({ step, call: reply.call });
    toolCalls++;
    append = { callId: reply.call.id, text: result.text };
  }
}
