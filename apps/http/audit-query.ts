/**
 * The query of `GET /audit` (approval records across runs): which runs (`agent`, started within `since`,
 * the newest `runs` of them) and which records (`by`, `tool`, `decision`, `path`, `kind`, before `until`),
 * at most `limit`. Pure.
 */
import type { Context } from 'hono';
import type { AuditKind, AuditPath, AuditQuery, AuditRecord } from '../../src/entry/types';
import { HttpError } from './errors';

/** Query parameters of `GET /audit`. */
export const AUDIT_PARAMS = ['since', 'until', 'agent', 'by', 'tool', 'decision', 'path', 'kind', 'limit', 'runs'] as const;

const PATHS: readonly AuditPath[] = ['sdk', 'cli', 'http', 'console', 'chat', 'temporal', 'rule', 'timeout', 'policy', 'parent'];
const KINDS: readonly AuditKind[] = [
  'requested',
  'auto',
  'decided',
  'expired',
  'deferred',
  'returned',
  'escalated',
  'delegated',
  'withdrawn',
  'refused',
  'forwarded',
];
const DECISIONS: ReadonlyArray<NonNullable<AuditRecord['decision']>> = ['approve', 'deny', 'skip', 'allow', 'fail'];

/** The most records one `GET /audit` answers, and the most runs it reads. */
export const MAX_AUDIT_LIMIT = 1000;

function oneOf<T extends string>(name: string, value: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(value))
    throw new HttpError(400, 'invalid_request', `${name} "${value}" must be one of ${allowed.join(', ')}`, name);
  return value as T;
}

/**
 * The {@link AuditQuery} of a `GET /audit` request. `since` is a duration (`24h`) as in `GET /runs`;
 * `until` an ISO time. The client checks `agent` and `since` (a bad one is answered 400 naming it).
 * @throws {HttpError} 400 naming an unknown or repeated parameter or a bad value.
 */
export function auditQueryOf(c: Context): AuditQuery {
  const query = c.req.queries();
  for (const [name, values] of Object.entries(query)) {
    if (!(AUDIT_PARAMS as readonly string[]).includes(name))
      throw new HttpError(400, 'invalid_request', `${name}: unknown query parameter; use ${AUDIT_PARAMS.join(', ')}`, name);
    if (values.length !== 1) throw new HttpError(400, 'invalid_request', `${name}: give it once`, name);
  }
  const one = (name: (typeof AUDIT_PARAMS)[number]): string | undefined => {
    const v = query[name]?.[0];
    return v === undefined || v === '' ? undefined : v;
  };
  const out: AuditQuery = {};
  const since = one('since');
  if (since !== undefined) out.since = since;
  const until = one('until');
  if (until !== undefined) {
    if (Number.isNaN(Date.parse(until))) throw new HttpError(400, 'invalid_request', `until "${until}" must be an ISO date-time`, 'until');
    out.until = new Date(until).toISOString();
  }
  for (const name of ['agent', 'by', 'tool'] as const) {
    const v = one(name);
    if (v !== undefined) out[name] = v;
  }
  const decision = one('decision');
  if (decision !== undefined) out.decision = oneOf('decision', decision, DECISIONS);
  const path = one('path');
  if (path !== undefined) out.path = oneOf('path', path, PATHS);
  const kind = one('kind');
  if (kind !== undefined) out.kind = oneOf('kind', kind, KINDS);
  for (const name of ['limit', 'runs'] as const) {
    const v = one(name);
    if (v === undefined) continue;
    if (!/^\d{1,9}$/.test(v) || Number(v) < 1 || Number(v) > MAX_AUDIT_LIMIT)
      throw new HttpError(400, 'invalid_request', `${name} "${v}" must be a whole number from 1 to ${MAX_AUDIT_LIMIT}`, name);
    out[name] = Number(v);
  }
  return out;
}

/** `?includeDeferred=true` on `GET /approvals`: list deferred requests too. @throws {HttpError} 400 another value. */
export function includeDeferredOf(c: Context): boolean {
  const v = c.req.query('includeDeferred');
  if (v === undefined || v === 'false') return false;
  if (v === 'true') return true;
  throw new HttpError(400, 'invalid_request', `includeDeferred "${v}" must be true or false`, 'includeDeferred');
}
