/**
 * How live deltas are laid out in Redis Streams (pure: no connection). One stream per run, named
 * `<prefix><workflowId>`; each entry holds one delta as JSON in its field `d` (the workflow id is the
 * key's, not repeated); a tool's progress update has its `callId` too. Readers check every entry: one they
 * cannot read (an older reader meeting a newer kind of delta, say) is skipped, never thrown.
 */
import type { LiveDelta, ModelDelta } from '../../core/events/stream';
import { isToolProgressUpdate } from './progress-window';

/** Default prefix of the streams' keys. */
export const DEFAULT_KEY_PREFIX = 'durable-agent:deltas:';

/** The field of a stream entry that holds the delta. */
export const DELTA_FIELD = 'd';

/** A delta read back from a stream, with the entry's id (a reader resumes after it). */
export interface RedisDeltaEntry {
  /** The stream entry's id (`<ms>-<seq>`). */
  id: string;
  delta: LiveDelta;
}

/** The key of the stream holding `workflowId`'s deltas. */
export function streamKey(workflowId: string, prefix = DEFAULT_KEY_PREFIX): string {
  return `${prefix}${workflowId}`;
}

/** The stored form of a delta (its workflow id is in the key). */
export function encodeDelta(d: LiveDelta): string {
  if (d.callId !== undefined) return JSON.stringify({ step: d.step, attempt: d.attempt, n: d.n, callId: d.callId, delta: d.delta });
  return JSON.stringify({ step: d.step, attempt: d.attempt, n: d.n, delta: d.delta });
}

/** The delta stored in an entry's fields, or undefined when they hold none (or something else). */
export function decodeDelta(workflowId: string, fields: readonly string[]): LiveDelta | undefined {
  for (let i = 0; i + 1 < fields.length; i += 2) {
    if (fields[i] !== DELTA_FIELD) continue;
    let value: unknown;
    try {
      value = JSON.parse(fields[i + 1]!);
    } catch {
      return undefined;
    }
    const v = value as { step?: unknown; attempt?: unknown; n?: unknown; callId?: unknown; delta?: unknown } | null;
    if (typeof v !== 'object' || v === null || !count(v.step) || !count(v.attempt) || !count(v.n)) return undefined;
    if (typeof v.callId === 'string' && isToolProgressUpdate(v.delta))
      return { workflowId, step: v.step, attempt: v.attempt, n: v.n, callId: v.callId, delta: v.delta };
    if (v.callId !== undefined || !isModelDelta(v.delta)) return undefined;
    return { workflowId, step: v.step, attempt: v.attempt, n: v.n, delta: v.delta };
  }
  return undefined;
}

/** The entries of one stream in an XREAD reply (`[[key, [[id, fields], …]], …]`), decoded; unreadable ones left out. */
export function entriesOf(reply: unknown, key: string, workflowId: string): RedisDeltaEntry[] {
  if (!Array.isArray(reply)) return [];
  const out: RedisDeltaEntry[] = [];
  for (const stream of reply as unknown[]) {
    if (!Array.isArray(stream) || stream[0] !== key || !Array.isArray(stream[1])) continue;
    out.push(...entriesOfRange(stream[1] as unknown[], workflowId));
  }
  return out;
}

/** Entries of an XRANGE / XREVRANGE reply (`[[id, fields], …]`), decoded; unreadable ones left out. */
export function entriesOfRange(entries: readonly unknown[], workflowId: string): RedisDeltaEntry[] {
  const out: RedisDeltaEntry[] = [];
  for (const entry of entries) {
    if (!Array.isArray(entry) || typeof entry[0] !== 'string' || !Array.isArray(entry[1])) continue;
    const delta = decodeDelta(workflowId, (entry[1] as unknown[]).map(String));
    if (delta) out.push({ id: entry[0], delta });
  }
  return out;
}

/**
 * The newest progress update of each tool call among `entries` (newest attempt first, then newest
 * number), in stream order: what a reader attaching late is shown of the calls still running.
 */
export function newestProgress(entries: readonly RedisDeltaEntry[]): RedisDeltaEntry[] {
  const newest = new Map<string, { at: number; entry: RedisDeltaEntry }>();
  entries.forEach((entry, at) => {
    const d = entry.delta;
    if (d.callId === undefined) return;
    const now = newest.get(d.callId)?.entry.delta;
    if (!now || d.attempt > now.attempt || (d.attempt === now.attempt && d.n > now.n)) newest.set(d.callId, { at, entry });
  });
  return [...newest.values()].sort((a, b) => a.at - b.at).map((v) => v.entry);
}

/** The id of the last entry of an XREVRANGE `+ - COUNT 1` reply, or `0-0` for an empty (or missing) stream. */
export function lastIdOf(reply: unknown): string {
  if (Array.isArray(reply) && Array.isArray(reply[0]) && typeof reply[0][0] === 'string') return reply[0][0];
  return '0-0';
}

/** The id of the last entry of `key` in an XREAD reply, readable or not (a reader goes on after it). */
export function lastReadIdOf(reply: unknown, key: string): string | undefined {
  if (!Array.isArray(reply)) return undefined;
  let last: string | undefined;
  for (const stream of reply as unknown[]) {
    if (!Array.isArray(stream) || stream[0] !== key || !Array.isArray(stream[1])) continue;
    for (const entry of stream[1] as unknown[]) if (Array.isArray(entry) && typeof entry[0] === 'string') last = entry[0];
  }
  return last;
}

/** Whether `id` is a stream id a reader can resume after (`<ms>-<seq>` or `<ms>`). */
export function isStreamId(id: string): boolean {
  return /^\d+(-\d+)?$/.test(id);
}

/**
 * A Redis URL checked: `redis://[user:password@]host[:port][/db]` or `rediss://…` (TLS).
 *
 * @throws {TypeError} naming the option and the expected form when `url` is not one.
 */
export function checkRedisUrl(url: unknown, option: string): string {
  if (typeof url !== 'string' || !url) throw new TypeError(`${option}: a Redis URL is required, e.g. redis://localhost:6379`);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new TypeError(`${option}: "${redact(url)}" is not a URL; expected redis://host:port (or rediss:// for TLS)`);
  }
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:')
    throw new TypeError(`${option}: "${redact(url)}" has scheme ${parsed.protocol}; expected redis://host:port (or rediss:// for TLS)`);
  if (!parsed.hostname) throw new TypeError(`${option}: "${redact(url)}" names no host; expected redis://host:port`);
  return url;
}

/** `url` without its password, for messages. */
export function redact(url: string): string {
  return url.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@');
}

function count(v: unknown): v is number {
  return typeof v === 'number' && Number.isInteger(v) && v >= 0;
}

function isModelDelta(v: unknown): v is ModelDelta {
  const d = v as Partial<Record<string, unknown>> | null;
  if (typeof d !== 'object' || d === null) return false;
  if (d.type === 'text' || d.type === 'thinking') return typeof d.text === 'string';
  if (d.type === 'tool_args') return count(d.call) && typeof d.json === 'string' && (d.tool === undefined || typeof d.tool === 'string');
  return false;
}
