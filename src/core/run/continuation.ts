/**
 * Continue-as-new, as pure rules: when a run's history has grown enough to start a fresh execution, and
 * what of the loop's state the next execution carries (the conversation stays in the store; only its
 * head, counters, recent details and totals travel).
 */
import { rebasedContext } from '../context/compaction';
import { recentWithin, REPORT_DETAIL_BYTES, runCost } from './report';
import type { LoopState } from '../loop/state';

/** Default history length (events) after which a run continues as new at its next step boundary. */
export const CONTINUE_AS_NEW_AFTER_EVENTS = 5_000;

/** Whether to continue as new now: the server suggests it, or the history passed the run's threshold. */
export function shouldContinueAsNew(history: { length: number; suggested: boolean }, afterEvents: number): boolean {
  return history.suggested || history.length >= afterEvents;
}

/**
 * The loop state the next execution starts from. Every message must already be stored (the head names
 * the whole conversation): only the most recent ones within `recentMessageBytes` are kept, for the
 * result; recent step and call details are kept within the report's budget; the rest is counted.
 */
export function carriedState(loop: LoopState, recentMessageBytes: number): LoopState {
  if (loop.stored !== loop.messages.length)
    throw new Error(`carriedState: ${loop.messages.length - loop.stored} message(s) not stored yet`);
  const messages = recentWithin(loop.messages, recentMessageBytes);
  const steps = recentWithin(loop.steps, REPORT_DETAIL_BYTES);
  const calls = recentWithin(loop.toolCalls, REPORT_DETAIL_BYTES);
  const dropped = runCost(loop.steps.slice(0, steps.omitted));
  const before = loop.earlier ?? { messages: 0, steps: 0, toolCalls: 0, costUsd: 0, unpricedSteps: 0 };
  const context = rebasedContext(loop);
  return {
    ...loop,
    ...(context ? { context } : {}),
    messages: messages.items,
    stored: messages.items.length,
    steps: steps.items,
    toolCalls: calls.items,
    earlier: {
      messages: before.messages + messages.omitted,
      steps: before.steps + steps.omitted,
      toolCalls: before.toolCalls + calls.omitted,
      costUsd: Math.round((before.costUsd + dropped.costUsd) * 1e8) / 1e8,
      unpricedSteps: before.unpricedSteps + dropped.unpricedSteps,
    },
  };
}

/** Below this many messages, steps or tool calls, a running execution never trims its state. */
export const TRIM_MIN_ITEMS = 16;

/** How many items each list held after the last trim (the next trim waits until one list doubles). */
export interface TrimMark {
  messages: number;
  steps: number;
  toolCalls: number;
}

/**
 * Whether a running execution should trim its state now: every message is stored and one of the lists
 * has doubled since the last trim (and holds more than {@link TRIM_MIN_ITEMS}). Doubling keeps the work
 * of trimming constant per step on average, and the state under twice its budgets.
 */
export function trimDue(loop: LoopState, mark: TrimMark): boolean {
  if (loop.stored !== loop.messages.length) return false;
  const over = (n: number, kept: number) => n > Math.max(TRIM_MIN_ITEMS, 2 * kept);
  return over(loop.messages.length, mark.messages) || over(loop.steps.length, mark.steps) || over(loop.toolCalls.length, mark.toolCalls);
}

/**
 * The loop state a running execution keeps between steps: what {@link carriedState} keeps (the
 * conversation's most recent messages within the result's budget, recent step and call details within
 * the report's), so the workflow's memory does not grow with the conversation. The result is unchanged:
 * it shows exactly these most recent items, and counts the rest.
 */
export function trimmedState(loop: LoopState, recentMessageBytes: number): { loop: LoopState; mark: TrimMark } {
  const trimmed = carriedState(loop, recentMessageBytes);
  return { loop: trimmed, mark: { messages: trimmed.messages.length, steps: trimmed.steps.length, toolCalls: trimmed.toolCalls.length } };
}
