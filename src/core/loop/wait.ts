/**
 * The built-in `wait` tool's rules: how long a call asks to sleep, and what the model is told after. The
 * workflow sleeps on a durable timer (no worker busy, survives restarts) and wakes early when a message
 * arrives.
 */
import type { JsonObject } from '../messages/json';

/** A built-in tool the workflow runs itself instead of an activity. */
export interface BuiltinToolSpec {
  kind: 'wait';
  /** The longest a single call may sleep. */
  maxWaitMs: number;
}

/** How long a `wait` call sleeps, from its arguments `{ seconds }` or `{ until }` (ISO time), or why it cannot. */
export function waitDuration(args: JsonObject, nowMs: number, maxWaitMs: number): { ms: number } | { error: string } {
  const { seconds, until } = args;
  if ((seconds === undefined) === (until === undefined))
    return { error: 'give exactly one of "seconds" (a number) or "until" (an ISO 8601 time)' };
  let ms: number;
  if (seconds !== undefined) {
    if (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds <= 0) return { error: '"seconds" must be a positive number' };
    ms = Math.round(seconds * 1000);
  } else {
    const at = typeof until === 'string' ? Date.parse(until) : NaN;
    if (Number.isNaN(at)) return { error: '"until" must be an ISO 8601 time, e.g. 2026-01-31T09:00:00Z' };
    if (at <= nowMs) return { error: `"until" (${String(until)}) is not in the future (now is ${new Date(nowMs).toISOString()})` };
    ms = at - nowMs;
  }
  if (ms > maxWaitMs) return { error: `at most ${formatMs(maxWaitMs)} per call (asked for ${formatMs(ms)}); wait again after` };
  return { ms };
}

/** What the model reads after a wait: how long it slept, and whether a message woke it early. */
export function waitResultText(askedMs: number, sleptMs: number, wokenByMessage: boolean): string {
  return wokenByMessage
    ? `Woke after ${formatMs(sleptMs)} of ${formatMs(askedMs)}: a new message arrived.`
    : `Waited ${formatMs(sleptMs)}.`;
}

function formatMs(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  const s = ms / 1000;
  if (s < 120) return `${Math.round(s * 10) / 10} s`;
  if (s < 7200) return `${Math.round(s / 6) / 10} min`;
  return `${Math.round(s / 360) / 10} h`;
}
