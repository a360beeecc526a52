/**
 * Tool-call ids unique within a run. A call's id names its result and its idempotency key, so two calls
 * with one id would share a key (two charges, one key) and one result would replace the other. Some
 * OpenAI-compatible servers send no id, reuse `call_0` every step, or repeat an id in one response:
 * such calls get a fresh deterministic id. Pure.
 */
import type { AssistantMessage } from '../messages/messages';

/** The ids durable-agent keeps as the provider sent them: what both Anthropic and OpenAI accept back. */
export const CALL_ID_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * `message` with every tool call's id unique in the run. A provider's id is kept when it is non-empty,
 * matches {@link CALL_ID_PATTERN}, is not `used` (the ids of the run's transcript so far: a set, or a test
 * that answers without walking the transcript) and was not
 * used by an earlier call of this message; any other call gets `da_<step>_<index>` (index of the call
 * in the message, 0-based), with a `_<n>` suffix if that is taken too. Returns `message` itself when no
 * id changes.
 *
 * @example
 * ```ts
 * uniqueCallIds(msg, new Set(['call_0']), 2); // a call with id 'call_0' becomes 'da_2_0'
 * ```
 */
export function uniqueCallIds(
  message: AssistantMessage,
  used: ReadonlySet<string> | ((id: string) => boolean),
  step: number,
): AssistantMessage {
  const isUsed = typeof used === 'function' ? used : (id: string) => used.has(id);
  const mine = new Set<string>();
  const taken = (id: string) => mine.has(id) || isUsed(id);
  const fresh = (index: number): string => {
    const base = `da_${step}_${index}`;
    let id = base;
    for (let n = 2; taken(id); n++) id = `${base}_${n}`;
    return id;
  };
  let changed = false;
  let index = 0;
  const content = message.content.map((b) => {
    if (b.type !== 'tool_use') return b;
    const i = index++;
    const keep = CALL_ID_PATTERN.test(b.id) && !taken(b.id);
    const id = keep ? b.id : fresh(i);
    mine.add(id);
    if (keep) return b;
    changed = true;
    return { ...b, id };
  });
  return changed ? { ...message, content } : message;
}
