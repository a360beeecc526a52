/**
 * Streaming tool execution, the pure rules: which tools of a run may start while the model still streams
 * its answer, and which calls the model activity reports to the workflow. A call starts early only when
 * its tool opted in (`earlyStart`, or the agent's `earlyToolStarts`), is read-only, runs as a plain
 * activity (not a sub-agent, not `wait`, not at-most-once), needs no approval from data alone, and every
 * earlier call of the same answer starts early too (so a read after a write still sees the write).
 */
import type { Gate } from '../approvals/approvals';
import type { JsonObject, JsonValue } from '../messages/json';
import type { ToolUseBlock } from '../messages/messages';
import type { ToolSpec } from '../run/spec';
import { isJsonObject } from './call-input';

/** Name of the signal the model activity sends its own workflow for each complete, eligible call. */
export const EARLY_TOOL_CALL_SIGNAL = 'earlyToolCall';

/** At most this many calls of one model attempt start early (bounds signals and concurrent activities). */
export const MAX_EARLY_CALLS = 8;

/** What the model activity is told about early starts (`CallModelInput.early`): absent, it reports nothing. */
export interface EarlyStartsInput {
  /** Tools whose calls may start early in this attempt. */
  tools: string[];
  /** Report at most this many calls. */
  max: number;
}

/**
 * A tool call reported by the model activity while the answer streams: the payload of the
 * {@link EARLY_TOOL_CALL_SIGNAL} signal. `callId` is the id the final answer gives the call.
 */
export interface EarlyToolCall {
  step: number;
  attempt: number;
  /** 0-based position among the answer's tool calls. */
  index: number;
  callId: string;
  tool: string;
  args: JsonObject;
}

/** True when `tool` may ever start early: opted in, read-only, a plain activity (not a sub-agent, consolidate, `wait` or at-most-once tool). */
export function startsEarly(tool: ToolSpec): boolean {
  return tool.earlyStart === true && tool.readOnly && !tool.builtin && !tool.subAgent && !tool.consolidate && !tool.atMostOnce;
}

/**
 * The early-start input of a model attempt: the opted-in tools whose gate (run policy, approval
 * settings, tools approved for the run) lets them run from data alone. Undefined when none may: the
 * activity then reports nothing (no signal, no history event).
 */
export function earlyStartsInput(tools: readonly ToolSpec[], gate: (tool: ToolSpec) => Gate): EarlyStartsInput | undefined {
  const names = tools.filter((t) => startsEarly(t) && gate(t).kind === 'run').map((t) => t.name);
  return names.length ? { tools: names, max: MAX_EARLY_CALLS } : undefined;
}

/**
 * The calls of an answer's prefix that may be reported: `calls` are the answer's tool calls complete so
 * far, in order (the final ids already given); the result is the longest prefix of them whose every call
 * is eligible (an allowed tool, arguments that are a JSON object), cut at `early.max`.
 */
export function reportablePrefix(calls: readonly ToolUseBlock[], early: EarlyStartsInput): ToolUseBlock[] {
  const out: ToolUseBlock[] = [];
  for (const c of calls) {
    if (out.length >= early.max || !eligibleCall(c, early)) break;
    out.push(c);
  }
  return out;
}

function eligibleCall(c: ToolUseBlock, early: EarlyStartsInput): boolean {
  return c.inputError === undefined && !c.incomplete && isJsonObject(c.input) && early.tools.includes(c.name);
}

/** True when an early call and the final answer's call are the same call (id, tool, arguments). */
export function sameCall(
  early: Pick<EarlyToolCall, 'callId' | 'tool' | 'args'>,
  final: { callId: string; tool: string; args: JsonValue },
): boolean {
  return early.callId === final.callId && early.tool === final.tool && canonical(early.args) === canonical(final.args);
}

/** JSON with object keys sorted, so two equal values print the same. */
function canonical(value: JsonValue): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object')
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(value[k] as JsonValue)}`)
      .join(',')}}`;
  return JSON.stringify(value);
}
