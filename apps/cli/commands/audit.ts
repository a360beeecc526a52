/**
 * `durable-agent audit <workflowId>`: the approval audit trail of one run — who decided what on which
 * call, when, through which path, with reason and rule — read from the run's events (a closed run from
 * its history, no worker needed).
 */
import type { AuditRecord } from '../../../src/entry/types';
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

/** Print the run's trail; exit code 0. */
export async function auditCommand(workflowId: string, flags: AuditFlags): Promise<number> {
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
