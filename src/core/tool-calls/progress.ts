/**
 * A tool's progress report (`ctx.progress({ message, fraction?, data? })`) and its bounds. Pure and
 * workflow-safe: the worker bounds what a tool reports before it is sent live or kept as the call's last
 * progress (in `tool_result` events and the run report).
 */
import type { JsonValue } from '../messages/json';
import { utf8Bytes } from '../messages/json';

/** Longest progress message kept, in characters (UTF-16 code units); longer ones are cut with an ellipsis. */
export const MAX_PROGRESS_MESSAGE_CHARS = 500;
/** Largest progress `data` kept, in bytes of its JSON (UTF-8). */
export const MAX_PROGRESS_DATA_BYTES = 4 * 1024;

/** What a tool reports while it runs: a line for people, how far along it is, and optional structured data. */
export interface ToolProgress {
  /** A short line for people (spinner text, a timeline row): at most 500 characters (longer ones are cut with `…`). */
  message: string;
  /** How far along the call is, from 0 to 1 (absent: unknown). */
  fraction?: number;
  /** Structured details for programs: any JSON value of at most 4 KiB once encoded (larger data is dropped). */
  data?: JsonValue;
  /** Set when the tool reported `data` that was not kept: why (too large, or not JSON). */
  dataDropped?: string;
}

/**
 * `p` within the bounds of a {@link ToolProgress}; never throws, so a tool's progress report never fails
 * its call.
 *
 * - A string is taken as the message. Otherwise `p.message` is the message (a non-string is turned into
 *   text with `String`, an absent one is `''`); longer than {@link MAX_PROGRESS_MESSAGE_CHARS} characters,
 *   it is cut and ends with `…` (never in the middle of a surrogate pair).
 * - `fraction` is kept when it is a finite number, clamped to [0, 1]; anything else is dropped.
 * - `data` is kept as its JSON round trip (what JSON drops, such as `undefined` fields, is dropped; `NaN`
 *   becomes `null`) when that is at most {@link MAX_PROGRESS_DATA_BYTES} bytes. Data JSON cannot encode
 *   (a BigInt, a cycle, a function) or that is larger is dropped, and `dataDropped` says why; the message
 *   is left as the tool wrote it.
 */
export function boundProgress(p: unknown): ToolProgress {
  if (typeof p === 'string') return { message: cutMessage(p) };
  const o = typeof p === 'object' && p !== null ? (p as Record<string, unknown>) : { message: p };
  const message = cutMessage(typeof o.message === 'string' ? o.message : o.message === undefined ? '' : String(o.message));
  const out: ToolProgress = { message };
  if (typeof o.fraction === 'number' && Number.isFinite(o.fraction)) out.fraction = Math.min(1, Math.max(0, o.fraction));
  if (o.data !== undefined) {
    const data = boundData(o.data);
    if ('value' in data) out.data = data.value;
    else out.dataDropped = data.dropped;
  }
  return out;
}

function cutMessage(text: string): string {
  if (text.length <= MAX_PROGRESS_MESSAGE_CHARS) return text;
  let cut = MAX_PROGRESS_MESSAGE_CHARS - 1;
  if ((text.charCodeAt(cut - 1) & 0xfc00) === 0xd800) cut--;
  return `${text.slice(0, cut)}…`;
}

function boundData(data: unknown): { value: JsonValue } | { dropped: string } {
  let json: string | undefined;
  try {
    json = JSON.stringify(data);
  } catch (err) {
    return { dropped: `data is not JSON (${err instanceof Error ? err.message.split('\n')[0] : String(err)})` };
  }
  if (json === undefined) return { dropped: `data is not JSON (${typeof data})` };
  const bytes = utf8Bytes(json);
  if (bytes > MAX_PROGRESS_DATA_BYTES) return { dropped: `data is ${bytes} bytes of JSON, over the ${MAX_PROGRESS_DATA_BYTES}-byte limit` };
  return { value: JSON.parse(json) as JsonValue };
}
