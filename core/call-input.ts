/** Whether a tool call's arguments can be run at all: they must be a JSON object, exactly as the model sent them. */
import type { ToolUseBlock } from './messages';

const QUOTE_MAX = 500;

function quote(text: string): string {
  return text.length <= QUOTE_MAX ? text : `${text.slice(0, QUOTE_MAX)}… [${text.length - QUOTE_MAX} more chars]`;
}

/**
 * The error the model reads for a call whose arguments are not a JSON object (not valid JSON, or JSON of
 * another type), or undefined when the arguments are an object. Such a call is never run.
 */
export function invalidCallInput(block: ToolUseBlock): string | undefined {
  if (block.inputError !== undefined) {
    const raw = typeof block.input === 'string' ? block.input : JSON.stringify(block.input);
    return `Invalid arguments for tool "${block.name}": they are not valid JSON (${block.inputError}). You sent: ${quote(raw)}. The tool was not run; call it again with a JSON object.`;
  }
  const input = block.input;
  if (typeof input === 'object' && input !== null && !Array.isArray(input)) return undefined;
  const kind = Array.isArray(input) ? 'an array' : input === null ? 'null' : `a ${typeof input}`;
  return `Invalid arguments for tool "${block.name}": expected a JSON object, got ${kind}. You sent: ${quote(JSON.stringify(input))}. The tool was not run; call it again with a JSON object.`;
}
