/**
 * Compaction decisions on the loop's state: the estimated size of the next model call, whether to compact
 * before it, and the context a new execution starts from after continue-as-new.
 */
import type { ContextState } from './context';
import { messagesTokens, nextCallTokens, shouldCompact } from './context';
import type { ContextSpec } from '../run/spec';
import type { LoopState } from '../loop/state';

/** Number of messages in the whole transcript (earlier executions' included). */
export function transcriptLength(loop: LoopState): number {
  return (loop.earlier?.messages ?? 0) + loop.messages.length;
}

/**
 * Estimated tokens of the next model call: the provider's last count plus the messages added since
 * (all held in memory: they are not stored yet or were carried), else an estimate of what is in memory.
 */
export function nextCallEstimate(loop: LoopState): number {
  const anchor = loop.context?.anchor;
  const offset = loop.earlier?.messages ?? 0;
  if (!anchor) return messagesTokens(loop.messages);
  return nextCallTokens(loop.context, loop.messages.slice(Math.max(0, anchor.messages - offset)), 0);
}

/** Whether to compact before the model call of step `loop.step + 1`. */
export function compactionDue(loop: LoopState, spec: ContextSpec | undefined): boolean {
  return shouldCompact(spec, loop.context, nextCallEstimate(loop), loop.step + 1);
}

/**
 * The context re-anchored at the transcript's end (every message counted in), so the next execution,
 * which keeps only recent messages in memory, estimates its next call correctly.
 */
export function rebasedContext(loop: LoopState): ContextState | undefined {
  if (!loop.context) return undefined;
  return { ...loop.context, anchor: { tokens: nextCallEstimate(loop), messages: transcriptLength(loop) } };
}
