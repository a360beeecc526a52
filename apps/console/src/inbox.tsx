/**
 * The approval inbox: every tool call waiting for a person, across runs, live from `/approvals/events`
 * (the whole inbox at connect and on every change; reconnected with backoff).
 */
import { useEffect, useState } from 'preact/hooks';
import type { Api, Inbox, InboxRun, Me, PendingCall } from './api';
import { ApiError } from './api';
import type { Decision } from '../../../src/entry/client';
import { duration, pretty } from './format';
import { useNow } from './hooks';
import { runHref } from './router';
import { followSse } from './sse';

type Connection =
  | { state: 'connecting' }
  | { state: 'live' }
  | { state: 'retrying'; error: string; retryInMs: number }
  | { state: 'failed'; error: string };

/** The inbox page; `onRefused` hears a refused token (the app then signs out). */
export function InboxPage(props: { api: Api; me: Me; onRefused: (err: unknown) => void }) {
  const { api, me, onRefused } = props;
  const [inbox, setInbox] = useState<Inbox | undefined>(undefined);
  const [conn, setConn] = useState<Connection>({ state: 'connecting' });

  useEffect(() => {
    const stop = new AbortController();
    void followSse(api.token, '/approvals/events', stop.signal, {
      onMessage: (m) => {
        if (m.event !== 'inbox') return;
        setInbox(JSON.parse(m.data) as Inbox);
        setConn({ state: 'live' });
      },
      onState: (s) => setConn(s.connected ? { state: 'live' } : { state: 'retrying', error: s.error, retryInMs: s.retryInMs }),
      onFatal: (err) => {
        onRefused(err);
        setConn({ state: 'failed', error: err instanceof Error ? err.message : String(err) });
      },
    });
    return () => stop.abort();
  }, [api]);

  const count = inbox?.runs.reduce((n, r) => n + r.pending.length, 0) ?? 0;
  return (
    <section class="inbox">
      <div class="page-head">
        <h1>
          Approvals <span class="count">{inbox ? count : ''}</span>
        </h1>
        <ConnectionBadge conn={conn} />
      </div>
      {!inbox && conn.state !== 'failed' && <p class="muted">Loading the inbox…</p>}
      {inbox && count === 0 && !inbox.runs.some((r) => r.error !== undefined) && <p class="empty">Nothing is waiting for a person.</p>}
      {inbox?.runs.map((run) =>
        run.error !== undefined ? (
          <UnreadableCard key={run.workflowId} run={run} />
        ) : (
          run.pending.map((call) => <ApprovalCard key={`${run.workflowId}/${call.callId}`} api={api} me={me} run={run} call={call} />)
        ),
      )}
    </section>
  );
}

function ConnectionBadge({ conn }: { conn: Connection }) {
  if (conn.state === 'live') return <span class="badge ok">● live</span>;
  if (conn.state === 'connecting') return <span class="badge">connecting…</span>;
  if (conn.state === 'failed')
    return (
      <span class="badge bad" role="alert">
        {conn.error}
      </span>
    );
  return (
    <span class="badge warn" role="status">
      reconnecting in {duration(conn.retryInMs)} ({conn.error})
    </span>
  );
}

/** A waiting run the server cannot read (sealed with a key it lacks, say): shown with why, never hidden. */
function UnreadableCard({ run }: { run: InboxRun }) {
  return (
    <article class="card approval unreadable" data-run={run.workflowId}>
      <header class="approval-head">
        <h2>Cannot be read</h2>
        <a class="run-link" href={runHref(run.workflowId)}>
          {run.agent ?? 'run'} · {run.workflowId}
        </a>
      </header>
      <p class="error" role="alert">
        {run.error}
      </p>
    </article>
  );
}

const PAST: Record<Decision, string> = { approve: 'Approved', deny: 'Denied', skip: 'Skipped' };

/** Why the signed-in identity may not decide a call. */
function whyNot(me: Me, call: PendingCall): string {
  if (!me.approve) return `Your token (${me.identity}) may not decide approvals.`;
  if (call.approvers?.length) return `Only ${call.approvers.join(', ')} may decide this call.`;
  return `${me.identity} may not decide this call.`;
}

function ApprovalCard(props: { api: Api; me: Me; run: InboxRun; call: PendingCall }) {
  const { api, me, run, call } = props;
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState<Decision | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [decided, setDecided] = useState<Decision | undefined>(undefined);
  const now = useNow(1000);

  const decide = async (decision: Decision) => {
    setBusy(decision);
    setError(undefined);
    try {
      await api.decide(run.workflowId, call.callId, decision, reason.trim() || undefined);
      setDecided(decision);
    } catch (err) {
      setError(err instanceof ApiError ? err.message : `The decision did not reach the server: ${String(err)}`);
    } finally {
      setBusy(undefined);
    }
  };

  const left = call.expiresAt ? Date.parse(call.expiresAt) - now : undefined;
  const disabled = !call.mayDecide || busy !== undefined || decided !== undefined;
  const id = `${run.workflowId}-${call.callId}`.replace(/[^\w-]/g, '_');
  return (
    <article class="card approval" data-call={call.callId} data-run={run.workflowId}>
      <header class="approval-head">
        <h2>
          <code class="tool">{call.tool}</code>
        </h2>
        <a class="run-link" href={runHref(run.workflowId)}>
          {run.agent ?? 'run'} · {run.workflowId}
        </a>
        {left !== undefined && (
          <span class={`expiry ${left < 60_000 ? 'bad' : ''}`} title={`expires ${new Date(call.expiresAt!).toLocaleString()}`}>
            {left > 0 ? `${duration(left)} left` : 'expired'}
          </span>
        )}
      </header>
      {run.parent && (
        <p class="muted small">
          Sub-agent of <a href={runHref(run.parent.workflowId)}>{run.parent.workflowId}</a>
        </p>
      )}
      {call.question && <p class="question">{call.question}</p>}
      <pre class="args" aria-label="arguments">
        {pretty(call.args)}
      </pre>
      {run.context.length > 0 && (
        <details class="context" open>
          <summary>What led to this call</summary>
          <ol>
            {run.context.map((m, i) => (
              <li key={i} class={`msg ${m.role}`}>
                <span class="role">{m.role}</span> <span class="text">{m.text}</span>
              </li>
            ))}
          </ol>
        </details>
      )}
      <p class="small muted">
        Step {call.step} · call {call.callId} · may decide:{' '}
        {call.approvers?.length ? call.approvers.join(', ') : 'anyone whose token may approve'}
      </p>
      <label class="reason" for={`reason-${id}`}>
        Reason <span class="muted">(optional; the model reads it)</span>
      </label>
      <input
        id={`reason-${id}`}
        class="reason"
        type="text"
        value={reason}
        onInput={(e) => setReason(e.currentTarget.value)}
        disabled={disabled}
        placeholder="Why?"
      />
      <div class="actions">
        <button type="button" class="primary" disabled={disabled} onClick={() => void decide('approve')}>
          {busy === 'approve' ? 'Approving…' : 'Approve'}
        </button>
        <button type="button" class="danger" disabled={disabled} onClick={() => void decide('deny')}>
          {busy === 'deny' ? 'Denying…' : 'Deny'}
        </button>
        <button type="button" disabled={disabled} onClick={() => void decide('skip')}>
          {busy === 'skip' ? 'Skipping…' : 'Skip'}
        </button>
      </div>
      {!call.mayDecide && <p class="why-not muted">{whyNot(me, call)}</p>}
      {decided && (
        <p class="decided" role="status">
          {PAST[decided]} as {me.identity}; waiting for the run to take it…
        </p>
      )}
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
    </article>
  );
}
