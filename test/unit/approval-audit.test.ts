import { describe, expect, it } from 'vitest';
import { auditIdentityKey, auditRecords, matchesAudit } from '../../src/core/approvals/audit';
import { auditNarrowing } from '../../src/client/audit';
import type { AgentEvent } from '../../src/core/events/events';

const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();
const ev = (seq: number, body: Record<string, unknown>) => ({ ...body, seq, at: at(seq) }) as unknown as AgentEvent;

const events: Array<AgentEvent & { child?: string }> = [
  ev(0, { type: 'run_started', agent: 'a', model: 'p/m', maxSteps: 3 }),
  ev(1, { type: 'approval_requested', step: 1, callId: 'c1', tool: 'refund', args: { amount: 9 } }),
  ev(2, {
    type: 'approval_decided',
    step: 1,
    callId: 'c1',
    tool: 'refund',
    decision: 'approve',
    by: 'ops:a',
    via: 'update',
    sticky: false,
    path: 'cli',
    updateId: 'u1',
    reason: 'ok',
  }),
  ev(3, { type: 'approval_decided', step: 1, callId: 'c2', tool: 'refund', decision: 'deny', by: 'ops:b', via: 'signal', sticky: false }),
  ev(4, { type: 'approval_expired', step: 2, callId: 'c3', tool: 'deploy', outcome: 'deny' }),
  ev(5, {
    type: 'approval_auto',
    step: 2,
    callId: 'c4',
    tool: 'deploy',
    decision: 'allow',
    path: 'rule',
    rule: { id: 'r1', version: 2, scope: 'agent' },
    by: 'ops:c',
  }),
  {
    ...ev(6, {
      type: 'approval_decided',
      step: 1,
      callId: 'k1',
      tool: 'shell',
      decision: 'approve',
      by: 'ops:d',
      via: 'update',
      sticky: false,
      path: 'parent',
    }),
    child: 'child-1',
  },
  ev(7, { type: 'tool_result', step: 1, callId: 'c1', tool: 'refund' }),
];

describe('auditRecords', () => {
  const records = auditRecords('run-1', events);

  it('derives one record per approval event, in order, with the run or child it belongs to', () => {
    expect(records.map((r) => [r.seq, r.kind, r.workflowId, r.child])).toEqual([
      [1, 'requested', 'run-1', undefined],
      [2, 'decided', 'run-1', undefined],
      [3, 'decided', 'run-1', undefined],
      [4, 'expired', 'run-1', undefined],
      [5, 'auto', 'run-1', undefined],
      [6, 'decided', 'child-1', 'child-1'],
    ]);
  });

  it('records who, the path (temporal when none was named, timeout for expiry), the update and the rule', () => {
    expect(records[1]).toEqual({
      at: at(2),
      seq: 2,
      workflowId: 'run-1',
      kind: 'decided',
      step: 1,
      callId: 'c1',
      tool: 'refund',
      decision: 'approve',
      by: 'ops:a',
      path: 'cli',
      via: 'update',
      updateId: 'u1',
      reason: 'ok',
    });
    expect(records[2]!.path).toBe('temporal');
    expect(records[3]).toMatchObject({ kind: 'expired', path: 'timeout', decision: 'deny' });
    expect(records[4]).toMatchObject({ kind: 'auto', path: 'rule', decision: 'allow', by: 'ops:c', rule: { id: 'r1', version: 2 } });
  });

  it('filters by time, who, tool, decision and path', () => {
    expect(records.filter((r) => matchesAudit(r, { path: 'temporal' })).map((r) => r.callId)).toEqual(['c2']);
    expect(records.filter((r) => matchesAudit(r, { by: 'ops:a' })).map((r) => r.callId)).toEqual(['c1']);
    expect(records.filter((r) => matchesAudit(r, { tool: 'deploy', decision: 'deny' })).map((r) => r.callId)).toEqual(['c3']);
    expect(records.filter((r) => matchesAudit(r, { since: at(3), until: at(5) })).map((r) => r.seq)).toEqual([3, 4]);
  });
});

describe('audit search attributes', () => {
  it('hash identities stably (FNV-1a 64, hex), distinct for distinct identities', () => {
    // FNV-1a 64 of "" and "a" (published test vectors).
    expect(auditIdentityKey('')).toBe('fnv1a64:cbf29ce484222325');
    expect(auditIdentityKey('a')).toBe('fnv1a64:af63dc4c8601ec8c');
    expect(auditIdentityKey('ops:alice')).not.toBe(auditIdentityKey('ops:bob'));
    expect(auditIdentityKey('ops:alice')).not.toContain('alice');
  });

  it('narrow client.audit by who decided and by rule; not for other kinds of records, nor for a rule id that cannot be quoted', () => {
    expect(auditNarrowing({})).toEqual([]);
    expect(auditNarrowing({ by: 'a' })).toEqual(["DurableAgentApprovalBy = 'fnv1a64:af63dc4c8601ec8c'"]);
    expect(auditNarrowing({ by: 'a', kind: 'decided', rule: 'r-1' })).toEqual([
      "DurableAgentApprovalBy = 'fnv1a64:af63dc4c8601ec8c'",
      "DurableAgentApprovalRules = 'r-1'",
    ]);
    expect(auditNarrowing({ by: 'a', kind: 'deferred' })).toEqual([]);
    expect(auditNarrowing({ rule: "r' OR 1=1" })).toEqual([]);
  });

  it('filter records by rule id', () => {
    const r = { at: at(1), seq: 1, workflowId: 'w', kind: 'decided' as const, rule: { id: 'r-1', scope: 'agent' as const } };
    expect(matchesAudit(r, { rule: 'r-1' })).toBe(true);
    expect(matchesAudit(r, { rule: 'r-2' })).toBe(false);
    expect(matchesAudit({ ...r, rule: undefined }, { rule: 'r-1' })).toBe(false);
  });
});
