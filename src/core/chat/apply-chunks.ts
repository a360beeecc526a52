/**
 * Chunks applied to a message, the way the AI SDK's `processUIMessageStream` applies them (for the chunk
 * kinds a durable chat sends): builds the history's messages, and lets tests check what a page would show.
 */
import type { ChatChunk, ChatMessage, ChatMessagePart, ChatTextPart, ChatReasoningPart, ChatToolPart } from './ui-message-chunks';

/** A message being assembled from chunks. */
export class MessageAssembler {
  readonly message: ChatMessage;
  private readonly texts = new Map<string, ChatTextPart>();
  private readonly reasonings = new Map<string, ChatReasoningPart>();

  constructor(id = '') {
    this.message = { id, role: 'assistant', parts: [] };
  }

  /**
   * Apply one chunk.
   * @throws {Error} a delta without its start, or a tool chunk for a call the message does not hold (as the AI SDK does).
   */
  apply(chunk: ChatChunk): void {
    const parts = this.message.parts;
    switch (chunk.type) {
      case 'start':
        this.message.id = chunk.messageId;
        return;
      case 'start-step':
        parts.push({ type: 'step-start' });
        return;
      case 'reset-step': {
        let i = parts.length - 1;
        while (i >= 0 && parts[i]!.type !== 'step-start') i--;
        parts.splice(i + 1);
        this.texts.clear();
        this.reasonings.clear();
        return;
      }
      case 'text-start': {
        const part: ChatTextPart = { type: 'text', text: '', state: 'streaming' };
        this.texts.set(chunk.id, part);
        parts.push(part);
        return;
      }
      case 'text-delta':
        this.open(this.texts, chunk.id, chunk.type).text += chunk.delta;
        return;
      case 'text-end':
        this.open(this.texts, chunk.id, chunk.type).state = 'done';
        this.texts.delete(chunk.id);
        return;
      case 'reasoning-start': {
        const part: ChatReasoningPart = { type: 'reasoning', text: '', state: 'streaming' };
        this.reasonings.set(chunk.id, part);
        parts.push(part);
        return;
      }
      case 'reasoning-delta':
        this.open(this.reasonings, chunk.id, chunk.type).text += chunk.delta;
        return;
      case 'reasoning-end':
        this.open(this.reasonings, chunk.id, chunk.type).state = 'done';
        this.reasonings.delete(chunk.id);
        return;
      case 'tool-input-start':
        parts.push({ type: `tool-${chunk.toolName}`, toolCallId: chunk.toolCallId, state: 'input-streaming' });
        return;
      case 'tool-input-delta':
        this.tool(chunk.toolCallId, chunk.type);
        return;
      case 'tool-input-available':
      case 'tool-input-error': {
        const found = this.findTool(chunk.toolCallId);
        const part: ChatToolPart = found ?? { type: `tool-${chunk.toolName}`, toolCallId: chunk.toolCallId, state: 'input-available' };
        part.input = chunk.input;
        part.state = chunk.type === 'tool-input-error' ? 'output-error' : 'input-available';
        if (chunk.type === 'tool-input-error') part.errorText = chunk.errorText;
        if (!found) parts.push(part);
        return;
      }
      case 'tool-approval-request': {
        const part = this.tool(chunk.toolCallId, chunk.type);
        part.state = 'approval-requested';
        part.approval = { id: chunk.approvalId };
        return;
      }
      case 'tool-approval-response': {
        const part = parts.find((p): p is ChatToolPart => isToolPart(p) && p.approval?.id === chunk.approvalId);
        if (!part) throw new Error(`tool-approval-response for unknown approval "${chunk.approvalId}"`);
        part.state = 'approval-responded';
        part.approval = { id: chunk.approvalId, approved: chunk.approved, ...(chunk.reason !== undefined ? { reason: chunk.reason } : {}) };
        return;
      }
      case 'tool-output-available': {
        const part = this.tool(chunk.toolCallId, chunk.type);
        part.state = 'output-available';
        part.output = chunk.output;
        return;
      }
      case 'tool-output-error': {
        const part = this.tool(chunk.toolCallId, chunk.type);
        part.state = 'output-error';
        part.errorText = chunk.errorText;
        return;
      }
      case 'tool-output-denied':
        this.tool(chunk.toolCallId, chunk.type).state = 'output-denied';
        return;
      default:
        return;
    }
  }

  private open<T>(map: Map<string, T>, id: string, type: string): T {
    const part = map.get(id);
    if (!part) throw new Error(`${type} for part "${id}" that was not started`);
    return part;
  }

  private findTool(toolCallId: string): ChatToolPart | undefined {
    return this.message.parts.find((p): p is ChatToolPart => isToolPart(p) && p.toolCallId === toolCallId);
  }

  private tool(toolCallId: string, type: string): ChatToolPart {
    const part = this.findTool(toolCallId);
    if (!part) throw new Error(`${type} for unknown tool call "${toolCallId}"`);
    return part;
  }
}

/** True for a tool call part. */
export function isToolPart(part: ChatMessagePart): part is ChatToolPart {
  return part.type.startsWith('tool-');
}
