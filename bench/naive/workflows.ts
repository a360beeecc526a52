/**
 * The naive loop: an agent loop on Temporal as most peers write it. The conversation lives in the
 * workflow and goes, whole, into every model activity's input; tool outputs come back inline. So
 * history grows with the square of the run's length, and the run dies when one payload passes the
 * server's 2 MB limit, or its history passes 50 MB or 51,200 events — whichever comes first.
 * Workflow code: deterministic, imports only `@temporalio/workflow` (and types).
 */
import { proxyActivities } from '@temporalio/workflow';
import type { NaiveActivities, NaiveMessage } from './activities';

const { naiveModel, naiveTool } = proxyActivities<NaiveActivities>({ startToCloseTimeout: '1 minute', retry: { maximumAttempts: 2 } });

/** Input of {@link naiveLoopWorkflow}. */
export interface NaiveLoopInput {
  prompt: string;
  toolSteps: number;
  /** Bytes each tool call returns. */
  bytes: number;
}

/** What a naive run did, when it lives to the end. */
export interface NaiveLoopResult {
  steps: number;
  finalText: string;
}

/** Call the model with the whole conversation, run the tool it asks for, append both, repeat. */
export async function naiveLoopWorkflow(input: NaiveLoopInput): Promise<NaiveLoopResult> {
  const messages: NaiveMessage[] = [{ role: 'user', content: input.prompt }];
  for (let step = 1; ; step++) {
    const { message } = await naiveModel({ step, toolSteps: input.toolSteps, messages });
    messages.push(message);
    if (!message.toolCall) return { steps: step, finalText: message.text ?? '' };
    const content = await naiveTool({ step, doc: message.toolCall.args.doc, bytes: input.bytes });
    messages.push({ role: 'tool', toolCallId: message.toolCall.id, content });
  }
}
