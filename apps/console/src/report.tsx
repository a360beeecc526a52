/** The run report (`RunReport`) as tables: totals, model steps, tool calls. */
import type { RunReport } from '../../../src/entry/client';
import { callOutcome, duration, statusClass, toolNotes, usd, when } from './format';

/** An ended run's report: `status` is how it ended. */
export function ReportTables({ report, status }: { report: RunReport; status: string }) {
  const u = report.usage;
  const span = Date.parse(report.endedAt) - Date.parse(report.startedAt);
  const withNotes = report.toolCalls.some((c) => c.metrics || c.lastProgress);
  return (
    <div class="report">
      <table class="kv report-summary">
        <tbody>
          <tr>
            <th>Status</th>
            <td>
              <span class={`status ${statusClass(status)}`}>{status.replace(/_/g, ' ')}</span>
            </td>
          </tr>
          <tr>
            <th>Agent</th>
            <td>{report.agent}</td>
          </tr>
          <tr>
            <th>Started</th>
            <td>{when(report.startedAt)}</td>
          </tr>
          <tr>
            <th>Took</th>
            <td>{Number.isFinite(span) ? duration(span) : '—'}</td>
          </tr>
          <tr>
            <th>Tokens</th>
            <td>
              {u.inputTokens} in · {u.outputTokens} out{u.cacheReadTokens ? ` · ${u.cacheReadTokens} cache read` : ''}
              {u.cacheWriteTokens ? ` · ${u.cacheWriteTokens} cache write` : ''}
            </td>
          </tr>
          <tr>
            <th>Cost</th>
            <td>
              {report.costUsd === null || (report.unpricedSteps && !report.costUsd) ? 'unknown' : usd(report.costUsd)}
              {report.unpricedSteps ? ` (${report.unpricedSteps} step${report.unpricedSteps === 1 ? '' : 's'} without a price)` : ''}
            </td>
          </tr>
          {report.compactions ? (
            <tr>
              <th>Compactions</th>
              <td>{report.compactions}</td>
            </tr>
          ) : null}
        </tbody>
      </table>

      <h3>Model steps{report.stepsOmitted ? ` (the last ${report.steps.length}; ${report.stepsOmitted} earlier omitted)` : ''}</h3>
      <div class="scroll">
        <table class="grid report-steps">
          <thead>
            <tr>
              <th class="num">Step</th>
              <th>Model</th>
              <th class="num">Latency</th>
              <th class="num">In</th>
              <th class="num">Out</th>
              <th class="num">Cost</th>
              <th>Stop</th>
              <th class="num">Attempts</th>
            </tr>
          </thead>
          <tbody>
            {report.steps.map((s) => (
              <tr key={s.step}>
                <td class="num">{s.step}</td>
                <td>
                  {s.provider}/{s.model}
                </td>
                <td class="num">{duration(s.latencyMs)}</td>
                <td class="num">{s.usage.inputTokens}</td>
                <td class="num">{s.usage.outputTokens}</td>
                <td class="num">{usd(s.costUsd)}</td>
                <td>{s.stopReason}</td>
                <td class="num">
                  {s.attempts}
                  {s.workerLosses ? ` (+${s.workerLosses} lost)` : ''}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>

      {report.toolCalls.length > 0 && (
        <>
          <h3>
            Tool calls{report.toolCallsOmitted ? ` (the last ${report.toolCalls.length}; ${report.toolCallsOmitted} earlier omitted)` : ''}
          </h3>
          <div class="scroll">
            <table class="grid report-tools">
              <thead>
                <tr>
                  <th class="num">Step</th>
                  <th>Tool</th>
                  <th class="num">Latency</th>
                  <th class="num">Attempts</th>
                  <th class="num">Result</th>
                  <th>Outcome</th>
                  {withNotes && <th>Metrics / progress</th>}
                </tr>
              </thead>
              <tbody>
                {report.toolCalls.map((c) => (
                  <tr key={c.callId}>
                    <td class="num">{c.step}</td>
                    <td>
                      <code>{c.tool}</code>
                    </td>
                    <td class="num">{duration(c.latencyMs)}</td>
                    <td class="num">{c.attempts}</td>
                    <td class="num">
                      {c.resultBytes} B{c.stored ? ' (stored)' : ''}
                    </td>
                    <td class={c.isError ? 'bad' : ''}>{callOutcome(c)}</td>
                    {withNotes && <td class="notes">{toolNotes(c)}</td>}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
    </div>
  );
}
