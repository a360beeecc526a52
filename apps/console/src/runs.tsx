/** The runs list (`GET /runs`), newest first, with filters kept in the hash (`#/runs?agent=&status=&since=`). */
import { useEffect, useState } from 'preact/hooks';
import type { Api, ListedRun } from './api';
import { usd, when, statusClass } from './format';
import { runHref } from './router';
import { RUN_STATUSES } from '../../../src/core/run/result';

/** The statuses the server filters by: the phases of a running run, then every way a run ends. */
const STATUSES: readonly string[] = ['running', 'awaiting_approval', 'awaiting_message', ...RUN_STATUSES];
const SINCE = ['', '1h', '24h', '7d', '30d'];

/** The runs page; its filters live in the hash so a filtered list can be linked. */
export function RunsPage(props: { api: Api; query: URLSearchParams; onRefused: (err: unknown) => void }) {
  const { api, query, onRefused } = props;
  const agent = query.get('agent') ?? '';
  const status = query.get('status') ?? '';
  const since = query.get('since') ?? '';
  const [agentInput, setAgentInput] = useState(agent);
  const [runs, setRuns] = useState<ListedRun[] | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [reload, setReload] = useState(0);

  useEffect(() => {
    const stop = new AbortController();
    setError(undefined);
    api.runs({ agent, status, since, limit: '50' }, stop.signal).then(
      (r) => setRuns(r.runs),
      (err: unknown) => {
        if (stop.signal.aborted) return;
        onRefused(err);
        setError(err instanceof Error ? err.message : String(err));
      },
    );
    return () => stop.abort();
  }, [api, agent, status, since, reload]);

  const go = (next: Record<string, string>) => {
    const q = new URLSearchParams(Object.entries({ agent, status, since, ...next }).filter(([, v]) => v !== ''));
    location.hash = `#/runs${q.size ? `?${q.toString()}` : ''}`;
  };

  return (
    <section class="runs">
      <div class="page-head">
        <h1>Runs</h1>
        <button type="button" onClick={() => setReload((n) => n + 1)}>
          Refresh
        </button>
      </div>
      <form
        class="filters"
        onSubmit={(e) => {
          e.preventDefault();
          go({ agent: agentInput.trim() });
        }}
      >
        <label>
          Agent
          <input
            type="text"
            value={agentInput}
            onInput={(e) => setAgentInput(e.currentTarget.value)}
            onBlur={() => agentInput.trim() !== agent && go({ agent: agentInput.trim() })}
            placeholder="any"
          />
        </label>
        <label>
          Status
          <select value={status} onChange={(e) => go({ status: e.currentTarget.value })}>
            <option value="">any</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {s.replace(/_/g, ' ')}
              </option>
            ))}
          </select>
        </label>
        <label>
          Started within
          <select value={since} onChange={(e) => go({ since: e.currentTarget.value })}>
            {SINCE.map((s) => (
              <option key={s} value={s}>
                {s || 'any time'}
              </option>
            ))}
          </select>
        </label>
      </form>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {!runs && !error && <p class="muted">Loading…</p>}
      {runs && runs.length === 0 && <p class="empty">No run matches.</p>}
      {runs && runs.length > 0 && (
        <table class="list">
          <thead>
            <tr>
              <th>Run</th>
              <th>Agent</th>
              <th>Status</th>
              <th class="num">Steps</th>
              <th class="num">Cost</th>
              <th>Started</th>
            </tr>
          </thead>
          <tbody>
            {runs.map((r) => (
              <tr key={`${r.workflowId}/${r.runId}`}>
                <td data-label="Run">
                  <a href={runHref(r.workflowId)}>{r.workflowId}</a>
                </td>
                <td data-label="Agent">{r.agent ?? '—'}</td>
                <td data-label="Status">
                  <span class={`status ${statusClass(r.status)}`}>{r.status.replace(/_/g, ' ')}</span>
                </td>
                <td data-label="Steps" class="num">
                  {r.steps ?? '—'}
                </td>
                <td data-label="Cost" class="num">
                  {usd(r.costUsd)}
                  {r.unpricedSteps ? ` (${r.unpricedSteps} unpriced)` : ''}
                </td>
                <td data-label="Started">{when(r.startedAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
