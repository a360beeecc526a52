/** Defer, delegation and escalation: the pure rules (core/approvals/deferrals.ts) and the tool setting `escalate`. */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../src/agents/define';
import { approvalSpec } from '../../src/agents/registry';
import type { CallApprovalState, PendingApproval } from '../../src/core/approvals/approvals';
import { refusal } from '../../src/core/approvals/approvals';
import {
  MAX_DELEGATIONS,
  deferRefusal,
  delegateRefusal,
  inInbox,
  mayDecide,
  parseDefer,
  parseDelegate,
} from '../../src/core/approvals/deferrals';
import { DefinitionError } from '../../src/core/run/errors';
import { mayDecide as callerMayDecide } from '../../apps/http/approval-inbox';

const NOW = Date.parse('2026-01-01T10:00:00.000Z');
const at = (ms: number) => new Date(NOW + ms).toISOString();
const pending = (extra: Partial<PendingApproval> = {}): PendingApproval => ({
  callId: 'c1',
  step: 1,
  tool: 'deploy',
  args: {},
  requestedAt: at(0),
  approvers: ['ops:alice'],
  expiresAt: at(60_000),
  ...extra,
});
const waiting = (extra: Partial<PendingApproval> = {}): CallApprovalState => ({ kind: 'pending', pending: pending(extra) });

describe('parseDefer / parseDelegate', () => {
  it('accept well-formed requests and normalise them', () => {
    expect(parseDefer({ callId: 'c1', until: '2026-01-01T11:00:00Z', by: ' ops:alice ', reason: ' later ', path: 'cli' })).toEqual({
      ok: true,
      value: { callId: 'c1', until: '2026-01-01T11:00:00.000Z', by: 'ops:alice', reason: 'later', path: 'cli' },
    });
    expect(parseDelegate({ callId: 'c1', to: 'ops:bob', by: 'ops:alice' })).toEqual({
      ok: true,
      value: { callId: 'c1', to: 'ops:bob', by: 'ops:alice' },
    });
  });

  it('refuse malformed ones, naming every problem', () => {
    expect(parseDefer('x')).toMatchObject({ ok: false });
    const bad = parseDefer({ callId: '', until: 'tomorrow', by: '', extra: 1, path: 'rule' });
    expect(bad.ok).toBe(false);
    if (!bad.ok) {
      expect(bad.error).toMatch(/callId must be a non-empty string/);
      expect(bad.error).toMatch(/until must be an ISO date-time/);
      expect(bad.error).toMatch(/by must name/);
      expect(bad.error).toMatch(/path must be one of/);
      expect(bad.error).toMatch(/unknown field\(s\): extra/);
    }
    expect(parseDelegate({ callId: 'c1', by: 'ops:alice' })).toMatchObject({ ok: false, error: expect.stringMatching(/to must name/) });
  });
});

describe('who may decide', () => {
  it('anyone without approvers; otherwise approvers, the escalation group and the assignee', () => {
    expect(mayDecide(pending({ approvers: undefined }), 'anyone')).toBe(true);
    expect(mayDecide(pending(), 'ops:alice')).toBe(true);
    expect(mayDecide(pending(), 'ops:leads')).toBe(false);
    expect(mayDecide(pending({ escalated: { at: at(1), to: ['ops:leads'] } }), 'ops:leads')).toBe(true);
    expect(mayDecide(pending({ assignee: 'ops:bob' }), 'ops:bob')).toBe(true);
  });

  it('decisions follow the same rule, and the refusal names everyone allowed', () => {
    const d = { callId: 'c1', decision: 'approve' as const, by: 'eve' };
    expect(refusal(d, waiting({ assignee: 'ops:bob' }), NOW)).toBe('eve may not decide calls of "deploy" (allowed: ops:alice, ops:bob)');
    expect(refusal({ ...d, by: 'ops:bob' }, waiting({ assignee: 'ops:bob' }), NOW)).toBeUndefined();
  });
});

describe('deferRefusal', () => {
  const d = { callId: 'c1', until: at(30_000), by: 'ops:alice' };
  it('takes a defer by an allowed person until a future time before the expiry', () => {
    expect(deferRefusal(d, waiting(), NOW)).toBeUndefined();
    expect(deferRefusal({ ...d, until: at(60_000) }, waiting(), NOW)).toBeUndefined();
  });
  it('refuses the past, a time after the expiry, a stranger, and a request no longer waiting', () => {
    expect(deferRefusal({ ...d, until: at(0) }, waiting(), NOW)).toMatch(/must be in the future/);
    expect(deferRefusal({ ...d, until: at(60_001) }, waiting(), NOW)).toMatch(/must not be after the request expires/);
    expect(deferRefusal({ ...d, by: 'eve' }, waiting(), NOW)).toMatch(/eve may not decide/);
    expect(deferRefusal(d, { kind: 'decided', decision: 'approve', by: 'x' }, NOW)).toMatch(/already decided/);
    expect(deferRefusal(d, { kind: 'expired' }, NOW)).toMatch(/expired/);
    expect(deferRefusal(d, { kind: 'not_reached' }, NOW)).toMatch(/no approval is pending/);
  });
});

describe('delegateRefusal', () => {
  const d = { callId: 'c1', to: 'ops:bob', by: 'ops:alice' };
  it(`takes a delegation by an allowed person, at most ${MAX_DELEGATIONS} times`, () => {
    expect(delegateRefusal(d, waiting(), NOW, 0)).toBeUndefined();
    expect(delegateRefusal({ ...d, by: 'ops:carol', to: 'ops:dan' }, waiting({ assignee: 'ops:carol' }), NOW, 1)).toBeUndefined();
    expect(delegateRefusal(d, waiting(), NOW, MAX_DELEGATIONS)).toMatch(/delegated 5 times already/);
    expect(delegateRefusal(d, waiting({ assignee: 'ops:bob' }), NOW, 1)).toMatch(/already delegated to ops:bob/);
    expect(delegateRefusal({ ...d, by: 'eve' }, waiting(), NOW, 0)).toMatch(/eve may not decide/);
  });
});

it('a deferred request is out of the inbox', () => {
  expect(inInbox(pending())).toBe(true);
  expect(inInbox(pending({ deferredUntil: at(5) }))).toBe(false);
});

describe('defineTool escalate', () => {
  const base = { name: 't', description: 'd', input: z.object({}), execute: () => 'ok' };
  it('is recorded in the approval spec', () => {
    const t = defineTool({ ...base, approvers: ['ops:alice'], escalate: { after: '2h', to: ['ops:leads'] } });
    expect(approvalSpec(t)).toEqual({
      mode: 'always',
      approvers: ['ops:alice'],
      onTimeout: 'deny',
      escalation: { afterMs: 7_200_000, to: ['ops:leads'] },
    });
  });
  it('is refused when malformed or with nothing to approve', () => {
    expect(() => defineTool({ ...base, needsApproval: true, escalate: { after: 'soon', to: ['x'] } })).toThrow(
      /escalate.after must be a positive duration/,
    );
    expect(() => defineTool({ ...base, needsApproval: true, escalate: { after: '1m', to: [] } })).toThrow(
      /escalate.to must be a non-empty list/,
    );
    expect(() => defineTool({ ...base, escalate: { after: '1m', to: ['x'] } })).toThrow(DefinitionError);
    expect(() => defineTool({ ...base, escalate: { after: '1m', to: ['x'] } })).toThrow(/escalate does nothing without approval/);
  });
});

it('the HTTP inbox lets the escalation group and the assignee decide (the console enables their buttons)', () => {
  const caller = (identity: string) => ({ identity, permissions: ['read', 'decide'] as const });
  expect(callerMayDecide(caller('ops:leads'), pending())).toBe(false);
  expect(callerMayDecide(caller('ops:leads'), pending({ escalated: { at: at(1), to: ['ops:leads'] } }))).toBe(true);
  expect(callerMayDecide(caller('ops:bob'), pending({ assignee: 'ops:bob' }))).toBe(true);
  expect(callerMayDecide({ identity: 'ops:bob', permissions: ['read'] as const }, pending({ assignee: 'ops:bob' }))).toBe(false);
});
