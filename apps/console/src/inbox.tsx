/**
 * The approval inbox: every tool call waiting for a person, across runs, live from `/approvals/events`
 * (the whole inbox at connect and on every change; reconnected with backoff). Each call can be decided,
 * deferred ("Not now", until a chosen time) or delegated to an identity; it shows when it escalated and to
 * whom it is assigned. The "Deferred" filter lists the deferred calls (`/approvals?includeDeferred=true`, read every
 * {@link DEFERRED_POLL_MS}).
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

  const [filter, setFilter] = useState<'waiting' | 'deferred'>('waiting');
  const count = inbox?.runs.reduce((n, r) => n + r.pending.length, 0) ?? 0;
  return (
    <section class="inbox">
      <div class="page-head">
        <h1>
          Approvals <span class="count">{inbox && filter === 'waiting' ? count : ''}</span>
        </h1>
        <div class="inbox-filter" role="group" aria-label="Show">
          <button type="button" aria-pressed={filter === 'waiting'} onClick={() => setFilter('waiting')}>
            Waiting
          </button>
          <button type="button" aria-pressed={filter === 'deferred'} onClick={() => setFilter('deferred')}>
            Deferred
          </button>
        </div>
        <ConnectionBadge conn={conn} />
      </div>
      {filter === 'deferred' ? (
        <DeferredList api={api} me={me} onRefused={onRefused} />
      ) : (
        <WaitingList inbox={inbox} conn={conn} count={count} api={api} me={me} />
      )}
    </section>
  );
}

/** How often the Deferred filter reads the deferred calls. */
export const DEFERRED_POLL_MS = 2000;

/** The deferred calls, read every {@link DEFERRED_POLL_MS}. */
function DeferredList(props: { api: Api; me: Me; onRefused: (err: unknown) => void }) {
  const { api, me, onRefused } = props;
  const [inbox, setInbox] = useState<Inbox | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  useEffect(() => {
    const stop = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const read = () => {
      api
        .inboxWithDeferred(stop.signal)
        .then(
          (i) => {
            setInbox(i);
            setError(undefined);
          },
          (err: unknown) => {
            if (stop.signal.aborted) return;
            onRefused(err);
            setError(err instanceof Error ? err.message : String(err));
          },
        )
        .finally(() => {
          if (!stop.signal.aborted) timer = setTimeout(read, DEFERRED_POLL_MS);
        });
    };
    read();
    return () => {
      stop.abort();
      clearTimeout(timer);
    };
  }, [api]);
  const runs = inbox?.runs
    .map((r) => ({ ...r, pending: r.pending.filter((p) => p.deferredUntil !== undefined) }))
    .filter((r) => r.pending.length);
  return (
    <>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {!inbox && !error && <p class="muted">Loading the deferred calls…</p>}
      {runs && runs.length === 0 && <p class="empty">No call is deferred.</p>}
      {runs?.map((run) =>
        run.pending.map((call) => <ApprovalCard key={`${run.workflowId}/${call.callId}`} api={api} me={me} run={run} call={call} />),
      )}
    </>
  );
}

function WaitingList(props: { inbox: Inbox | undefined; conn: Connection; count: number; api: Api; me: Me }) {
  const { inbox, conn, count, api, me } = props;
  return (
    <>
      {!inbox && conn.state !== 'failed' && <p class="muted">Loading the inbox…</p>}
      {inbox && count === 0 && !inbox.runs.some((r) => r.error !== undefined) && <p class="empty">Nothing is waiting for a person.</p>}
      {inbox?.runs.map((run) =>
        run.error !== undefined ? (
          <UnreadableCard key={run.workflowId} run={run} />
        ) : (
          run.pending.map((call) => <ApprovalCard key={`${run.workflowId}/${call.callId}`} api={api} me={me} run={run} call={call} />)
        ),
      )}
    </>
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

/** An hour from now, or a minute before the call expires when that is sooner. */
function defaultDeferUntil(expiresAt: string | undefined, now = Date.now()): number {
  const hour = now + 3_600_000;
  const expires = expiresAt ? Date.parse(expiresAt) - 60_000 : Infinity;
  return Math.max(now + 60_000, Math.min(hour, expires));
}

/** A time as a `datetime-local` input's value (local time, minutes). */
function localInput(ms: number): string {
  const d = new Date(ms);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

const PAST: Record<Decision, string> = { approve: 'Approved', deny: 'Denied', skip: 'Skipped' };

/** Why the signed-in identity may not decide a call. */
function whyNot(me: Me, call: PendingCall): string {
  if (!me.approve) return `Your token (${me.identity}) may not decide approvals.`;
  const named = [...(call.approvers ?? []), ...(call.escalated?.to ?? []), ...(call.assignee ? [call.assignee] : [])];
  if (named.length) return `Only ${[...new Set(named)].join(', ')} may decide this call.`;
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

  const [later, setLater] = useState<{ state: 'sending' } | { state: 'done'; text: string } | undefined>(undefined);
  const [until, setUntil] = useState(() => localInput(defaultDeferUntil(call.expiresAt)));
  const [to, setTo] = useState('');
  const act = async (doing: () => Promise<unknown>, done: string) => {
    setLater({ state: 'sending' });
    setError(undefined);
    try {
      await doing();
      setLater({ state: 'done', text: done });
    } catch (err) {
      setLater(undefined);
      setError(err instanceof ApiError ? err.message : `The request did not reach the server: ${String(err)}`);
    }
  };
  const deferIt = () => {
    const at = new Date(until);
    if (Number.isNaN(at.getTime())) return setError('Choose when the call should come back.');
    void act(
      () => api.defer(run.workflowId, call.callId, at.toISOString(), reason.trim() || undefined),
      `Deferred until ${at.toLocaleString()}; it leaves the inbox until then.`,
    );
  };
  const delegateIt = () => {
    const who = to.trim();
    if (!who) return setError('Name the identity to delegate to.');
    void act(() => api.delegate(run.workflowId, call.callId, who, reason.trim() || undefined), `Delegated to ${who}.`);
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
      {(call.escalated || call.assignee || call.deferredUntil) && (
        <p class="flags">
          {call.escalated && (
            <span class="badge warn escalated" title={`escalated ${new Date(call.escalated.at).toLocaleString()}`}>
              escalated to {call.escalated.to.join(', ')}
            </span>
          )}
          {call.assignee && <span class="badge assignee">assigned to {call.assignee}</span>}
          {call.deferredUntil && <span class="badge deferred">deferred until {new Date(call.deferredUntil).toLocaleString()}</span>}
        </p>
      )}
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
      {call.mayDecide && (
        <details class="later">
          <summary>Not now · Delegate</summary>
          <div class="later-row">
            <label for={`until-${id}`}>Back at</label>
            <input
              id={`until-${id}`}
              class="defer-until"
              type="datetime-local"
              value={until}
              onInput={(e) => setUntil(e.currentTarget.value)}
              disabled={disabled || later !== undefined}
            />
            <button type="button" disabled={disabled || later !== undefined} onClick={deferIt}>
              Not now
            </button>
          </div>
          <div class="later-row">
            <label for={`to-${id}`}>Delegate to</label>
            <input
              id={`to-${id}`}
              class="delegate-to"
              type="text"
              value={to}
              onInput={(e) => setTo(e.currentTarget.value)}
              disabled={disabled || later !== undefined}
              placeholder="identity"
            />
            <button type="button" disabled={disabled || later !== undefined} onClick={delegateIt}>
              Delegate
            </button>
          </div>
        </details>
      )}
      {later?.state === 'done' && (
        <p class="later-done" role="status">
          {later.text}
        </p>
      )}
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
