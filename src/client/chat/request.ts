/**
 * The body `useChat`'s transports POST (`DefaultChatTransport`'s standard body, accepted whole): only the
 * last message is used — a new user message's text, or an assistant message's `approval-responded` tool
 * parts (the decisions to make). Nothing else of the history is trusted or read.
 */
import { z } from 'zod';
import { MAX_MESSAGE_ID_CHARS } from '../../core/messages/user-messages';

/** The longest body accepted, in bytes. */
export const MAX_CHAT_BODY_BYTES = 1024 * 1024;
/** A chat id: what `useChat` generates, or an app's own (letters, digits, `_`, `-`, `:`; 1–200 characters; not `.`/`..`). */
export const CHAT_ID_PATTERN = /^[A-Za-z0-9_:-][A-Za-z0-9_.:-]{0,199}$/;

/** A decision the user made in the chat: on the call `callId` (the approval id). */
export interface ChatDecision {
  callId: string;
  approved: boolean;
  reason?: string;
}

/** What a chat POST asks for: send a user message, or decide approvals and go on with the same assistant message. */
export type ChatRequest = ChatMessageRequest | ChatApprovalsRequest;

/** Send the user's message. */
export interface ChatMessageRequest {
  kind: 'message';
  chatId: string;
  text: string;
  /** The message's id (the AI SDK's message id), recorded with it so its turn is found by id. */
  messageId?: string;
}

/** Decide the approvals the user answered, then stream the continuation of the assistant message. */
export interface ChatApprovalsRequest {
  kind: 'approvals';
  chatId: string;
  decisions: ChatDecision[];
}

/** A malformed request: `field` names what is wrong (e.g. `messages[3].parts`). */
export class ChatRequestError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(`${field}: ${message}`);
    this.name = 'ChatRequestError';
  }
}

const Part = z.looseObject({ type: z.string().max(200) });
const Message = z.looseObject({
  id: z.string().max(500).optional(),
  role: z.enum(['user', 'assistant', 'system']),
  parts: z.array(Part).max(10_000),
});
const Body = z.looseObject({
  id: z.string().regex(CHAT_ID_PATTERN, 'must be a chat id: 1–200 letters, digits, "_", "-", ":" or "."'),
  messages: z.array(z.unknown()).min(1, 'must hold at least the new message').max(100_000),
  trigger: z.enum(['submit-message', 'regenerate-message']).optional(),
  messageId: z.string().max(500).optional().nullable(),
});
const ApprovalPart = z.looseObject({
  type: z.string(),
  state: z.literal('approval-responded'),
  approval: z.looseObject({ id: z.string().min(1).max(500), approved: z.boolean(), reason: z.string().max(10_000).optional() }),
});

function fieldOf(path: ReadonlyArray<PropertyKey>, prefix = ''): string {
  return path.reduce<string>((acc, k) => (typeof k === 'number' ? `${acc}[${k}]` : acc ? `${acc}.${String(k)}` : String(k)), prefix);
}

function fail(error: z.ZodError, prefix = ''): never {
  const issue = error.issues[0]!;
  throw new ChatRequestError(fieldOf(issue.path, prefix) || prefix || 'body', issue.message);
}

/**
 * The request a POST body makes.
 * @throws {ChatRequestError} naming the field that is wrong.
 */
export function parseChatRequest(body: unknown): ChatRequest {
  const parsed = Body.safeParse(body);
  if (!parsed.success) fail(parsed.error);
  const { id, messages, trigger } = parsed.data;
  if (trigger === 'regenerate-message')
    throw new ChatRequestError('trigger', 'regenerating an answer is not supported: a durable run keeps what it answered');
  const index = messages.length - 1;
  const last = Message.safeParse(messages[index]);
  if (!last.success) fail(last.error, `messages[${index}]`);
  const where = `messages[${index}]`;
  if (last.data.role === 'user') {
    const text = last.data.parts
      .filter((p) => p.type === 'text')
      .map((p) => (p as { text?: unknown }).text)
      .filter((t): t is string => typeof t === 'string')
      .join('\n');
    if (!text.trim()) throw new ChatRequestError(`${where}.parts`, 'the user message holds no text');
    if (text.length > 100_000) throw new ChatRequestError(`${where}.parts`, 'the message is longer than 100,000 characters');
    const given = last.data.id;
    const messageId = given !== undefined && given.trim() && given.length <= MAX_MESSAGE_ID_CHARS ? given : undefined;
    return { kind: 'message', chatId: id, text, ...(messageId ? { messageId } : {}) };
  }
  if (last.data.role === 'assistant') {
    const decisions: ChatDecision[] = [];
    last.data.parts.forEach((p, i) => {
      if (!p.type.startsWith('tool-') && p.type !== 'dynamic-tool') return;
      if ((p as { state?: unknown }).state !== 'approval-responded') return;
      const a = ApprovalPart.safeParse(p);
      if (!a.success) fail(a.error, `${where}.parts[${i}]`);
      const { id: callId, approved, reason } = a.data.approval;
      decisions.push({ callId, approved, ...(reason !== undefined ? { reason } : {}) });
    });
    if (decisions.length === 0)
      throw new ChatRequestError(`${where}.parts`, 'the assistant message answers no approval (no "approval-responded" tool part)');
    return { kind: 'approvals', chatId: id, decisions };
  }
  throw new ChatRequestError(
    `${where}.role`,
    "the last message must be the user's new message or an assistant message with approval answers",
  );
}
