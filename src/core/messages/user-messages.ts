/**
 * Messages people send to a running agent: their shape, the checks every message passes, and how they
 * enter the conversation. A message that arrives while a step runs waits in the run's inbox and is given
 * to the model at its next call, so it steers the turn in progress.
 */
import type { Message, TextBlock } from './messages';
import { utf8Bytes } from './json';
import { MAX_LAYER_BYTES } from '../prompt/layers';

/** The payload of the `message` signal and the `send` update. */
export interface UserMessageInput {
  /** What the person says. */
  text: string;
  /** Who says it (e.g. `user:42`), for the record. */
  by?: string;
  /**
   * An id of the sender's choosing (e.g. the chat message's id), recorded on the message's `user_message`
   * event so the sender can find its own message among the run's events. At most 200
   * characters. A worker older than this field refuses messages carrying it:
   * deploy workers before the clients that send it.
   */
  id?: string;
  /**
   * Set layers of the agent's system prompt with the message (`null` clears one): by name, each a declared
   * layer, at most 16 KiB. They apply when the message reaches the model.
   */
  context?: Record<string, string | null>;
}

/** What the `send` update reports: the message is in the run's inbox and will reach the model. */
export interface MessageReceipt {
  /** The user turn this message belongs to (1 is the first prompt). */
  turn: number;
  /** Messages waiting in the inbox, this one included. */
  queued: number;
}

/** The longest message id accepted, in characters. */
export const MAX_MESSAGE_ID_CHARS = 200;
/** The longest message accepted, in characters. */
export const MAX_MESSAGE_CHARS = 100_000;
/** At most this many messages wait in a run's inbox; more are refused until the model has read them. */
export const MAX_QUEUED_MESSAGES = 100;

/** Check the shape of a message from the outside world. */
export function parseUserMessage(payload: unknown): { ok: true; value: UserMessageInput } | { ok: false; error: string } {
  const p = typeof payload === 'string' ? { text: payload } : payload;
  if (!p || typeof p !== 'object' || Array.isArray(p))
    return { ok: false, error: 'message must be an object { text, by?, id?, context? } or a string' };
  const m = p as Record<string, unknown>;
  const problems: string[] = [];
  if (typeof m.text !== 'string' || !m.text.trim()) problems.push('text must be a non-empty string');
  else if (m.text.length > MAX_MESSAGE_CHARS) problems.push(`text must be at most ${MAX_MESSAGE_CHARS} characters (got ${m.text.length})`);
  if (m.by !== undefined && (typeof m.by !== 'string' || !m.by.trim())) problems.push('by must be a non-empty string when given');
  if (m.id !== undefined && (typeof m.id !== 'string' || !m.id.trim() || m.id.length > MAX_MESSAGE_ID_CHARS))
    problems.push(`id must be a non-empty string of at most ${MAX_MESSAGE_ID_CHARS} characters when given`);
  const context = contextProblem(m.context);
  if (context) problems.push(context);
  const extra = Object.keys(m).filter((k) => k !== 'text' && k !== 'by' && k !== 'id' && k !== 'context');
  if (extra.length) problems.push(`unknown field(s): ${extra.join(', ')}`);
  if (problems.length) return { ok: false, error: `malformed message: ${problems.join('; ')}` };
  return {
    ok: true,
    value: {
      text: m.text as string,
      ...(typeof m.by === 'string' ? { by: m.by.trim() } : {}),
      ...(typeof m.id === 'string' ? { id: m.id } : {}),
      ...(m.context !== undefined ? { context: { ...(m.context as Record<string, string | null>) } } : {}),
    },
  };
}

/** What is wrong with a message's `context` (layer values by name), if anything: its shape and sizes (names are checked by the run). */
function contextProblem(context: unknown): string | undefined {
  if (context === undefined) return undefined;
  if (!context || typeof context !== 'object' || Array.isArray(context)) return 'context must be an object of layer texts by name';
  for (const [name, value] of Object.entries(context)) {
    if (value !== null && typeof value !== 'string') return `context.${name} must be a string or null`;
    if (typeof value === 'string' && utf8Bytes(value) > MAX_LAYER_BYTES)
      return `context.${name} is ${utf8Bytes(value)} bytes, over the limit of ${MAX_LAYER_BYTES}`;
  }
  return undefined;
}

/**
 * The conversation with `texts` added as what the user says next. When the last message is the user's
 * own (tool results of the step in progress), the texts join it after the results — a tool result must
 * directly follow its call — otherwise they form a new user message.
 */
export function withUserText(messages: readonly Message[], texts: readonly string[]): Message[] {
  if (texts.length === 0) return [...messages];
  const blocks: TextBlock[] = texts.map((text) => ({ type: 'text', text }));
  const last = messages[messages.length - 1];
  if (last?.role === 'user') return [...messages.slice(0, -1), { role: 'user', content: [...last.content, ...blocks] }];
  return [...messages, { role: 'user', content: blocks }];
}
