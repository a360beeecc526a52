/**
 * What the chaos campaign checks once the runs have ended: transcripts against the uninterrupted
 * baseline, executions of the at-most-once tool, approvals applied, resume times after kills.
 */
import { isDeepStrictEqual } from 'node:util';
import type { Message } from '../../src/core/messages/messages';
import type { AgentRunResult } from '../../src/core/run/result';
import type { LogLine } from './agent';
import { AT_MOST_ONCE_TOOL } from './agent';
import type { RunRecord } from './person';

/** How a run's transcript compares with the baseline run of the same script. */
export type TranscriptComparison =
  | { kind: 'equal' }
  /** Equal but for the results of at-most-once calls whose outcome was unknown (a kill cut them). */
  | { kind: 'outcome_unknown_only'; callIds: string[] }
  | { kind: 'different'; why: string };

/** What the model and the report show of tool calls, for comparison. */
function callSummary(result: AgentRunResult, masked: ReadonlySet<string>) {
  return result.report.toolCalls.map((c) => ({
    callId: c.callId,
    tool: c.tool,
    args: c.args,
    ...(masked.has(c.callId) ? {} : { isError: c.isError }),
  }));
}

/** Messages with the results of `masked` calls replaced by a placeholder. */
function maskResults(messages: readonly Message[], masked: ReadonlySet<string>): unknown[] {
  if (masked.size === 0) return [...messages];
  return messages.map((m) =>
    m.role === 'user'
      ? {
          ...m,
          content: m.content.map((b) =>
            b.type === 'tool_result' && masked.has(b.toolUseId) ? { type: 'tool_result', toolUseId: b.toolUseId, masked: true } : b,
          ),
        }
      : m,
  );
}

/** Where two transcripts first differ, in a line. */
function firstDifference(a: readonly unknown[], b: readonly unknown[]): string {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if (!isDeepStrictEqual(a[i], b[i]))
      return `message ${i}: ${JSON.stringify(a[i])?.slice(0, 300)} vs baseline ${JSON.stringify(b[i])?.slice(0, 300)}`;
  }
  return 'the tool call reports differ';
}

/** Compare a run's transcript and tool calls with the baseline run of the same script. */
export function compareTranscripts(run: AgentRunResult, baseline: AgentRunResult): TranscriptComparison {
  const none = new Set<string>();
  if (isDeepStrictEqual(run.messages, baseline.messages) && isDeepStrictEqual(callSummary(run, none), callSummary(baseline, none)))
    return { kind: 'equal' };
  const unknown = new Set(run.report.toolCalls.filter((c) => c.outcomeUnknown).map((c) => c.callId));
  const a = maskResults(run.messages, unknown);
  const b = maskResults(baseline.messages, unknown);
  if (unknown.size && isDeepStrictEqual(a, b) && isDeepStrictEqual(callSummary(run, unknown), callSummary(baseline, unknown)))
    return { kind: 'outcome_unknown_only', callIds: [...unknown] };
  return { kind: 'different', why: firstDifference(a, b) };
}

/** Executions (`start` lines) of each call of `tool` in a run's log. */
export function executionsPerCall(lines: readonly LogLine[], tool = AT_MOST_ONCE_TOOL): Map<string, number> {
  const counts = new Map<string, number>();
  for (const l of lines) if (l.kind === 'start' && l.tool === tool) counts.set(l.id, (counts.get(l.id) ?? 0) + 1);
  return counts;
}

/** A model call or tool execution a worker had started and not finished. */
export interface OpenActivity {
  what: 'model' | 'tool';
  /** `s<step>` for a model call, the call id for a tool. */
  id: string;
  tool?: string;
  pid: number;
  startedAt: number;
}

/** Model calls and tool executions started and not finished in a run's log (by worker). */
export function openActivities(lines: readonly LogLine[]): OpenActivity[] {
  const open = new Map<string, OpenActivity>();
  for (const l of lines) {
    const key = `${l.pid}/${l.kind === 'mstart' || l.kind === 'mdone' ? 'm' : 't'}/${l.id}`;
    if (l.kind === 'mstart' || l.kind === 'start')
      open.set(key, {
        what: l.kind === 'mstart' ? 'model' : 'tool',
        id: l.id,
        ...(l.tool ? { tool: l.tool } : {}),
        pid: l.pid,
        startedAt: l.at,
      });
    else open.delete(key);
  }
  return [...open.values()];
}

/** When a run next started a model call or tool after `after` on a worker other than `pid` (epoch ms). */
export function nextStart(lines: readonly LogLine[], after: number, pid: number): number | undefined {
  return lines.find((l) => (l.kind === 'mstart' || l.kind === 'start') && l.at > after && l.pid !== pid)?.at;
}

/** Decisions the person sent that the run never applied (no `approval_decided` event with that decision). */
export function lostApprovals(record: RunRecord): string[] {
  if (record.stuck)
    return record.decisions.map(
      (d) =>
        `${record.workflowId} ${d.callId}: decided ${d.decision} by ${d.via}${d.refused ? ` (refused: ${d.refused})` : ''}, run stuck (${record.stuck})`,
    );
  if (!record.events) return [`${record.workflowId}: its events could not be read`];
  const lost: string[] = [];
  for (const d of record.decisions) {
    const applied = record.events.find((e) => e.type === 'approval_decided' && e.callId === d.callId);
    if (!applied)
      lost.push(
        `${record.workflowId} ${d.callId}: decided ${d.decision} by ${d.via}${d.refused ? ` (refused: ${d.refused})` : ''}, never applied`,
      );
    else if (applied.type === 'approval_decided' && applied.decision !== d.decision)
      lost.push(`${record.workflowId} ${d.callId}: decided ${d.decision}, applied ${applied.decision}`);
  }
  // A call that asked and was never decided, in a run that ended: the person missed it.
  for (const e of record.events) {
    if (e.type === 'approval_requested' && !record.events.some((x) => x.type === 'approval_decided' && x.callId === e.callId))
      lost.push(`${record.workflowId} ${e.callId}: asked, never decided`);
  }
  return lost;
}

/** Median, 90th percentile and maximum of `values` (undefined when empty). */
export function spread(values: readonly number[]): { n: number; median: number; p90: number; max: number } | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
  return { n: sorted.length, median: at(0.5), p90: at(0.9), max: sorted.at(-1)! };
}
