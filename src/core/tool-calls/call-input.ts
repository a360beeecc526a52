/**
 * Whether a tool call's input can be run at all. A tool runs only on a JSON object the model sent; any
 * other input (text that is not JSON, an array, a string…) is answered with an error the model reads,
 * quoting what it sent, and nothing runs. Pure: used by the loop in the workflow.
 */
import type { JsonObject, JsonValue } from '../messages/json';
import { preview } from '../messages/json';
import type { AssistantMessage, ToolUseBlock } from '../messages/messages';

/**
 * Deepest nesting of arrays and objects a call's arguments may have (`{"a": 1}` is 1 level deep).
 * Deeper arguments are refused as an invalid call before anything walks them: the model reads an error
 * naming the limit, nothing runs, nothing is retried.
 */
export const MAX_ARGUMENT_DEPTH = 64;

/** Start of the `inputError` of a call whose arguments are nested deeper than {@link MAX_ARGUMENT_DEPTH}. */
const TOO_DEEP = 'nested more than';

/** The `inputError` of a call whose arguments nest deeper than `limit` levels. */
export function tooDeepError(limit = MAX_ARGUMENT_DEPTH): string {
  return `${TOO_DEEP} ${limit} levels deep, the limit of a call's arguments`;
}

/**
 * Whether `value` nests arrays and objects deeper than `limit` levels. Iterative (no recursion, so no
 * stack overflow however deep the value), and stops at the first path past the limit.
 */
export function deeperThan(value: JsonValue, limit: number): boolean {
  const stack: Array<[JsonValue, number]> = [[value, 0]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (depth + 1 > limit) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) {
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
    }
  }
  return false;
}

/**
 * `message` with every call whose arguments nest deeper than `limit` made an invalid call: its input
 * becomes text (so nothing downstream walks the deep value) with an `inputError` naming the limit.
 * Providers refuse such arguments as they parse them (`providers/tool-arguments.ts`, keeping the text
 * as sent); this catches a provider that hands over a parsed value. Returns `message` itself when no
 * call is too deep.
 */
export function refuseDeepArguments(message: AssistantMessage, limit = MAX_ARGUMENT_DEPTH): AssistantMessage {
  let changed = false;
  const content = message.content.map((b) => {
    if (b.type !== 'tool_use' || b.inputError !== undefined || !deeperThan(b.input, limit)) return b;
    changed = true;
    // Not JSON.stringify: recursive, it may overflow the stack on such a value.
    return { ...b, input: `(arguments nested more than ${limit} levels deep, not quoted)`, inputError: tooDeepError(limit) };
  });
  return changed ? { ...message, content } : message;
}

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
  if (block.inputError?.startsWith(TOO_DEEP)) {
    return `The arguments of this call to "${block.name}" were ${block.inputError}. You sent: ${preview(String(block.input), QUOTED_ARGUMENTS_CHARS)}\n${retry.replace('one JSON object', `one JSON object at most ${MAX_ARGUMENT_DEPTH} levels deep`)}`;
  }
  if (block.inputError !== undefined) {
    const sent = typeof block.input === 'string' ? block.input : JSON.stringify(block.input);
    return `The arguments of this call to "${block.name}" were not valid JSON (${block.inputError}). You sent: ${preview(sent, QUOTED_ARGUMENTS_CHARS)}\n${retry}`;
  }
  const sent = JSON.stringify(block.input);
  return `The arguments of this call to "${block.name}" were not a JSON object but ${kindOf(block.input)}. You sent: ${preview(sent, QUOTED_ARGUMENTS_CHARS)}\n${retry}`;
}
