/**
 * A run's page: its status and Cancel (confirmed), its live stream (`/runs/:id/events`, resumed from the
 * last durable event after a disconnect) as a timeline, its approval trail, and its report as tables once
 * it has ended.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { StreamEvent } from '../../../src/entry/client';
import type { Api, Me, ReportView, RunView } from './api';
import { ApiError } from './api';
import { AuditTrail } from './audit';
import { duration, pretty, statusClass, usd } from './format';
import { useNow } from './hooks';
import { ReportTables } from './report';
import { followSse } from './sse';
import type { TimelineEntry, ToolEntry } from './timeline';
import { Timeline } from './timeline';

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** Why `me` may not cancel the run (undefined: it may): the server refuses the same. */
function whyNoCancel(me: Me, view: RunView): string | undefined {
  if (me.permissions.includes('admin')) return undefined;
  if (!me.permissions.includes('cancel')) return `Your token (${me.identity}) may not cancel runs.`;
  if (view.startedBy !== me.identity)
    return `Only ${view.startedBy ?? 'an admin'}${view.startedBy ? ' or an admin' : ''} may cancel this run.`;
  return undefined;
}

/** The page of run `id` (give it `key={id}`: a new run is a new page). */
export function RunPage(props: { api: Api; me: Me; id: string; onRefused: (err: unknown) => void }) {
  const { api, me, id, onRefused } = props;
  const [view, setView] = useState<RunView | undefined>(undefined);
  const [viewError, setViewError] = useState<string | undefined>(undefined);
  const timeline = useRef(new Timeline());
  const [, setVersion] = useState(0);
  const [streamState, setStreamState] = useState<string>('connecting…');
  const [report, setReport] = useState<ReportView | undefined>(undefined);
  const [reportError, setReportError] = useState<string | undefined>(undefined);
  const [confirming, setConfirming] = useState(false);
  const [cancel, setCancel] = useState<{ state: 'sending' } | { state: 'sent' } | { state: 'failed'; error: string } | undefined>(
    undefined,
  );

  useEffect(() => {
    const stop = new AbortController();
    api.run(id, stop.signal).then(setView, (err: unknown) => {
      if (stop.signal.aborted) return;
      onRefused(err);
      setViewError(message(err));
    });
    return () => stop.abort();
  }, [api, id]);

  useEffect(() => {
    const stop = new AbortController();
    const t = timeline.current;
    let pending = false;
    const bump = () => {
      // Many deltas a frame: draw once per animation frame.
      if (pending) return;
      pending = true;
      requestAnimationFrame(() => {
        pending = false;
        setVersion((v) => v + 1);
      });
    };
    void followSse(api.token, `/runs/${encodeURIComponent(id)}/events`, stop.signal, {
      lastEventId: () => (t.lastSeq !== undefined ? String(t.lastSeq) : undefined),
      reconnectAfterEnd: () => t.done === undefined,
      onState: (s) => setStreamState(s.connected ? 'live' : `reconnecting in ${duration(s.retryInMs)} (${s.error})`),
      onMessage: (m) => {
        if (m.event === 'error') {
          const body = JSON.parse(m.data) as { error?: { message?: string } };
          setStreamState(`stream error: ${body.error?.message ?? m.data}`);
          return;
        }
        if (t.apply(JSON.parse(m.data) as StreamEvent)) bump();
        if (t.done) setStreamState('ended');
      },
      onFatal: (err) => {
        onRefused(err);
        setStreamState(`stream refused: ${message(err)}`);
      },
    });
    return () => stop.abort();
  }, [api, id]);

  const t = timeline.current;
  const ended = t.done !== undefined || (view !== undefined && view.status !== 'running');
  useEffect(() => {
    if (!ended) return;
    const stop = new AbortController();
    // The `done` event comes just before the workflow closes: ask again until the report is there.
    const load = async () => {
      for (let i = 0; i < 20 && !stop.signal.aborted; i++) {
        const r = await api.report(id, stop.signal);
        if (r.ended || i === 19) return setReport(r);
        await new Promise((resolve) => setTimeout(resolve, 300));
      }
    };
    load().catch((err: unknown) => !stop.signal.aborted && setReportError(message(err)));
    return () => stop.abort();
  }, [api, id, ended]);

  const endedReport = report?.ended ? report : undefined;
  const status = t.done?.status ?? endedReport?.status ?? view?.result?.status ?? view?.snapshot?.status ?? view?.status ?? '…';
  const agent = t.agent ?? view?.snapshot?.agent ?? (endedReport && 'report' in endedReport ? endedReport.report.agent : undefined);

  const doCancel = async () => {
    setConfirming(false);
    setCancel({ state: 'sending' });
    try {
      await api.cancel(id);
      setCancel({ state: 'sent' });
    } catch (err) {
      setCancel({ state: 'failed', error: err instanceof ApiError ? err.message : message(err) });
    }
  };

  return (
    <section class="run">
      <div class="run-head card">
        <div class="run-title">
          <h1 title={id}>{id}</h1>
          <span class={`status ${statusClass(status)}`} data-status={status}>
            {status.replace(/_/g, ' ')}
          </span>
        </div>
        <p class="muted small">
          {agent ? `agent ${agent}` : ''}
          {view ? ` · run ${view.runId}` : ''}
          {view?.snapshot ? ` · step ${view.snapshot.step} of ${view.snapshot.maxSteps}` : ''}
        </p>
        {viewError && (
          <p class="error" role="alert">
            {viewError}
          </p>
        )}
        {view?.note && <p class="muted small">{view.note}</p>}
        {view?.failure && <p class="error">The run failed: {view.failure}</p>}
        {!ended && view && whyNoCancel(me, view) && <p class="why-not muted small">{whyNoCancel(me, view)}</p>}
        {!ended && view && !whyNoCancel(me, view) && (
          <div class="actions">
            {!confirming && (
              <button
                type="button"
                class="danger"
                disabled={cancel?.state === 'sending' || cancel?.state === 'sent'}
                onClick={() => setConfirming(true)}
              >
                {cancel?.state === 'sent' ? 'Cancellation requested' : cancel?.state === 'sending' ? 'Cancelling…' : 'Cancel run'}
              </button>
            )}
            {confirming && (
              <>
                <span class="confirm">Cancel this run?</span>
                <button type="button" class="danger" onClick={() => void doCancel()}>
                  Yes, cancel it
                </button>
                <button type="button" onClick={() => setConfirming(false)}>
                  No
                </button>
              </>
            )}
          </div>
        )}
        {cancel?.state === 'failed' && (
          <p class="error" role="alert">
            {cancel.error}
          </p>
        )}
      </div>

      <h2 class="section">
        Stream <span class="badge small">{streamState}</span>
      </h2>
      <ol class="timeline">
        {t.entries.map((e) => (
          <Entry key={e.key} entry={e} />
        ))}
      </ol>

      <h2 class="section">Approvals</h2>
      <AuditTrail api={api} id={id} version={trailVersion(t.entries, ended)} />

      {ended && (
        <>
          <h2 class="section">Report</h2>
          {reportError && (
            <p class="error" role="alert">
              {reportError}
            </p>
          )}
          {!report && !reportError && <p class="muted">Loading the report…</p>}
          {endedReport && 'failure' in endedReport && <p class="error">No report: {endedReport.failure}</p>}
          {endedReport && 'report' in endedReport && <ReportTables report={endedReport.report} status={endedReport.status} />}
          {endedReport && 'report' in endedReport && endedReport.finalText && (
            <div class="card final">
              <h3>Final answer</h3>
              <p class="text">{endedReport.finalText}</p>
            </div>
          )}
        </>
      )}
    </section>
  );
}

/** Changes when a call starts or stops waiting, is decided, or the run ends: the trail is read again then. */
function trailVersion(entries: readonly TimelineEntry[], ended: boolean): number {
  let n = ended ? 1 : 0;
  for (const e of entries) if (e.kind === 'tool') n += 2 + (e.state === 'awaiting_approval' ? 0 : 2) + (e.decision ? 4 : 0);
  return n;
}

function Entry({ entry }: { entry: TimelineEntry }) {
  if (entry.kind === 'note') return <li class={`note ${entry.tone}`}>{entry.text}</li>;
  if (entry.kind === 'tool') return <ToolLine entry={entry} />;
  return (
    <li class="step">
      <div class="line">
        <span class="label">Step {entry.step}</span>
        <span class="muted small">
          {entry.model}
          {entry.attempt > 1 ? ` · attempt ${entry.attempt}` : ''}
        </span>
        {entry.finished ? (
          <span class="latency">
            {duration(entry.finished.latencyMs)} · {entry.finished.usage.inputTokens} in / {entry.finished.usage.outputTokens} out
            {entry.finished.costUsd !== undefined ? ` · ${usd(entry.finished.costUsd)}` : ''}
          </span>
        ) : (
          <span class="spinner" aria-label="the model is answering" />
        )}
      </div>
      {entry.notes.map((n, i) => (
        <p key={i} class="retry small">
          ↻ {n}
        </p>
      ))}
      {entry.text && <p class="text">{entry.text}</p>}
    </li>
  );
}

const TOOL_STATE: Record<ToolEntry['state'], string> = {
  queued: 'queued',
  awaiting_approval: 'waiting for approval',
  running: 'running',
  done: 'done',
  error: 'error',
  denied: 'denied',
  skipped: 'skipped',
  expired: 'approval expired',
  discarded: 'started early, discarded',
};

function ToolLine({ entry }: { entry: ToolEntry }) {
  const now = useNow(entry.state === 'running' ? 250 : 60_000);
  return (
    <li class={`tool ${entry.state}`} data-call={entry.callId}>
      <div class="line">
        <span class="label">
          <code>{entry.tool}</code>
        </span>
        <span class={`state ${entry.state}`}>{TOOL_STATE[entry.state]}</span>
        {entry.state === 'running' && <span class="spinner" aria-label="running" />}
        {entry.state === 'running' && entry.startedAt !== undefined && (
          <span class="latency">{duration(Math.max(0, now - entry.startedAt))}</span>
        )}
        {entry.latencyMs !== undefined && entry.state !== 'running' && (
          <span class="latency">
            {duration(entry.latencyMs)}
            {entry.attempts && entry.attempts > 1 ? ` · ${entry.attempts} attempts` : ''}
          </span>
        )}
        {entry.state === 'awaiting_approval' && <a href="#/">decide in the inbox</a>}
      </div>
      {entry.state === 'running' && entry.progress && (
        <p class="small progress" aria-live="polite">
          {entry.progress.message}
          {entry.progress.fraction !== undefined ? ` ${Math.round(entry.progress.fraction * 100)}%` : ''}
          {entry.progress.attempt > 1 ? ` (attempt ${entry.progress.attempt})` : ''}
        </p>
      )}
      {entry.decision && (
        <p class="small decision">
          {entry.decision.decision} by {entry.decision.by}
          {entry.decision.reason ? `: “${entry.decision.reason}”` : ''}
        </p>
      )}
      <details>
        <summary class="small">arguments{entry.preview !== undefined ? ' and result' : ''}</summary>
        <pre>{pretty(entry.args)}</pre>
        {entry.preview !== undefined && <pre class="result">{entry.preview}</pre>}
      </details>
    </li>
  );
}
