/**
 * Structured final output in the worker: what the model is asked for (the `final_answer` tool or the
 * provider's native structured output) and the zod validation of its final answer, whose verdict the
 * model activity returns (and history records).
 */
import { ApplicationFailure } from '@temporalio/common';
import type { z } from 'zod';
import type { ModelFailureDetails } from '../core/run/contract';
import type { JsonValue } from '../core/messages/json';
import type { AssistantMessage } from '../core/messages/messages';
import type { ModelRequest, StopReason } from '../core/output/native-output';
import { FINAL_ANSWER_TOOL, finalAnswerOf, formatIssues, parseJsonAnswer, promptWithOutput } from '../core/output/output';
import type { OutputSpec, PromptSpec } from '../core/run/spec';
import type { AgentRegistry } from '../agents/registry';

/** The request's prompt and output fields for an agent with an output contract. */
export function outputRequest(prompt: PromptSpec, output: OutputSpec): PromptSpec & Pick<ModelRequest, 'output'> {
  return {
    ...promptWithOutput(prompt, output),
    ...(output.mode === 'native' ? { output: { name: FINAL_ANSWER_TOOL, schema: output.schema } } : {}),
  };
}

/** The verdict on a final answer: its validated value, or what is wrong with it; empty when the answer is not final. */
export type OutputVerdict = { output: JsonValue } | { outputErrors: string } | Record<string, never>;

/**
 * Validate the final answer in `message` (if it gives one) against `schema`: a `final_answer` call's
 * input, or a text answer parsed as JSON.
 */
export function judgeAnswer(schema: z.ZodType, message: AssistantMessage, stopReason: StopReason, output: OutputSpec): OutputVerdict {
  const answer = finalAnswerOf(message, stopReason, output.mode);
  if (!answer) return {};
  let value: JsonValue;
  if (answer.kind === 'call') {
    if (answer.inputError !== undefined)
      return { outputErrors: `- (the answer itself): the ${FINAL_ANSWER_TOOL} arguments are not valid JSON (${answer.inputError}).` };
    value = answer.input;
  } else {
    const parsed = parseJsonAnswer(answer.text);
    if ('error' in parsed) return { outputErrors: `- (the answer itself): ${parsed.error}` };
    value = parsed.value;
  }
  const checked = schema.safeParse(value);
  if (!checked.success)
    return {
      outputErrors: formatIssues(
        checked.error.issues.map((i) => ({ path: i.path.map((p) => (typeof p === 'symbol' ? String(p) : p)), message: i.message })),
      ),
    };
  return { output: checked.data as JsonValue };
}

/**
 * The zod output schema of agent `agent` on this worker.
 *
 * @throws ApplicationFailure of type `OutputSchemaMissing` (non-retryable) when the worker's agent has no
 * output schema any more (its code changed while the run was going on).
 */
export function outputSchemaFor(registry: AgentRegistry | undefined, agent: string): z.ZodType {
  const schema = registry?.get(agent).output;
  if (schema) return schema;
  throw ApplicationFailure.create({
    message: `Agent "${agent}" was started with an output schema, but this worker's definition of it has none: deploy the agent with its output schema to finish the run`,
    type: 'OutputSchemaMissing',
    nonRetryable: true,
    details: [{ retryable: false } satisfies ModelFailureDetails],
  });
}
