/**
 * Whether a tool call's input can be run at all. A tool runs only on a JSON object the model sent; any
 * other input (text that is not JSON, an array, a string…) is answered with an error the model reads,
 * quoting what it sent, and nothing runs. Pure: used by the loop in the workflow.
 */
import type { JsonObject, JsonValue } from './json';
import { preview } from './json';
import type { ToolUseBlock } from './messages';

/** How much of the model's arguments an error quotes back, in characters. */
export const QUOTED_ARGUMENTS_CHARS = 500;

/** True for a JSON object (not an array, not null). */
export function isJsonObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function kindOf(value: JsonValue): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

/**
 * The error result for a call whose input is not a JSON object, or undefined when the call may run.
 * The message says what was wrong, quotes what the model sent (clipped to {@link QUOTED_ARGUMENTS_CHARS})
 * and says that nothing was run.
 *
 * @example
 * ```ts
 * invalidCallInput({ type: 'tool_use', id: 'c1', name: 'refund', input: '{"amount": 5', inputError: 'Unexpected end of JSON input' });
 * // 'The arguments of this call to "refund" were not valid JSON (Unexpected end of JSON input). You sent: {"amount": 5 …'
 * ```
 */
export function invalidCallInput(block: ToolUseBlock): string | undefined {
  if (block.inputError === undefined && isJsonObject(block.input)) return undefined;
  const retry = `Nothing was run. To call "${block.name}", send its arguments as one JSON object.`;
  if (block.inputError !== undefined) {
    const sent = typeof block.input === 'string' ? block.input : JSON.stringify(block.input);
    return `The arguments of this call to "${block.name}" were not valid JSON (${block.inputError}). You sent: ${preview(sent, QUOTED_ARGUMENTS_CHARS)}\n${retry}`;
  }
  const sent = JSON.stringify(block.input);
  return `The arguments of this call to "${block.name}" were not a JSON object but ${kindOf(block.input)}. You sent: ${preview(sent, QUOTED_ARGUMENTS_CHARS)}\n${retry}`;
}
