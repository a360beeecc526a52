/**
 * The standing approval rules (`#/rules`, `GET /rules`): each rule's scope, tool, condition (rendered),
 * action, expiry and maker. A token holding `rules` also sees the form that adds a rule and a Remove per
 * rule; the rules entity still checks that its identity is an editor, and its refusal is shown as is.
 */
import { useEffect, useState } from 'preact/hooks';
import type { ApprovalRule, Cond, RuleAction } from '../../../src/entry/types';
import { parseWhen, renderCond } from '../../../src/core/approvals/render-cond';
import type { Api, Me, RuleDraft, RulesList } from './api';
import { ApiError } from './api';
import { when } from './format';

const message = (err: unknown) => (err instanceof ApiError || err instanceof Error ? err.message : String(err));
const ACTIONS: readonly RuleAction[] = ['allow', 'ask', 'deny'];
const SCOPES = ['namespace', 'agent', 'session'] as const;
type Scope = (typeof SCOPES)[number];

/** Where a rule applies, as text. */
function whereOf(r: ApprovalRule): string {
  if (r.scope === 'agent') return `agent ${r.agent ?? '?'}`;
  if (r.scope === 'session') return `session ${r.session ?? '?'}`;
  return r.scope;
}

/** May `me` change rules (the server checks again, and the entity checks editors)? */
export function mayEditRules(me: Me): boolean {
  const held: readonly string[] = me.permissions;
  return held.includes('rules') || held.includes('admin');
}

/** The rules page. */
export function RulesPage(props: { api: Api; me: Me; onRefused: (err: unknown) => void }) {
  const { api, me, onRefused } = props;
  const [list, setList] = useState<RulesList | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [changeError, setChangeError] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const [reload, setReload] = useState(0);
  const editable = mayEditRules(me);

  useEffect(() => {
    const stop = new AbortController();
    api.rules(stop.signal).then(
      (l) => {
        setList(l);
        setError(undefined);
      },
      (err: unknown) => {
        if (stop.signal.aborted) return;
        onRefused(err);
        setError(message(err));
      },
    );
    return () => stop.abort();
  }, [api, reload]);

  const change = async (doing: () => Promise<unknown>): Promise<boolean> => {
    setBusy(true);
    setChangeError(undefined);
    try {
      await doing();
      setReload((n) => n + 1);
      return true;
    } catch (err) {
      setChangeError(message(err));
      return false;
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="rules">
      <div class="page-head">
        <h1>
          Rules <span class="count">{list ? list.rules.length : ''}</span>
        </h1>
        {list && <span class="badge">version {list.version}</span>}
        <button type="button" onClick={() => setReload((n) => n + 1)}>
          Refresh
        </button>
      </div>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {!list && !error && <p class="muted">Loading…</p>}
      {list && list.editors.length > 0 && <p class="muted small editors">Editors: {list.editors.join(', ')}</p>}
      {!editable && <p class="why-not muted">Your token ({me.identity}) may not change rules: it lacks the "rules" permission.</p>}
      {changeError && (
        <p class="error change-error" role="alert">
          {changeError}
        </p>
      )}
      {list && list.rules.length === 0 && <p class="empty">No standing rule.</p>}
      {list && list.rules.length > 0 && (
        <table class="list rule-list">
          <thead>
            <tr>
              <th>Rule</th>
              <th>Applies to</th>
              <th>Tool</th>
              <th>When</th>
              <th>Action</th>
              <th>Until</th>
              <th>By</th>
              {editable && <th />}
            </tr>
          </thead>
          <tbody>
            {list.rules.map((r) => (
              <tr key={r.id} data-rule={r.id}>
                <td data-label="Rule">
                  {r.id}
                  {r.version !== undefined ? <span class="muted small"> v{r.version}</span> : null}
                </td>
                <td data-label="Applies to">{whereOf(r)}</td>
                <td data-label="Tool">
                  <code>{r.tool}</code>
                </td>
                <td data-label="When" class="cond">
                  {r.when ? renderCond(r.when) : 'always'}
                </td>
                <td data-label="Action" class="action">
                  {r.action}
                </td>
                <td data-label="Until" class="until">
                  {r.until ? when(r.until) : '—'}
                </td>
                <td data-label="By">
                  {r.createdBy}
                  {r.reason ? <span class="muted small">: {r.reason}</span> : null}
                </td>
                {editable && (
                  <td>
                    <button type="button" class="danger remove" disabled={busy} onClick={() => void change(() => api.removeRule(r.id))}>
                      Remove
                    </button>
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {editable && <AddRule busy={busy} onAdd={(draft) => change(() => api.putRule(draft))} />}
    </section>
  );
}

/** The form that adds a rule; the condition is written as the CLI's `--when` (`amount<=50 and env=staging`); an optional expiry. */
function AddRule(props: { busy: boolean; onAdd: (draft: RuleDraft) => Promise<boolean> }) {
  const [scope, setScope] = useState<Scope>('namespace');
  const [target, setTarget] = useState('');
  const [tool, setTool] = useState('');
  const [cond, setCond] = useState('');
  const [action, setAction] = useState<RuleAction>('allow');
  const [reason, setReason] = useState('');
  const [until, setUntil] = useState('');
  const [problem, setProblem] = useState<string | undefined>(undefined);

  const submit = async () => {
    setProblem(undefined);
    if (!tool.trim()) return setProblem('Name the tool (or * for every tool).');
    if (scope !== 'namespace' && !target.trim()) return setProblem(`Name the ${scope}.`);
    let whenCond: Cond | undefined;
    if (cond.trim()) {
      const parsed = parseWhen([cond]);
      if (!parsed.ok) return setProblem(parsed.error);
      whenCond = parsed.value;
    }
    const expires = until ? new Date(until) : undefined;
    if (expires && Number.isNaN(expires.getTime())) return setProblem('The expiry is not a time.');
    const draft: RuleDraft = {
      scope,
      tool: tool.trim(),
      action,
      ...(scope === 'agent' ? { agent: target.trim() } : {}),
      ...(scope === 'session' ? { session: target.trim() } : {}),
      ...(whenCond ? { when: whenCond } : {}),
      ...(reason.trim() ? { reason: reason.trim() } : {}),
      ...(expires ? { until: expires.toISOString() } : {}),
    };
    if (await props.onAdd(draft)) {
      setTool('');
      setCond('');
      setReason('');
      setUntil('');
    }
  };

  return (
    <form
      class="card add-rule filters"
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
    >
      <h2 class="section">Add a rule</h2>
      <label>
        Applies to
        <select name="scope" value={scope} onChange={(e) => setScope(e.currentTarget.value as Scope)}>
          {SCOPES.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
      </label>
      {scope !== 'namespace' && (
        <label>
          {scope === 'agent' ? 'Agent' : 'Session'}
          <input name="target" type="text" value={target} onInput={(e) => setTarget(e.currentTarget.value)} />
        </label>
      )}
      <label>
        Tool
        <input name="tool" type="text" value={tool} onInput={(e) => setTool(e.currentTarget.value)} placeholder="refund, or *" />
      </label>
      <label>
        When
        <input
          name="when"
          type="text"
          value={cond}
          onInput={(e) => setCond(e.currentTarget.value)}
          placeholder="amount<=50 (empty: always)"
        />
      </label>
      <label>
        Action
        <select name="action" value={action} onChange={(e) => setAction(e.currentTarget.value as RuleAction)}>
          {ACTIONS.map((a) => (
            <option key={a} value={a}>
              {a}
            </option>
          ))}
        </select>
      </label>
      <label>
        Reason
        <input name="reason" type="text" value={reason} onInput={(e) => setReason(e.currentTarget.value)} />
      </label>
      <label>
        Until <span class="muted">(optional)</span>
        <input name="until" type="datetime-local" value={until} onInput={(e) => setUntil(e.currentTarget.value)} />
      </label>
      <button type="submit" class="primary apply" disabled={props.busy}>
        Add rule
      </button>
      {problem && (
        <p class="error" role="alert">
          {problem}
        </p>
      )}
    </form>
  );
}
