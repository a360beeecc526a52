import type { JsonObject, JsonValue } from './json';

/** A reference to an immutable, content-addressed blob in a {@link BlobStore}: `sha256-<hex>`. */
export type BlobRef = string;

/** Plain text. */
export interface TextBlock {
  type: 'text';
  text: string;
}

/** Extended thinking; its signature must be sent back unchanged on the next turn. */
export interface ThinkingBlock {
  type: 'thinking';
  thinking: string;
  signature: string;
}

/** Thinking the provider returned encrypted. */
export interface RedactedThinkingBlock {
  type: 'redacted_thinking';
  data: string;
}

/** A tool call requested by the model. */
export interface ToolUseBlock {
  type: 'tool_use';
  /** Provider-assigned call id; tool results refer to it. */
  id: string;
  name: string;
  /**
   * The arguments exactly as the model sent them, parsed: a JSON object for a well-formed call. Any other
   * JSON value (an array, a string…) is kept as sent and the call is answered with an error, never run.
   * When the model's text was not valid JSON at all, `input` is that raw text and `inputError` says why.
   */
  input: JsonValue;
  /** Set when the model's arguments were not valid JSON: the parse error. `input` then holds the raw text. */
  inputError?: string;
  /**
   * Set when the response was cut off (max_tokens) before the call's arguments were complete.
   * Such a call is never executed.
   */
  incomplete?: true;
}

/** What a tool returned: inline text, or a reference to a stored blob when it was too large for history. */
export type ToolOutput = { type: 'text'; text: string } | { type: 'stored'; ref: BlobRef; bytes: number; preview: string };

/** The result of one tool call, sent back to the model. */
export interface ToolResultBlock {
  type: 'tool_result';
  toolUseId: string;
  output: ToolOutput;
  isError: boolean;
  /** The arguments the call ran with, when a `beforeToolCall` hook rewrote the model's (recorded, not sent to the model). */
  ranArgs?: JsonObject;
}

/** Blocks a user message may hold. */
export type UserContent = TextBlock | ToolResultBlock;

/** Blocks an assistant message may hold. */
export type AssistantContent = TextBlock | ThinkingBlock | RedactedThinkingBlock | ToolUseBlock;

/** A message from the user (prompts and tool results). */
export interface UserMessage {
  role: 'user';
  content: UserContent[];
}

/** A message from the model. */
export interface AssistantMessage {
  role: 'assistant';
  content: AssistantContent[];
}

/** One message of a conversation. */
export type Message = UserMessage | AssistantMessage;

/** Every content block kind. */
export type ContentBlock = UserContent | AssistantContent;

/** The text blocks of a message, joined. */
export function messageText(message: Message): string {
  return message.content
    .filter((b): b is TextBlock => b.type === 'text')
    .map((b) => b.text)
    .join('');
}

/** The tool calls of an assistant message, in the order the model made them. */
export function toolCalls(message: AssistantMessage): ToolUseBlock[] {
  return message.content.filter((b): b is ToolUseBlock => b.type === 'tool_use');
}

/** The text of a tool output as far as it is known inline (the preview for stored outputs). */
export function outputText(output: ToolOutput): string {
  return output.type === 'text' ? output.text : output.preview;
}
