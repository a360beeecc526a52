/**
 * Positions in a chat turn's UI message stream. A cursor names the turn (the `seq` of its first user
 * message), the last durable event the stream had turned into chunks and how many of that event's chunks
 * were sent, and — when the chunks came from live deltas — the model call attempt they belong to.
 */

/** A position in a turn's stream (see {@link formatCursor} for its text form). */
export interface ChatCursor {
  /** `seq` of the turn's first `user_message` event. */
  turnStart: number;
  /** `seq` of the last durable event turned into chunks. */
  seq: number;
  /** Chunks of that event already sent. */
  sent: number;
  /** Set when chunks of a live (not yet durable) model call attempt were sent since. */
  live?: { step: number; attempt: number };
}

/** The cursor as text: `<turnStart>.<seq>.<sent>[.<step>.<attempt>]`. */
export function formatCursor(c: ChatCursor): string {
  const base = `${c.turnStart}.${c.seq}.${c.sent}`;
  return c.live ? `${base}.${c.live.step}.${c.live.attempt}` : base;
}

/** A cursor from its text form; undefined when it is not one. */
export function parseCursor(text: string): ChatCursor | undefined {
  if (typeof text !== 'string' || text.length > 100 || !/^\d+(\.\d+){2}(\.\d+\.\d+)?$/.test(text)) return undefined;
  const n = text.split('.').map(Number);
  if (n.some((x) => !Number.isSafeInteger(x))) return undefined;
  const [turnStart, seq, sent, step, attempt] = n as [number, number, number, number?, number?];
  if (seq < turnStart) return undefined;
  return { turnStart, seq, sent, ...(step !== undefined && attempt !== undefined ? { live: { step, attempt } } : {}) };
}
