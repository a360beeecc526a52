/**
 * `durable-agent audit <workflowId>`: the approval audit trail of one run — who decided what on which
 * call, when, through which path, with reason and rule — read from the run's events (a closed run from
 * its history, no worker needed). Without an id: the records across runs (`--since`, `--agent`, `--by`,
 * `--tool`, `--decision`, `--path`), as a table.
 */
import type { AuditKind, AuditPath, AuditQuery, AuditRecord, RunAudit } from '../../../src/entry/types';
import { formatTable } from '../table';
import { NoWorkerError, RunNotFoundError } from '../../../src/entry/client';
import { CliError, errorMessage } from '../errors';
import { Output } from '../terminal-output';
import { Session } from '../session';
import type { ConnectionFlags } from '../target';
import { resolveTarget } from '../target';

/** Options of `audit`. */
export interface AuditFlags extends Omit<ConnectionFlags, 'taskQueue'> {
  children?: boolean;
  json?: boolean;
  /** Across runs (no id): runs started and records made within this long (default `24h`). */
  since?: string;
  agent?: string;
  by?: string;
  tool?: string;
  decision?: string;
  path?: string;
  kind?: string;
  /** At most this many records. */
  limit?: string;
  /** Read at most this many of the newest runs (default 20). */
  runs?: string;
}

/** One line of the trail as text. */
export function formatAuditRecord(r: AuditRecord): string {
  const what = [r.kind, r.decision].filter(Boolean).join(' ');
  const call = r.callId ? ` ${r.tool ?? ''} ${r.callId}`.replace(/ {2,}/g, ' ') : '';
  const who = r.by ? ` by ${r.by}` : '';
  const path = r.path ? ` via ${r.path}` : '';
  const rule = r.rule ? ` (rule ${r.rule.id}${r.rule.version !== undefined ? ` v${r.rule.version}` : ''})` : '';
  const reason = r.reason ? `: ${r.reason}` : '';
  return `${r.at}${r.child ? ` [${r.child}]` : ''} ${what}${call}${who}${path}${rule}${reason}`;
}

/** The records across runs as a table (newest runs first), and the runs that could not be read. */
export function auditTable(runs: readonly RunAudit[]): string[] {
  const rows = runs.flatMap((run) =>
    run.records.map((r) => [
      r.at,
      run.workflowId,
      run.agent ?? '',
      r.tool ?? '',
      [r.kind, r.decision].filter(Boolean).join(' '),
      r.by ?? '',
      r.path ?? '',
      r.rule ? `${r.rule.id}${r.rule.version !== undefined ? ` v${r.rule.version}` : ''}` : '',
      r.reason ?? (r.until ? `until ${r.until}` : r.to?.length ? `to ${r.to.join(' ')}` : ''),
    ]),
  );
  const failed = runs.filter((r) => r.error !== undefined).map((r) => `${r.workflowId}: cannot be read: ${r.error}`);
  if (!rows.length) return ['no approval records match', ...failed];
  const columns = ['at', 'run', 'agent', 'tool', 'what', 'by', 'path', 'rule', 'reason'].map((header) => ({ header }));
  return [...formatTable(columns, rows), ...failed];
}

const PATHS = ['sdk', 'cli', 'http', 'console', 'chat', 'temporal', 'rule', 'timeout', 'policy', 'parent'];
const DECISIONS = ['approve', 'deny', 'skip', 'allow', 'fail'];

/** The {@link AuditQuery} of the flags. @throws {CliError} a bad value. */
export function auditQueryOfFlags(flags: AuditFlags): AuditQuery {
  const q: AuditQuery = { since: flags.since ?? '24h' };
  if (flags.agent) q.agent = flags.agent;
  if (flags.by) q.by = flags.by;
  if (flags.tool) q.tool = flags.tool;
  if (flags.decision) {
    if (!DECISIONS.includes(flags.decision)) throw new CliError(`--decision must be one of ${DECISIONS.join(', ')}`);
    q.decision = flags.decision as AuditQuery['decision'];
  }
  if (flags.path) {
    if (!PATHS.includes(flags.path)) throw new CliError(`--path must be one of ${PATHS.join(', ')}`);
    q.path = flags.path as AuditPath;
  }
  if (flags.kind) q.kind = flags.kind as AuditKind;
  if (flags.limit !== undefined) {
    if (!/^\d{1,6}$/.test(flags.limit) || Number(flags.limit) < 1) throw new CliError('--limit must be a whole number from 1');
    q.limit = Number(flags.limit);
  }
  if (flags.runs !== undefined) {
    if (!/^\d{1,4}$/.test(flags.runs) || Number(flags.runs) < 1 || Number(flags.runs) > 1000)
      throw new CliError('--runs must be a whole number from 1 to 1000');
    q.runs = Number(flags.runs);
  }
  return q;
}

/** Print the records across runs; exit code 0. */
async function auditAcrossCommand(flags: AuditFlags): Promise<number> {
  const query = auditQueryOfFlags(flags);
  const out = new Output(Boolean(flags.json));
  const session = await Session.open(resolveTarget(flags), { embed: 'if-state', log: (l) => out.note(l) });
  try {
    let runs: RunAudit[];
    try {
      runs = await session.agentClient().audit(query);
    } catch (err) {
      throw new CliError(`cannot read the audit records: ${errorMessage(err)}`);
    }
    if (flags.json) out.json(runs);
    else out.line(...auditTable(runs));
    return 0;
  } finally {
    await session.close();
  }
}

/** Print the run's trail (no id: the records across runs); exit code 0. */
export async function auditCommand(workflowId: string | undefined, flags: AuditFlags): Promise<number> {
  if (workflowId === undefined) return auditAcrossCommand(flags);
  if (!workflowId.trim()) throw new CliError('the workflow id is empty');
  const out = new Output(Boolean(flags.json));
  const session = await Session.open(resolveTarget(flags), { embed: 'if-state', log: (l) => out.note(l) });
  try {
    let records: AuditRecord[];
    try {
      records = await session
        .agentClient()
        .get(workflowId)
        .audit({ children: Boolean(flags.children) });
    } catch (err) {
      if (err instanceof RunNotFoundError || err instanceof NoWorkerError) throw new CliError(err.message);
      throw new CliError(`cannot read the audit trail of run "${workflowId}": ${errorMessage(err)}`);
    }
    if (flags.json) out.json(records);
    else if (records.length === 0) out.line(`run ${workflowId} has no approval records`);
    else out.line(...records.map(formatAuditRecord));
    return 0;
  } finally {
    await session.close();
  }
}
