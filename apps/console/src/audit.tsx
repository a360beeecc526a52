/**
 * The approval audit trail: `#/audit` lists records across runs (`GET /audit`), filtered by agent, who,
 * tool, decision, path and time, the filters kept in the hash; {@link AuditTrail} shows one run's trail
 * (`GET /runs/:id/audit`) on its page.
 */
import { useEffect, useState } from 'preact/hooks';
import type { Api, AuditRecord, RunAudit } from './api';
import { when } from './format';
import { runHref } from './router';

const SINCE = ['1h', '24h', '7d', '30d'];
const DECISIONS = ['', 'approve', 'deny', 'skip', 'allow', 'fail'];
const PATHS = ['', 'sdk', 'cli', 'http', 'console', 'chat', 'temporal', 'rule', 'timeout', 'policy', 'parent'];
const TEXT_FILTERS = [
  ['agent', 'Agent'],
  ['by', 'By'],
  ['tool', 'Tool'],
] as const;

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** `approve`, `deferred until …`, `delegated to …`: what a record says happened. */
function what(r: AuditRecord): string {
  const kind = r.kind === 'decided' ? '' : r.kind;
  const to = r.to?.length ? ` to ${r.to.join(', ')}` : '';
  const until = r.until ? ` until ${new Date(r.until).toLocaleString()}` : '';
  return [kind, r.decision].filter(Boolean).join(' ') + to + until;
}

/** `rule-id v3`, or nothing. */
function ruleOf(r: AuditRecord): string {
  return r.rule ? `${r.rule.id}${r.rule.version !== undefined ? ` v${r.rule.version}` : ''}` : '';
}

/** The rows of records (one run's, or across runs with a Run column). */
function RecordRows(props: { records: ReadonlyArray<{ record: AuditRecord; run?: RunAudit }>; withRun: boolean }) {
  return (
    <tbody>
      {props.records.map(({ record: r, run }) => (
        <tr key={`${r.workflowId}/${r.seq}`} data-kind={r.kind} data-call={r.callId}>
          <td data-label="When">{when(r.at)}</td>
          {props.withRun && (
            <td data-label="Run">
              <a href={runHref(run?.workflowId ?? r.workflowId)}>{run?.workflowId ?? r.workflowId}</a>
              {run?.agent ? <span class="muted small"> {run.agent}</span> : null}
            </td>
          )}
          <td data-label="Tool">
            <code>{r.tool ?? '—'}</code>
            {r.child && <span class="muted small"> in {r.child}</span>}
          </td>
          <td data-label="What" class="what">
            {what(r)}
          </td>
          <td data-label="By" class="by">
            {r.by ?? '—'}
          </td>
          <td data-label="Path" class="path">
            {r.path ?? '—'}
          </td>
          <td data-label="Reason">{r.reason ?? ''}</td>
          <td data-label="Rule" class="rule">
            {ruleOf(r)}
          </td>
        </tr>
      ))}
    </tbody>
  );
}

function Head({ withRun }: { withRun: boolean }) {
  return (
    <thead>
      <tr>
        <th>When</th>
        {withRun && <th>Run</th>}
        <th>Tool</th>
        <th>What</th>
        <th>By</th>
        <th>Path</th>
        <th>Reason</th>
        <th>Rule</th>
      </tr>
    </thead>
  );
}

/** The audit page; its filters live in the hash (`#/audit?agent=&by=&tool=&decision=&path=&since=`). */
export function AuditPage(props: { api: Api; query: URLSearchParams; onRefused: (err: unknown) => void }) {
  const { api, query, onRefused } = props;
  const filters = {
    agent: query.get('agent') ?? '',
    by: query.get('by') ?? '',
    tool: query.get('tool') ?? '',
    decision: query.get('decision') ?? '',
    path: query.get('path') ?? '',
    since: query.get('since') || '24h',
  };
  const [inputs, setInputs] = useState({ agent: filters.agent, by: filters.by, tool: filters.tool });
  const [runs, setRuns] = useState<RunAudit[] | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [reload, setReload] = useState(0);
  const key = JSON.stringify(filters);

  useEffect(() => {
    const stop = new AbortController();
    setError(undefined);
    setRuns(undefined);
    api.audit({ ...filters, limit: '500', runs: '100' }, stop.signal).then(
      (r) => setRuns(r.runs),
      (err: unknown) => {
        if (stop.signal.aborted) return;
        onRefused(err);
        setError(message(err));
      },
    );
    return () => stop.abort();
  }, [api, key, reload]);

  const go = (next: Partial<typeof filters>) => {
    const q = new URLSearchParams(Object.entries({ ...filters, ...next }).filter(([, v]) => v !== ''));
    location.hash = `#/audit?${q.toString()}`;
  };
  const records = (runs ?? []).flatMap((run) => run.records.map((record) => ({ record, run })));
  const unreadable = (runs ?? []).filter((r) => r.error !== undefined);

  return (
    <section class="audit">
      <div class="page-head">
        <h1>
          Audit <span class="count">{runs ? records.length : ''}</span>
        </h1>
        <button type="button" onClick={() => setReload((n) => n + 1)}>
          Refresh
        </button>
      </div>
      <form
        class="filters"
        onSubmit={(e) => {
          e.preventDefault();
          go({ agent: inputs.agent.trim(), by: inputs.by.trim(), tool: inputs.tool.trim() });
        }}
      >
        {TEXT_FILTERS.map(([name, label]) => (
          <label key={name}>
            {label}
            <input
              type="text"
              name={name}
              value={inputs[name]}
              onInput={(e) => setInputs({ ...inputs, [name]: e.currentTarget.value })}
              onBlur={() => inputs[name].trim() !== filters[name] && go({ [name]: inputs[name].trim() })}
              placeholder="any"
            />
          </label>
        ))}
        <label>
          Decision
          <select name="decision" value={filters.decision} onChange={(e) => go({ decision: e.currentTarget.value })}>
            {DECISIONS.map((d) => (
              <option key={d} value={d}>
                {d || 'any'}
              </option>
            ))}
          </select>
        </label>
        <label>
          Path
          <select name="path" value={filters.path} onChange={(e) => go({ path: e.currentTarget.value })}>
            {PATHS.map((p) => (
              <option key={p} value={p}>
                {p || 'any'}
              </option>
            ))}
          </select>
        </label>
        <label>
          Within
          <select name="since" value={filters.since} onChange={(e) => go({ since: e.currentTarget.value })}>
            {SINCE.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
        <button type="submit" class="apply">
          Filter
        </button>
      </form>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {!runs && !error && <p class="muted">Loading…</p>}
      {unreadable.map((r) => (
        <p key={r.workflowId} class="error small">
          <a href={runHref(r.workflowId)}>{r.workflowId}</a>: cannot be read: {r.error}
        </p>
      ))}
      {runs && records.length === 0 && <p class="empty">No approval record matches.</p>}
      {records.length > 0 && (
        <table class="list audit-records">
          <Head withRun />
          <RecordRows records={records} withRun />
        </table>
      )}
    </section>
  );
}

/** A run's approval trail, read again whenever `version` changes (the page bumps it as the run goes on). */
export function AuditTrail(props: { api: Api; id: string; version: number }) {
  const { api, id, version } = props;
  const [records, setRecords] = useState<AuditRecord[] | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);

  useEffect(() => {
    const stop = new AbortController();
    api.runAudit(id, stop.signal).then(
      (r) => {
        setRecords(r.records);
        setError(undefined);
      },
      (err: unknown) => !stop.signal.aborted && setError(message(err)),
    );
    return () => stop.abort();
  }, [api, id, version]);

  if (error)
    return (
      <p class="error small" role="alert">
        The approval trail cannot be read: {error}
      </p>
    );
  if (!records) return <p class="muted small">Loading the approval trail…</p>;
  if (!records.length) return <p class="muted small">No approvals in this run.</p>;
  return (
    <table class="list audit-trail">
      <Head withRun={false} />
      <RecordRows records={records.map((record) => ({ record }))} withRun={false} />
    </table>
  );
}
