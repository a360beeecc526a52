/** The run report as tables: `durable-agent report`. */
import type { RunSnapshot } from '../../src/entry/client';
import type { AgentRunResult, RunReport } from '../../src/entry/client';
import { formatDuration, formatStatus, formatUsage, formatUsd, runDurationMs } from './format';
import type { Styles } from './terminal-output';
import { formatTable } from './table';

/** Shown for a value the run does not record (never a guess). */
export const UNKNOWN = '—';

/** A tool call's outcome in one word. */
function callStatus(c: RunReport['toolCalls'][number]): string {
  if (c.outcomeUnknown) return 'outcome unknown';
  return c.isError ? 'error' : 'ok';
}

/** The steps table. */
export function stepsTable(report: RunReport): string[] {
  return formatTable(
    [
      { header: 'step', align: 'right' },
      { header: 'turn', align: 'right' },
      { header: 'model' },
      { header: 'latency', align: 'right' },
      { header: 'stop reason' },
      { header: 'tokens in', align: 'right' },
      { header: 'tokens out', align: 'right' },
      { header: 'cost', align: 'right' },
      { header: 'attempts', align: 'right' },
    ],
    report.steps.map((s) => [
      String(s.step),
      String(s.turn),
      `${s.provider}/${s.model}`,
      `${s.latencyMs} ms`,
      s.stopReason,
      String(s.usage.inputTokens),
      String(s.usage.outputTokens),
      s.costUsd !== undefined ? formatUsd(s.costUsd) : UNKNOWN,
      String(s.attempts),
    ]),
    '  ',
  );
}

/** Longest notes cell of the tool calls table, in characters. */
const MAX_NOTES_CHARS = 120;

/**
 * A tool call's metrics and last progress in one cell: `rows=3 source=db · last: scanning (40%)`; empty
 * when it has neither; cut at {@link MAX_NOTES_CHARS} characters (`--json` has them whole).
 */
export function toolCallNotes(c: RunReport['toolCalls'][number]): string {
  const parts: string[] = [];
  const metrics = Object.entries(c.metrics ?? {}).map(([name, value]) => `${name}=${String(value)}`);
  if (metrics.length) parts.push(metrics.join(' '));
  const p = c.lastProgress;
  if (p) parts.push(`last: ${p.message}${p.fraction !== undefined ? ` (${Math.round(p.fraction * 100)}%)` : ''}`);
  const text = parts.join(' · ').replace(/\s+/g, ' ');
  return text.length > MAX_NOTES_CHARS ? `${text.slice(0, MAX_NOTES_CHARS - 1)}…` : text;
}

/** The child runs of a call: an agent tool's one, a consolidate tool's several (its agents, then its summariser). */
function childRuns(c: RunReport['toolCalls'][number]): NonNullable<RunReport['toolCalls'][number]['children']> {
  return c.child ? [c.child] : (c.children ?? []);
}

/** The tool calls table. */
export function toolCallsTable(report: RunReport): string[] {
  const withChild = report.toolCalls.some((c) => childRuns(c).length > 0);
  const withNotes = report.toolCalls.some((c) => c.metrics || c.lastProgress);
  return formatTable(
    [
      { header: 'step', align: 'right' },
      { header: 'call id' },
      { header: 'tool' },
      { header: 'latency', align: 'right' },
      { header: 'status' },
      { header: 'attempts', align: 'right' },
      ...(withChild ? [{ header: 'child run' }] : []),
      ...(withNotes ? [{ header: 'metrics / progress' }] : []),
    ],
    report.toolCalls.map((c) => [
      String(c.step),
      c.callId,
      c.tool,
      `${c.latencyMs} ms`,
      callStatus(c),
      String(c.attempts),
      ...(withChild
        ? [
            childRuns(c)
              .map((r) => `${r.workflowId} (${r.agent}, ${r.status})`)
              .join(', '),
          ]
        : []),
      ...(withNotes ? [toolCallNotes(c)] : []),
    ]),
    '  ',
  );
}

/** The whole report of a finished run: header, steps, tool calls, totals. */
export function formatReport(r: Pick<AgentRunResult, 'status' | 'steps' | 'report'>, s: Styles): string[] {
  const report = r.report;
  const duration = runDurationMs(r);
  const lines = [
    s.bold(`Run ${report.workflowId}`) +
      s.dim(
        ` (agent ${report.agent}, ${report.startedAt} .. ${report.endedAt}${duration !== undefined ? `, ${formatDuration(duration)}` : ''})`,
      ),
    `  status: ${formatStatus(r.status, s)}`,
    '',
    s.bold(`Steps (${r.steps})`),
  ];
  if (report.stepsOmitted) lines.push(s.dim(`  (${report.stepsOmitted} earlier steps not in the result; the totals count them)`));
  lines.push(
    ...(report.steps.length ? stepsTable(report) : ['  (no model calls)']),
    '',
    s.bold(`Tool calls (${report.toolCalls.length + report.toolCallsOmitted})`),
  );
  if (report.toolCallsOmitted) lines.push(s.dim(`  (${report.toolCallsOmitted} earlier tool calls not in the result)`));
  lines.push(...(report.toolCalls.length ? toolCallsTable(report) : ['  (no tool calls)']), '', s.bold('Totals'));
  // null: unknown; results recorded before it could be null say 0 when no step had a price.
  const allUnpriced = report.costUsd === null || (r.steps > 0 && report.unpricedSteps === r.steps && !report.costUsd);
  lines.push(
    `  usage:          ${formatUsage(report.usage)}`,
    `  cost:           ${allUnpriced ? `${UNKNOWN} (no price for this model in the worker's price table)` : formatUsd(report.costUsd ?? 0)}`,
    `  unpriced steps: ${report.unpricedSteps}`,
    `  compactions:    ${report.compactions ?? 0}`,
  );
  if (report.layers?.length)
    lines.push(
      `  prompt layers:  ${report.layers.map((l) => `${l.name} (${l.source}, step ${l.setAtStep}, ${l.bytes} B, ${l.hash})`).join(', ')}`,
    );
  return lines;
}

/** What a running run's snapshot tells (no report exists before the run ends). */
export function formatSnapshot(workflowId: string, snap: RunSnapshot, s: Styles): string[] {
  return [
    s.bold(`Run ${workflowId} is still running`) + s.dim(' (its report exists once it ends: durable-agent result waits for it)'),
    `  agent:             ${snap.agent}`,
    `  status:            ${snap.status}`,
    `  step:              ${snap.step}${snap.maxSteps ? ` of at most ${snap.maxSteps}` : ''}`,
    `  turn:              ${snap.turn}`,
    `  usage:             ${formatUsage(snap.usage)}`,
    `  running tools:     ${snap.runningTools.length ? snap.runningTools.map((t) => `${t.tool} (${t.callId})`).join(', ') : 'none'}`,
    `  pending approvals: ${snap.pendingApprovals.length ? snap.pendingApprovals.map((p) => `${p.tool} (${p.callId})`).join(', ') : 'none'}`,
  ];
}
