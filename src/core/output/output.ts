/**
 * Structured final output: the rules of an agent whose final answer must match a schema. The worker
 * validates each final answer (zod, in the model activity) and records either the validated value or
 * what is wrong with it; these pure rules decide what the loop does with that: finish with the output,
 * feed the errors back to the model, or end the run `output_invalid`.
 */
import type { AgentEventBody } from '../events/events';
import { withUserText } from '../messages/user-messages';
import type { JsonObject, JsonValue } from '../messages/json';
import type { AssistantMessage } from '../messages/messages';
import { messageText, toolCalls } from '../messages/messages';
import type { ToolOutcome } from '../tool-calls/outcomes';
import { errorOutcome, toolResultEvent } from '../tool-calls/outcomes';
import type { AgentSpec, OutputSpec, PromptSpec } from '../run/spec';
import type { LoopState, ModelStep } from '../loop/state';
import type { Transition } from '../loop/transitions';
import { closeOpenCalls } from '../loop/transitions';

/** Name of the tool a model calls to give its final answer (output mode `tool`). */
export const FINAL_ANSWER_TOOL = 'final_answer';

/** How many times an invalid final answer is fed back by default before the run ends `output_invalid`. */
export const DEFAULT_OUTPUT_RETRIES = 2;

/** What the model is told about answering, in output mode `tool`. */
export const FINAL_ANSWER_INSTRUCTION =
  `When you have the final answer, call the \`${FINAL_ANSWER_TOOL}\` tool with it as its input (matching its schema); do not answer in plain text. ` +
  `Call it alone, after any other tools you need.`;

/** What the model is told about answering, in output mode `native`. */
export const NATIVE_OUTPUT_INSTRUCTION = 'Your final answer must be a single JSON value matching the required schema, with no other text.';

/** The result the `final_answer` call gets when its input is accepted. */
export const FINAL_ANSWER_ACCEPTED = 'Final answer recorded.';

/** The result other calls made alongside `final_answer` get: the final answer ends the turn. */
export const NOT_RUN_WITH_FINAL_ANSWER = `Not executed: it was called together with ${FINAL_ANSWER_TOOL}; call other tools first, then ${FINAL_ANSWER_TOOL} alone.`;

/** The `final_answer` tool as the model sees it: the output schema as its input schema. */
export function finalAnswerTool(schema: JsonObject): PromptSpec['tools'][number] {
  return {
    name: FINAL_ANSWER_TOOL,
    description: 'Give your final answer. Its input is the answer itself, matching the schema.',
    inputSchema: schema,
  };
}

/** The prompt the model is shown in output mode `tool`: the agent's, plus the `final_answer` tool and how to use it. */
export function promptWithOutput(prompt: PromptSpec, output: OutputSpec): PromptSpec {
  const instruction = output.mode === 'tool' ? FINAL_ANSWER_INSTRUCTION : NATIVE_OUTPUT_INSTRUCTION;
  return {
    ...prompt,
    system: prompt.system ? `${prompt.system}\n\n${instruction}` : instruction,
    tools: output.mode === 'tool' ? [...prompt.tools, finalAnswerTool(output.schema)] : prompt.tools,
  };
}

/**
 * What of a model's answer is its final answer, to validate: the input of its `final_answer` call (mode
 * `tool`), or its text (a text-only answer: JSON is expected). Absent when the answer asks for other tools
 * (not an answer yet) or was cut off.
 */
export type FinalAnswer =
  /** The input of the `final_answer` call; `inputError` when its arguments were not valid JSON. */
  | { kind: 'call'; input: JsonValue; inputError?: string }
  /** A text-only answer. */
  | { kind: 'text'; text: string };

/** The final answer in `message`, if it gives one (see {@link FinalAnswer}). */
export function finalAnswerOf(
  message: AssistantMessage,
  stopReason: ModelStep['stopReason'],
  mode: OutputSpec['mode'],
): FinalAnswer | undefined {
  if (stopReason === 'max_tokens') return undefined;
  const calls = toolCalls(message);
  const final = mode === 'tool' ? calls.find((c) => c.name === FINAL_ANSWER_TOOL) : undefined;
  if (final) return { kind: 'call', input: final.input, ...(final.inputError !== undefined ? { inputError: final.inputError } : {}) };
  if (calls.length > 0) return undefined;
  return { kind: 'text', text: messageText(message) };
}

/**
 * The JSON in a text answer: the whole text, or the content of a fenced code block (models often fence
 * JSON). Returns an error message when there is none.
 */
export function parseJsonAnswer(text: string): { value: JsonValue } | { error: string } {
  const trimmed = text.trim();
  const fenced = /^```[a-zA-Z]*\s*\n([\s\S]*?)\n?```$/.exec(trimmed);
  const candidate = fenced ? fenced[1]!.trim() : trimmed;
  if (!candidate) return { error: 'The answer is empty: expected JSON matching the output schema.' };
  try {
    return { value: JSON.parse(candidate) as JsonValue };
  } catch (err) {
    return { error: `The answer is not valid JSON (${(err as Error).message}).` };
  }
}

/** One problem of an answer, as a validator reports it. */
export interface OutputIssue {
  path: ReadonlyArray<string | number>;
  message: string;
}

/** At most this many issues are listed to the model (and in the run's error). */
export const MAX_LISTED_ISSUES = 10;

/** Validation issues as concise lines the model can act on: `- path.to.field: message`. */
export function formatIssues(issues: readonly OutputIssue[]): string {
  const lines = issues
    .slice(0, MAX_LISTED_ISSUES)
    .map((i) => `- ${i.path.length ? i.path.map(String).join('.') : '(the answer itself)'}: ${i.message}`);
  if (issues.length > MAX_LISTED_ISSUES) lines.push(`- …and ${issues.length - MAX_LISTED_ISSUES} more`);
  return lines.join('\n');
}

/** What the model reads after an answer that does not match the schema. */
export function outputFeedback(errors: string, mode: OutputSpec['mode'], viaCall: boolean): string {
  const how =
    mode === 'tool'
      ? viaCall
        ? `Call ${FINAL_ANSWER_TOOL} again with a corrected answer.`
        : `Give your final answer by calling the \`${FINAL_ANSWER_TOOL}\` tool with an input matching its schema.`
      : 'Answer again with only JSON matching the schema.';
  return `Your final answer does not match the required output schema:\n${errors}\n${how}`;
}

/**
 * Apply the validation of a final answer (agents with `output`) on top of the model step's transition:
 *
 * - valid: the run's turn ends `success` with the output (a `final_answer` call gets its result, other
 *   calls of the same answer are closed unrun, so the transcript stays well formed for the next turn);
 * - invalid, retries left in this turn and a step left: the errors are fed back (as the `final_answer`
 *   call's error result, or a user turn after a text answer) and the model is called again;
 * - invalid otherwise: the run ends `output_invalid`, the errors in its error message.
 *
 * A step that gives no final answer (other tool calls, a cut-off answer) passes through unchanged.
 */
export function applyOutputAnswer(t: Transition, spec: AgentSpec, out: ModelStep): Transition {
  const output = spec.output;
  if (!output || (out.output === undefined && out.outputErrors === undefined)) return t;
  const state = t.state;
  const message = state.messages[state.messages.length - 1];
  const final =
    message?.role === 'assistant' && output.mode === 'tool' ? toolCalls(message).find((c) => c.name === FINAL_ANSWER_TOOL) : undefined;
  const events: AgentEventBody[] = [...t.events];

  /** Give the `final_answer` call `outcome` and close the other calls unrun (results and report lines). */
  const closeCalls = (outcome: ToolOutcome | undefined): LoopState => {
    const closed = closeOpenCalls(state, outcome ? [outcome] : [], NOT_RUN_WITH_FINAL_ANSWER);
    if (outcome) events.push(toolResultEvent(state.step, outcome));
    events.push(...closed.events);
    return closed.state;
  };

  if (out.output !== undefined) {
    const accepted: ToolOutcome | undefined = final
      ? {
          callId: final.id,
          tool: final.name,
          output: { type: 'text', text: FINAL_ANSWER_ACCEPTED },
          isError: false,
          latencyMs: 0,
          attempts: 0,
        }
      : undefined;
    const { outputRetries: _done, ...closed } = closeCalls(accepted);
    return {
      state: { ...closed, output: out.output },
      events,
      next: { type: 'finish', status: 'success' },
    };
  }

  const errors = out.outputErrors ?? 'The answer does not match the output schema.';
  const retries = state.outputRetries ?? 0;
  const feedback = outputFeedback(errors, output.mode, final !== undefined);
  const rejected = final ? errorOutcome(final.id, final.name, feedback) : undefined;
  const closed = closeCalls(rejected);
  const retry = retries < output.maxRetries && state.step < state.maxSteps;
  events.push({ type: 'output_rejected', step: state.step, errors, retrying: retry });
  if (retry) {
    return {
      state: { ...closed, messages: final ? closed.messages : withUserText(closed.messages, [feedback]), outputRetries: retries + 1 },
      events,
      next: { type: 'call_model' },
    };
  }
  const why =
    retries < output.maxRetries
      ? ` (the step limit of ${state.maxSteps} was reached)`
      : retries > 0
        ? ` after ${retries} correction${retries === 1 ? '' : 's'}`
        : '';
  return {
    state: closed,
    events,
    next: {
      type: 'finish',
      status: 'output_invalid',
      error: { message: `The final answer does not match the output schema${why}:\n${errors}`, type: 'OutputInvalid' },
    },
  };
}

/** The text of a final answer given through the `final_answer` tool (for `finalText` when the message has no text). */
export function finalAnswerText(message: AssistantMessage): string {
  const call = toolCalls(message).find((c) => c.name === FINAL_ANSWER_TOOL);
  if (!call) return '';
  return typeof call.input === 'string' ? call.input : JSON.stringify(call.input);
}
