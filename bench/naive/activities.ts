/**
 * Activities of the naive loop: the way most agent frameworks put an agent on Temporal. The model
 * activity receives the whole conversation (every message, every tool output inline) as its input, and
 * the tool activity returns its output inline, so both land in workflow history at every step. The
 * "model" behaves like the benchmark's scripted one: zero latency, the same tool call every step, and a
 * token estimate of 4 characters a token over the request it was given.
 */
import { pageText } from '../page-text';

/** A message of the naive loop's conversation (a simplified provider message). */
export type NaiveMessage =
  | { role: 'user'; content: string }
  | { role: 'assistant'; toolCall?: { id: string; name: string; args: { doc: string } }; text?: string }
  | { role: 'tool'; toolCallId: string; content: string };

/** Input of {@link NaiveActivities.naiveModel}: the whole conversation, as peers pass it. */
export interface NaiveModelInput {
  step: number;
  toolSteps: number;
  messages: NaiveMessage[];
}

/** Output of {@link NaiveActivities.naiveModel}. */
export interface NaiveModelOutput {
  message: Extract<NaiveMessage, { role: 'assistant' }>;
  usage: { inputTokens: number; outputTokens: number };
}

/** The naive loop's activities. */
export interface NaiveActivities {
  naiveModel(input: NaiveModelInput): Promise<NaiveModelOutput>;
  naiveTool(input: { step: number; doc: string; bytes: number }): Promise<string>;
}

/** The naive loop's activity implementations. */
export const naiveActivities: NaiveActivities = {
  async naiveModel({ step, toolSteps, messages }) {
    const inputTokens = Math.ceil(JSON.stringify(messages).length / 4);
    const message: NaiveModelOutput['message'] =
      step <= toolSteps
        ? { role: 'assistant', toolCall: { id: `call_${step}_0`, name: 'read_page', args: { doc: 'manual' } } }
        : { role: 'assistant', text: `done after ${toolSteps} tool steps` };
    return { message, usage: { inputTokens, outputTokens: Math.ceil(JSON.stringify(message).length / 4) } };
  },
  async naiveTool({ step, doc, bytes }) {
    return pageText(doc, step, bytes);
  },
};
