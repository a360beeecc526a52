/**
 * Calls to the HTTP API with the signed-in token. Every failure is an {@link ApiError} carrying the
 * server's message (its JSON `{ error: { code, message } }`), or a message naming the network failure.
 */
import type { Decision } from '../../../src/entry/client';
import type {
  CallerView as Me,
  InboxCall as PendingCall,
  InboxRun,
  InboxView as Inbox,
  ListedRun,
  RunReportView as ReportView,
  RunView,
} from '../../../src/entry/client';
import type { AuditRecord, RuleChangeReceipt, RuleInput, RulesView as RulesList, RunAudit } from '../../../src/entry/types';

/** A rule to add (`POST /rules`): the maker is the token's identity. */
export type RuleDraft = Omit<RuleInput, 'id'>;

/** A refused or failed request: the server's status, code and message. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export type { Me, PendingCall, InboxRun, Inbox, ListedRun, ReportView, RunView, AuditRecord, RunAudit, RulesList };

/** A query string of the non-empty entries. */
const queryOf = (query: Record<string, string>): string => {
  const q = new URLSearchParams(Object.entries(query).filter(([, v]) => v !== '')).toString();
  return q ? `?${q}` : '';
};

/** The base URL of the API: the console is served at `<api>/console/`. */
export function apiBase(): string {
  const path = location.pathname.replace(/\/console(\/.*)?$/, '');
  return `${location.origin}${path === '/' ? '' : path}`;
}

/** The path of a run's routes. */
export const runPath = (id: string): string => `/runs/${encodeURIComponent(id)}`;

/** The error a failed response stands for. */
export async function errorOf(res: Response): Promise<ApiError> {
  const text = await res.text().catch(() => '');
  try {
    const body = JSON.parse(text) as { error?: { code?: string; message?: string } };
    if (body.error?.message) return new ApiError(res.status, body.error.code ?? 'error', body.error.message);
  } catch {
    // not JSON: below
  }
  return new ApiError(
    res.status,
    'http_error',
    `the server answered ${res.status} ${res.statusText}${text ? `: ${text.slice(0, 200)}` : ''}`,
  );
}

/** A request with `token`; the parsed JSON answer. @throws {ApiError} */
export async function request<T>(token: string, method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
  let res: Response;
  try {
    res = await fetch(`${apiBase()}${path}`, {
      method,
      headers: {
        Authorization: `Bearer ${token}`,
        'X-Durable-Agent-Client': 'console',
        ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      ...(signal ? { signal } : {}),
    });
  } catch (err) {
    if (signal?.aborted) throw err;
    throw new ApiError(0, 'network', `cannot reach the server (${err instanceof Error ? err.message : String(err)})`);
  }
  if (!res.ok) throw await errorOf(res);
  return (await res.json()) as T;
}

/** The API's calls, bound to one token. */
export class Api {
  constructor(readonly token: string) {}

  me = (): Promise<Me> => request<Me>(this.token, 'GET', '/me');
  runs = (query: Record<string, string>, signal?: AbortSignal): Promise<{ runs: ListedRun[] }> => {
    const q = new URLSearchParams(Object.entries(query).filter(([, v]) => v !== '')).toString();
    return request(this.token, 'GET', `/runs${q ? `?${q}` : ''}`, undefined, signal);
  };
  run = (id: string, signal?: AbortSignal): Promise<RunView> => request(this.token, 'GET', runPath(id), undefined, signal);
  report = (id: string, signal?: AbortSignal): Promise<ReportView> =>
    request(this.token, 'GET', `${runPath(id)}/report`, undefined, signal);
  cancel = (id: string): Promise<unknown> => request(this.token, 'POST', `${runPath(id)}/cancel`, {});
  decide = (id: string, callId: string, decision: Decision, reason?: string): Promise<unknown> =>
    request(this.token, 'POST', `${runPath(id)}/approvals/${encodeURIComponent(callId)}`, { decision, ...(reason ? { reason } : {}) });
  /** Defer a call ("not now") until `until` (ISO). */
  defer = (id: string, callId: string, until: string, reason?: string): Promise<unknown> =>
    request(this.token, 'POST', `${runPath(id)}/approvals/${encodeURIComponent(callId)}/defer`, { until, ...(reason ? { reason } : {}) });
  /** Hand a call to identity `to`. */
  delegate = (id: string, callId: string, to: string, reason?: string): Promise<unknown> =>
    request(this.token, 'POST', `${runPath(id)}/approvals/${encodeURIComponent(callId)}/delegate`, { to, ...(reason ? { reason } : {}) });
  /** The inbox once, deferred requests included. */
  inboxWithDeferred = (signal?: AbortSignal): Promise<Inbox> =>
    request(this.token, 'GET', '/approvals?includeDeferred=true', undefined, signal);
  /** Approval records across runs (`GET /audit`). */
  audit = (query: Record<string, string>, signal?: AbortSignal): Promise<{ runs: RunAudit[] }> =>
    request(this.token, 'GET', `/audit${queryOf(query)}`, undefined, signal);
  /** The standing rules and their editors (`GET /rules`). */
  rules = (signal?: AbortSignal): Promise<RulesList> => request(this.token, 'GET', '/rules', undefined, signal);
  /** Add a standing rule (`POST /rules`; the token needs `rules`, its identity must be an editor). */
  putRule = (draft: RuleDraft): Promise<RuleChangeReceipt> => request(this.token, 'POST', '/rules', draft);
  /** Remove a standing rule (`DELETE /rules/:id`). */
  removeRule = (id: string): Promise<RuleChangeReceipt> => request(this.token, 'DELETE', `/rules/${encodeURIComponent(id)}`);
  /** A run's approval trail (`GET /runs/:id/audit`). */
  runAudit = (id: string, signal?: AbortSignal): Promise<{ records: AuditRecord[] }> =>
    request(this.token, 'GET', `${runPath(id)}/audit`, undefined, signal);
}
