/**
 * Positions in a chat turn's UI message stream. A cursor names the turn (the `seq` of its first user
 * message) and the last durable event the stream had turned into chunks — all of its chunks, or the first
 * `sent` of them — and, when chunks of a live (not yet durable) model call attempt were sent since, that
 * attempt: a stream resumed there first resets that step (`reset-step`) and shows it again.
 */

/** A position in a turn's stream (see {@link formatCursor} for its text form). */
export interface ChatCursor {
  /** `seq` of the turn's first `user_message` event. */
  turnStart: number;
  /** `seq` of the last durable event turned into chunks. */
  seq: number;
  /** Chunks of that event already sent, when not all of them were. */
  sent?: number;
  /** Set when chunks of this live (not yet durable) model call attempt were sent after the event. */
  live?: { step: number; attempt: number };
}

/** The cursor as text: `<turnStart>.<seq>`, `<turnStart>.<seq>.<sent>` or `<turnStart>.<seq>~<step>.<attempt>`. */
export function formatCursor(c: ChatCursor): string {
  const base = `${c.turnStart}.${c.seq}`;
  if (c.live) return `${base}~${c.live.step}.${c.live.attempt}`;
  return c.sent !== undefined ? `${base}.${c.sent}` : base;
}

/** A cursor from its text form; undefined when it is not one. */
export function parseCursor(text: string): ChatCursor | undefined {
  if (typeof text !== 'string' || text.length > 100) return undefined;
  const m = /^(\d+)\.(\d+)(?:\.(\d+)|~(\d+)\.(\d+))?$/.exec(text);
  if (!m) return undefined;
  const [turnStart, seq, sent, step, attempt] = m.slice(1).map((x) => (x === undefined ? undefined : Number(x)));
  if (![turnStart, seq, sent, step, attempt].every((x) => x === undefined || Number.isSafeInteger(x))) return undefined;
  if (seq! < turnStart!) return undefined;
  return {
    turnStart: turnStart!,
    seq: seq!,
    ...(sent !== undefined ? { sent } : {}),
    ...(step !== undefined && attempt !== undefined ? { live: { step, attempt } } : {}),
  };
}
