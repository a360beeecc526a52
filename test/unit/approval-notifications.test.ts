/** What an approval notification says, and which targets get it (pure: core/approvals/notifications). */
import { describe, expect, it } from 'vitest';
import type { ApprovalHappening, NotifySpec } from '../../src/core/approvals/notifications';
import { NOTIFICATION_ARGS_BYTES, notificationsFor } from '../../src/core/approvals/notifications';

const run = { workflowId: 'wf-1', runId: 'r-1', agent: 'ops' };
const pending = {
  callId: 'call_1_0',
  step: 1,
  tool: 'deploy',
  args: { service: 'api' },
  requestedAt: '2026-01-01T00:00:00.000Z',
  expiresAt: '2026-01-01T01:00:00.000Z',
  approvers: ['ops:alice'],
};
const spec: NotifySpec = {
  targets: [
    { name: 'slack', events: ['approval.requested', 'approval.escalated'] },
    { name: 'audit', events: ['approval.requested', 'approval.decided', 'approval.expired'], includeArgs: true },
  ],
  consoleUrl: 'https://console.example/base/',
};
const at = '2026-01-01T00:00:01.000Z';

describe('notificationsFor', () => {
  it('a request goes to every target that receives its type; only includeArgs targets get the args', () => {
    const out = notificationsFor({ type: 'approval.requested', at, pending }, spec, run);
    expect(out.map((n) => n.target)).toEqual(['slack', 'audit']);
    expect(out[0]).toEqual({
      target: 'slack',
      id: 'wf-1:r-1:call_1_0:approval.requested',
      payload: {
        type: 'approval.requested',
        id: 'wf-1:r-1:call_1_0:approval.requested',
        at,
        workflowId: 'wf-1',
        runId: 'r-1',
        agent: 'ops',
        callId: 'call_1_0',
        tool: 'deploy',
        approvers: ['ops:alice'],
        expiresAt: pending.expiresAt,
        consoleUrl: 'https://console.example/base/#/runs/wf-1',
      },
    });
    expect(out[1]!.payload.args).toEqual({ service: 'api' });
    expect(out[0]!.payload).not.toHaveProperty('args');
  });

  it('a decision carries decision, by, reason and path (the client path when known, else signal/update); ids differ by type', () => {
    const h: ApprovalHappening = {
      type: 'approval.decided',
      at,
      pending,
      decided: { decision: 'deny', by: 'ops:bob', reason: 'freeze' },
      via: 'signal',
    };
    const [n] = notificationsFor(h, spec, run);
    expect(n).toMatchObject({ target: 'audit', id: 'wf-1:r-1:call_1_0:approval.decided' });
    expect(n!.payload).toMatchObject({ decision: 'deny', by: 'ops:bob', reason: 'freeze', path: 'signal' });
    const [withPath] = notificationsFor({ ...h, decided: { ...h.decided!, path: 'cli' } }, spec, run);
    expect(withPath!.payload.path).toBe('cli');
  });

  it('an escalation widens approvers; an expiry says its outcome; a type no target receives notifies nobody', () => {
    const [esc] = notificationsFor({ type: 'approval.escalated', at, pending, to: ['ops:leads'] }, spec, run);
    expect(esc!.payload.approvers).toEqual(['ops:alice', 'ops:leads']);
    const [exp] = notificationsFor({ type: 'approval.expired', at, pending, outcome: 'deny' }, spec, run);
    expect(exp!.payload.outcome).toBe('deny');
    expect(notificationsFor({ type: 'approval.decided', at, pending }, { targets: [spec.targets[0]!] }, run)).toEqual([]);
  });

  it(`arguments over ${NOTIFICATION_ARGS_BYTES} bytes are left out, and say so`, () => {
    const big = { ...pending, args: { text: 'x'.repeat(NOTIFICATION_ARGS_BYTES) } };
    const [, audit] = notificationsFor({ type: 'approval.requested', at, pending: big }, spec, run);
    expect(audit!.payload).not.toHaveProperty('args');
    expect(audit!.payload.argsOmitted).toBe('too_large');
  });
});
