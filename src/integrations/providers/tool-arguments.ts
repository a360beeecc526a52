/**
 * Reading a tool call's argument text as the model sent it. Nothing is repaired or guessed: valid JSON
 * becomes its value (of whatever type), anything else is kept as the raw text with the parse error, so
 * a tool never runs on arguments the model did not send (see core/call-input.ts).
 */
import { deeperThan, MAX_ARGUMENT_DEPTH, tooDeepError } from '../../core/tool-calls/call-input';
import type { JsonValue } from '../../core/messages/json';
import type { ToolUseBlock } from '../../core/messages/messages';

/** A call's arguments: the parsed value, or the raw text and why it did not parse. */
export interface ParsedArguments {
  input: JsonValue;
  /** Set when the text was not valid JSON; `input` is then the raw text. */
  inputError?: string;
}

/**
 * Parse a call's argument text. An empty (or all-blank) text means "no arguments", `{}`: servers send
 * that for calls of tools without parameters. Arguments nested deeper than {@link MAX_ARGUMENT_DEPTH}
 * are kept as the raw text with an `inputError` naming the limit (an invalid call: nothing later walks
 * the deep value, which could overflow the stack).
 */
export function parseArguments(text: string): ParsedArguments {
  if (!text.trim()) return { input: {} };
  let input: JsonValue;
  try {
    input = JSON.parse(text) as JsonValue;
  } catch (err) {
    return { input: text, inputError: err instanceof Error ? err.message : String(err) };
  }
  return deeperThan(input, MAX_ARGUMENT_DEPTH) ? { input: text, inputError: tooDeepError() } : { input };
}

/**
 * A streamed call as the answer holds it, its argument text parsed. `truncated`: the answer was cut off
 * at the length limit, so arguments that do not parse were cut off too (`incomplete`). A server that sent
 * no id leaves it empty: the model activity gives every call a unique id.
 */
export function streamedCallBlock(c: { id: string; name: string; args: string }, truncated: boolean): ToolUseBlock {
  const { input, inputError } = parseArguments(c.args);
  return {
    type: 'tool_use',
    id: c.id,
    name: c.name,
    input,
    ...(inputError !== undefined ? { inputError } : {}),
    ...(truncated && inputError !== undefined ? { incomplete: true as const } : {}),
  };
}
