/**
 * Conversation content in the shape of the GenAI semantic conventions (`gen_ai.input.messages`,
 * `gen_ai.output.messages`: JSON arrays of `{ role, parts }`), recorded only with `captureContent`.
 */
import type { Message } from '../../core/messages/messages';
import { outputText } from '../../core/messages/messages';

/** One message part, as the conventions name them. */
type Part =
  | { type: 'text'; content: string }
  | { type: 'reasoning'; content: string }
  | { type: 'tool_call'; id: string; name: string; arguments: unknown }
  | { type: 'tool_call_response'; id: string; response: string };

/** `messages` as the conventions' JSON (thinking shown as reasoning, redacted thinking left out). */
export function genAiMessages(messages: readonly Message[], finishReason?: string): string {
  return JSON.stringify(
    messages.map((m) => ({
      role: m.role,
      parts: m.content.flatMap((b): Part[] => {
        switch (b.type) {
          case 'text':
            return [{ type: 'text', content: b.text }];
          case 'thinking':
            return [{ type: 'reasoning', content: b.thinking }];
          case 'tool_use':
            return [{ type: 'tool_call', id: b.id, name: b.name, arguments: b.input }];
          case 'tool_result':
            return [{ type: 'tool_call_response', id: b.toolUseId, response: outputText(b.output) }];
          default:
            return [];
        }
      }),
      ...(finishReason !== undefined && m.role === 'assistant' ? { finish_reason: finishReason } : {}),
    })),
  );
}
