/**
 * What the worker's tool hooks did to a call, as the `runTool` activity records it: `beforeToolCall`
 * blocked the call or rewrote its arguments, `afterToolCall` transformed its output, or a hook threw
 * (an error result the model reads). The texts the model reads and the `tool_hook` events.
 */
import type { ToolHookEvent } from '../events/events';
import type { JsonObject } from '../messages/json';

/** Which hook. */
export type ToolHookName = 'beforeToolCall' | 'afterToolCall';

/** One thing a hook did to a call (recorded in the activity result). */
export interface ToolHookNote {
  hook: ToolHookName;
  action: 'blocked' | 'rewritten' | 'transformed' | 'failed';
  /** Why it blocked, or what it threw. */
  reason?: string;
}

/** What a call's outcome says about its hooks. */
export interface HookedOutcome {
  callId: string;
  tool: string;
  /** The arguments the call ran with, when `beforeToolCall` rewrote them. */
  ranArgs?: JsonObject;
  hooks?: ToolHookNote[];
}

/** The result text of a call `beforeToolCall` blocked. */
export function blockedText(tool: string, reason: string): string {
  return `Blocked: the call to "${tool}" was not allowed: ${reason.trim() || 'no reason given'}. The tool was not run.`;
}

/** The result text of a call whose hook threw: before the call (not run) or after it (output withheld). */
export function hookFailedText(tool: string, hook: ToolHookName, message: string): string {
  return hook === 'beforeToolCall'
    ? `The beforeToolCall hook failed for "${tool}": ${message}. The tool was not run.`
    : `The tool "${tool}" ran, but the afterToolCall hook failed: ${message}. Its output was withheld.`;
}

/** The `tool_hook` events of an outcome, one per thing a hook did. */
export function toolHookEvents(step: number, o: HookedOutcome): ToolHookEvent[] {
  return (o.hooks ?? []).map((h) => ({
    type: 'tool_hook',
    step,
    callId: o.callId,
    tool: o.tool,
    hook: h.hook,
    action: h.action,
    ...(h.reason !== undefined ? { reason: h.reason } : {}),
    ...(h.action === 'rewritten' && o.ranArgs ? { args: o.ranArgs } : {}),
  }));
}
