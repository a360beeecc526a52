/**
 * Talking to workers older than this client during a rolling deploy: a decision's informational fields
 * (the audit's `path` and `updateId`) are dropped when the run refuses them as unknown, so the decision
 * still applies; fields that change what it does (`scope`, `match`, `rule`) never are.
 */
import type { ApprovalDecision } from '../core/approvals/approvals';

/** Fields a decision may lose for a worker that does not know them: they change nothing it does. */
const INFORMATIONAL: ReadonlySet<string> = new Set(['path', 'updateId']);

/**
 * `decision` without the fields `refusal` (a run's refusal message, e.g. `malformed decision: unknown
 * field(s): path`) names as unknown, when every problem it names is such a field and each is informational;
 * undefined otherwise (the refusal stands).
 */
export function withoutUnknownFields(decision: ApprovalDecision, refusal: string): ApprovalDecision | undefined {
  const problems = refusal.replace(/^malformed decision: /, '').split('; ');
  const unknown = /^unknown field\(s\): (.+)$/.exec(problems.length === 1 ? problems[0]! : '');
  if (!unknown) return undefined;
  const fields = unknown[1]!.split(',').map((f) => f.trim());
  if (!fields.every((f) => INFORMATIONAL.has(f) && f in decision)) return undefined;
  const kept: Record<string, unknown> = { ...decision };
  for (const f of fields) delete kept[f];
  return kept as unknown as ApprovalDecision;
}
