/** The pure approval rules (core/approvals.ts): gates, decision parsing, refusals and what to do with a signal. */
import { describe, expect, it } from 'vitest';
import type {
  ApprovalDecision,
  ApprovalSpec,
  CallApprovalState,
  Gate,
  PendingApproval,
  RunPolicy,
} from '../../src/core/approvals/approvals';
import { MAX_QUEUED_DECISIONS, gateFor, parseDecision, policyRule, refusal, signalDisposition } from '../../src/core/approvals/approvals';

const always: ApprovalSpec = { mode: 'always', onTimeout: 'deny' };
const never: ApprovalSpec = { mode: 'never', onTimeout: 'deny' };
const conditional: ApprovalSpec = { mode: 'conditional', onTimeout: 'deny' };
const none: ReadonlySet<string> = new Set();
const approved = (...tools: string[]): ReadonlySet<string> => new Set(tools);

const RUN_POLICY: Gate = { kind: 'run', why: 'run_policy' };
const DENY_POLICY: Gate = { kind: 'deny', why: 'run_policy' };
const ASK: Gate = { kind: 'ask' };
const CHECK: Gate = { kind: 'check' };
const NO_APPROVAL: Gate = { kind: 'run', why: 'no_approval_needed' };
const APPROVED_FOR_RUN: Gate = { kind: 'run', why: 'approved_for_run' };
const CHECK_SAID_NO: Gate = { kind: 'run', why: 'check_said_no' };

describe('policyRule', () => {
  it('is undefined without a policy or without a matching rule', () => {
    expect(policyRule(undefined, 'deploy')).toBeUndefined();
    expect(policyRule({}, 'deploy')).toBeUndefined();
    expect(policyRule({ other: 'deny' }, 'deploy')).toBeUndefined();
  });

  it('takes the exact tool name over `*`, and `*` for tools not named', () => {
    const policy: RunPolicy = { deploy: 'ask', '*': 'deny' };
    expect(policyRule(policy, 'deploy')).toBe('ask');
    expect(policyRule(policy, 'lookup')).toBe('deny');
  });

  it('ignores names inherited from Object.prototype', () => {
    expect(policyRule({ '*': 'allow' }, 'toString')).toBe('allow');
    expect(policyRule({}, 'constructor')).toBeUndefined();
    expect(policyRule({}, 'hasOwnProperty')).toBeUndefined();
  });
});

describe('gateFor', () => {
  describe('the tool’s own mode (no run policy)', () => {
    it('absent approval settings mean the call runs without asking', () => {
      expect(gateFor('lookup', undefined, undefined, none)).toEqual(NO_APPROVAL);
    });

    it('never runs, always asks', () => {
      expect(gateFor('t', never, undefined, none)).toEqual(NO_APPROVAL);
      expect(gateFor('t', always, undefined, none)).toEqual(ASK);
    });

    it('a check result does not change never/always', () => {
      expect(gateFor('t', never, undefined, none, true)).toEqual(NO_APPROVAL);
      expect(gateFor('t', always, undefined, none, false)).toEqual(ASK);
    });

    it('conditional: check first, then ask or run on the recorded answer', () => {
      expect(gateFor('refund', conditional, undefined, none)).toEqual(CHECK);
      expect(gateFor('refund', conditional, undefined, none, true)).toEqual(ASK);
      expect(gateFor('refund', conditional, undefined, none, false)).toEqual(CHECK_SAID_NO);
    });

    it('an empty policy changes nothing', () => {
      expect(gateFor('t', always, {}, none)).toEqual(ASK);
      expect(gateFor('t', conditional, {}, none)).toEqual(CHECK);
      expect(gateFor('t', undefined, {}, none)).toEqual(NO_APPROVAL);
    });
  });

  describe('the run policy beats the tool’s mode', () => {
    it.each([
      ['absent', undefined],
      ['never', never],
      ['always', always],
      ['conditional', conditional],
    ] as const)('deny / allow / ask for a tool whose approval is %s', (_label, spec) => {
      expect(gateFor('t', spec, { t: 'deny' }, none)).toEqual(DENY_POLICY);
      expect(gateFor('t', spec, { t: 'allow' }, none)).toEqual(RUN_POLICY);
      expect(gateFor('t', spec, { t: 'ask' }, none)).toEqual(ASK);
    });

    it('a conditional tool under a policy rule is never checked, whatever the check would say', () => {
      expect(gateFor('t', conditional, { t: 'allow' }, none, true)).toEqual(RUN_POLICY);
      expect(gateFor('t', conditional, { t: 'ask' }, none, false)).toEqual(ASK);
      expect(gateFor('t', conditional, { t: 'deny' }, none, false)).toEqual(DENY_POLICY);
    });

    it('`*` applies to every tool not named', () => {
      expect(gateFor('a', always, { '*': 'allow' }, none)).toEqual(RUN_POLICY);
      expect(gateFor('a', undefined, { '*': 'deny' }, none)).toEqual(DENY_POLICY);
      expect(gateFor('a', undefined, { '*': 'ask' }, none)).toEqual(ASK);
    });

    it('an exact tool name beats `*`, in both directions', () => {
      expect(gateFor('deploy', always, { deploy: 'deny', '*': 'allow' }, none)).toEqual(DENY_POLICY);
      expect(gateFor('lookup', undefined, { deploy: 'deny', '*': 'allow' }, none)).toEqual(RUN_POLICY);
      expect(gateFor('deploy', always, { deploy: 'allow', '*': 'deny' }, none)).toEqual(RUN_POLICY);
      expect(gateFor('lookup', undefined, { deploy: 'allow', '*': 'deny' }, none)).toEqual(DENY_POLICY);
      expect(gateFor('deploy', undefined, { deploy: 'ask', '*': 'allow' }, none)).toEqual(ASK);
    });

    it('a rule for another tool does not apply', () => {
      expect(gateFor('deploy', always, { lookup: 'allow' }, none)).toEqual(ASK);
      expect(gateFor('deploy', undefined, { lookup: 'deny' }, none)).toEqual(NO_APPROVAL);
    });
  });

  describe('tools approved for the rest of the run', () => {
    it('run without asking or checking', () => {
      expect(gateFor('deploy', always, undefined, approved('deploy'))).toEqual(APPROVED_FOR_RUN);
      expect(gateFor('refund', conditional, undefined, approved('refund'))).toEqual(APPROVED_FOR_RUN);
      expect(gateFor('refund', conditional, undefined, approved('refund'), true)).toEqual(APPROVED_FOR_RUN);
    });

    it('only the approved tool', () => {
      expect(gateFor('deploy', always, undefined, approved('wire'))).toEqual(ASK);
    });

    it('a tool that needs no approval still reports why it runs as approved_for_run', () => {
      expect(gateFor('lookup', undefined, undefined, approved('lookup'))).toEqual(APPROVED_FOR_RUN);
    });

    it('still yield to a run policy deny (named or `*`) and to allow', () => {
      expect(gateFor('deploy', always, { deploy: 'deny' }, approved('deploy'))).toEqual(DENY_POLICY);
      expect(gateFor('deploy', always, { '*': 'deny' }, approved('deploy'))).toEqual(DENY_POLICY);
      expect(gateFor('deploy', always, { deploy: 'allow' }, approved('deploy'))).toEqual(RUN_POLICY);
    });

    it('beat a run policy ask (a person already approved every call of the tool)', () => {
      expect(gateFor('deploy', always, { deploy: 'ask' }, approved('deploy'))).toEqual(APPROVED_FOR_RUN);
      expect(gateFor('deploy', undefined, { '*': 'ask' }, approved('deploy'))).toEqual(APPROVED_FOR_RUN);
      expect(gateFor('lookup', undefined, { '*': 'ask' }, approved('deploy'))).toEqual(ASK);
    });
  });
});

describe('parseDecision', () => {
  const valid = { callId: 'call_1_0', decision: 'approve', by: 'ops:alice' };
  const error = (payload: unknown): string => {
    const r = parseDecision(payload);
    if (r.ok) throw new Error(`expected ${JSON.stringify(payload)} to be refused`);
    return r.error;
  };

  it('accepts a minimal decision as is', () => {
    expect(parseDecision(valid)).toEqual({ ok: true, value: valid });
  });

  it.each(['approve', 'deny', 'skip'] as const)('accepts decision %s', (decision) => {
    expect(parseDecision({ ...valid, decision })).toEqual({ ok: true, value: { ...valid, decision } });
  });

  it('keeps reason and scope, trims `by`', () => {
    expect(parseDecision({ callId: 'c', decision: 'approve', by: '  ops:alice \n', reason: 'looks fine', scope: 'tool' })).toEqual({
      ok: true,
      value: { callId: 'c', decision: 'approve', by: 'ops:alice', reason: 'looks fine', scope: 'tool' },
    });
    expect(parseDecision({ ...valid, decision: 'deny', scope: 'call' })).toEqual({
      ok: true,
      value: { ...valid, decision: 'deny', scope: 'call' },
    });
  });

  it('drops an empty reason', () => {
    const r = parseDecision({ ...valid, reason: '' });
    expect(r).toEqual({ ok: true, value: valid });
    expect(r.ok && 'reason' in r.value).toBe(false);
  });

  it('leaves scope out when absent', () => {
    const r = parseDecision(valid);
    expect(r.ok && 'scope' in r.value).toBe(false);
  });

  it.each([
    ['undefined', undefined],
    ['null', null],
    ['a string', 'approve'],
    ['a number', 42],
    ['true', true],
    ['an array', [valid]],
  ])('refuses %s: a decision must be an object', (_label, payload) => {
    expect(error(payload)).toBe('decision must be an object { callId, decision, by, reason?, scope? }');
  });

  it('names every missing field of an empty object', () => {
    expect(error({})).toBe(
      'malformed decision: callId must be a non-empty string; decision must be one of approve, deny, skip; by must name who decided (e.g. "ops:alice")',
    );
  });

  it.each([
    ['missing', { decision: 'approve', by: 'x' }],
    ['empty', { callId: '', decision: 'approve', by: 'x' }],
    ['a number', { callId: 7, decision: 'approve', by: 'x' }],
  ])('refuses a callId that is %s', (_label, payload) => {
    expect(error(payload)).toBe('malformed decision: callId must be a non-empty string');
  });

  it.each([
    ['missing', undefined],
    ['unknown', 'maybe'],
    ['differently cased', 'Approve'],
    ['not a string', true],
  ])('refuses a decision that is %s', (_label, decision) => {
    expect(error({ callId: 'c', by: 'x', ...(decision !== undefined ? { decision } : {}) })).toBe(
      'malformed decision: decision must be one of approve, deny, skip',
    );
  });

  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['only whitespace', ' \t\n'],
    ['not a string', 3],
  ])('refuses a `by` that is %s', (_label, by) => {
    expect(error({ callId: 'c', decision: 'deny', ...(by !== undefined ? { by } : {}) })).toBe(
      'malformed decision: by must name who decided (e.g. "ops:alice")',
    );
  });

  it.each([
    ['a number', 5],
    ['null', null],
    ['an object', { text: 'no' }],
  ])('refuses a reason that is %s', (_label, reason) => {
    expect(error({ ...valid, reason })).toBe('malformed decision: reason must be a string');
  });

  it.each([
    ['unknown', 'forever'],
    ['null', null],
    ['empty', ''],
  ])('refuses a scope that is %s', (_label, scope) => {
    expect(error({ ...valid, scope })).toBe('malformed decision: scope must be "call", "run" or "tool"');
  });

  it.each(['deny', 'skip'])('refuses scope "tool" on %s', (decision) => {
    expect(error({ ...valid, decision, scope: 'tool' })).toBe('malformed decision: scope "tool" is only for approve');
  });

  it('refuses unknown fields, naming them all', () => {
    expect(error({ ...valid, approver: 'ops:alice' })).toBe('malformed decision: unknown field(s): approver');
    expect(error({ ...valid, tool: 'deploy', step: 1 })).toBe('malformed decision: unknown field(s): tool, step');
  });

  it('lists every problem at once', () => {
    expect(error({ callId: '', decision: 'skip', by: ' ', reason: 1, scope: 'tool', extra: true })).toBe(
      'malformed decision: callId must be a non-empty string; by must name who decided (e.g. "ops:alice"); reason must be a string; scope "tool" is only for approve; unknown field(s): extra',
    );
  });
});

describe('refusal', () => {
  const NOW = Date.parse('2025-01-01T12:00:00.000Z');
  const d = (over: Partial<ApprovalDecision> = {}): ApprovalDecision => ({
    callId: 'call_1_0',
    decision: 'approve',
    by: 'ops:alice',
    ...over,
  });
  const pending = (over: Partial<PendingApproval> = {}): CallApprovalState => ({
    kind: 'pending',
    pending: { callId: 'call_1_0', step: 1, tool: 'refund', args: { amount: 500 }, requestedAt: '2025-01-01T11:59:00.000Z', ...over },
  });

  it('refuses a call the run has not reached (yet)', () => {
    expect(refusal(d({ callId: 'call_9_9' }), { kind: 'not_reached' }, NOW)).toBe(
      'no approval is pending for call "call_9_9": the run has no such call (yet)',
    );
  });

  it('refuses a call that did not ask for approval', () => {
    expect(refusal(d({ callId: 'call_1_1' }), { kind: 'not_asked' }, NOW)).toBe(
      'no approval is pending for call "call_1_1": it did not ask for approval',
    );
  });

  it.each(['deny', 'skip'] as const)('refuses a %s of a call that is not pending, like an approve', (decision) => {
    expect(refusal(d({ decision }), { kind: 'not_asked' }, NOW)).toMatch(/^no approval is pending for call "call_1_0"/);
    expect(refusal(d({ decision }), { kind: 'not_reached' }, NOW)).toMatch(/^no approval is pending for call "call_1_0"/);
  });

  it('refuses a call already decided, saying how and by whom', () => {
    expect(refusal(d({ decision: 'deny', by: 'ops:bob' }), { kind: 'decided', decision: 'skip', by: 'ops:carol' }, NOW)).toBe(
      'call "call_1_0" was already decided (skip by ops:carol)',
    );
  });

  it('refuses an expired approval', () => {
    expect(refusal(d(), { kind: 'expired' }, NOW)).toBe('the approval of call "call_1_0" has expired');
  });

  it('refuses a pending approval whose expiry has passed (or is now), not one a moment before it', () => {
    const expired = 'the approval of call "call_1_0" has expired';
    expect(refusal(d(), pending({ expiresAt: new Date(NOW - 1).toISOString() }), NOW)).toBe(expired);
    expect(refusal(d(), pending({ expiresAt: new Date(NOW).toISOString() }), NOW)).toBe(expired);
    expect(refusal(d(), pending({ expiresAt: new Date(NOW + 1).toISOString() }), NOW)).toBeUndefined();
    expect(refusal(d(), pending(), NOW)).toBeUndefined();
  });

  it('refuses an approver who is not allowed, naming who is', () => {
    expect(refusal(d({ by: 'ops:mallory' }), pending({ approvers: ['ops:alice', 'ops:bob'] }), NOW)).toBe(
      'ops:mallory may not decide calls of "refund" (allowed: ops:alice, ops:bob)',
    );
    // Identities match exactly.
    expect(refusal(d({ by: 'OPS:ALICE' }), pending({ approvers: ['ops:alice'] }), NOW)).toMatch(/may not decide/);
  });

  it('applies the approver rule to every decision, not only approve', () => {
    for (const decision of ['deny', 'skip'] as const) {
      expect(refusal(d({ decision, by: 'ops:mallory' }), pending({ approvers: ['ops:alice'] }), NOW)).toMatch(
        /^ops:mallory may not decide/,
      );
    }
  });

  it('an expired approval is refused as expired even for someone not allowed', () => {
    expect(
      refusal(d({ by: 'ops:mallory' }), pending({ approvers: ['ops:alice'], expiresAt: new Date(NOW - 1000).toISOString() }), NOW),
    ).toBe('the approval of call "call_1_0" has expired');
  });

  it('accepts an allowed approver, and anyone when the list is empty or absent', () => {
    expect(refusal(d({ by: 'ops:bob' }), pending({ approvers: ['ops:alice', 'ops:bob'] }), NOW)).toBeUndefined();
    expect(refusal(d({ by: 'anyone' }), pending({ approvers: [] }), NOW)).toBeUndefined();
    expect(refusal(d({ by: 'anyone', decision: 'skip' }), pending(), NOW)).toBeUndefined();
  });
});

describe('decision reasons', () => {
  it('keeps the reason’s own punctuation and trims it', () => {
    expect(parseDecision({ callId: 'c', decision: 'deny', by: 'x', reason: '  risky!  ' })).toEqual({
      ok: true,
      value: { callId: 'c', decision: 'deny', by: 'x', reason: 'risky!' },
    });
  });

  it('drops a reason that is only whitespace', () => {
    const parsed = parseDecision({ callId: 'c', decision: 'deny', by: 'x', reason: '   ' });
    expect(parsed).toEqual({ ok: true, value: { callId: 'c', decision: 'deny', by: 'x' } });
  });

  it('refuses an overlong reason, and accepts one of exactly 2000 characters', () => {
    expect(parseDecision({ callId: 'c', decision: 'deny', by: 'x', reason: 'r'.repeat(2001) })).toEqual({
      ok: false,
      error: 'malformed decision: reason must be at most 2000 characters',
    });
    expect(parseDecision({ callId: 'c', decision: 'deny', by: 'x', reason: 'r'.repeat(2000) })).toMatchObject({ ok: true });
  });
});

describe('run policy allow and named approvers', () => {
  it('allow cannot waive a tool that names its approvers', () => {
    const guarded = { mode: 'always' as const, approvers: ['ops:alice'], onTimeout: 'deny' as const };
    expect(gateFor('refund', guarded, { refund: 'allow' }, new Set())).toEqual({ kind: 'ask' });
    expect(gateFor('refund', guarded, { '*': 'allow' }, new Set())).toEqual({ kind: 'ask' });
    expect(gateFor('refund', { mode: 'always', onTimeout: 'deny' }, { refund: 'allow' }, new Set())).toEqual({
      kind: 'run',
      why: 'run_policy',
    });
  });
});

describe('signalDisposition', () => {
  const NOW = Date.parse('2025-01-01T12:00:00.000Z');
  const d = (over: Partial<ApprovalDecision> = {}): ApprovalDecision => ({
    callId: 'call_2_0',
    decision: 'approve',
    by: 'ops:alice',
    ...over,
  });
  const pending = (over: Partial<PendingApproval> = {}): CallApprovalState => ({
    kind: 'pending',
    pending: { callId: 'call_2_0', step: 2, tool: 'deploy', args: {}, requestedAt: '2025-01-01T11:59:00.000Z', ...over },
  });

  it('applies a decision on a pending call anyone, or this approver, may decide', () => {
    expect(signalDisposition(d(), pending(), NOW, 0)).toEqual({ kind: 'apply' });
    expect(signalDisposition(d({ decision: 'skip' }), pending({ approvers: ['ops:alice'] }), NOW, 0)).toEqual({ kind: 'apply' });
  });

  it('applies a decision on a pending call however many decisions are queued', () => {
    expect(signalDisposition(d(), pending(), NOW, MAX_QUEUED_DECISIONS)).toEqual({ kind: 'apply' });
  });

  it.each(['approve', 'deny', 'skip'] as const)('queues a %s for a call the run has not reached', (decision) => {
    expect(signalDisposition(d({ decision }), { kind: 'not_reached' }, NOW, 0)).toEqual({ kind: 'queue' });
    expect(signalDisposition(d({ decision }), { kind: 'not_reached' }, NOW, MAX_QUEUED_DECISIONS - 1)).toEqual({ kind: 'queue' });
  });

  it('queues a decision for a call being gated (its approval predicate has not answered), within the same cap', () => {
    expect(signalDisposition(d(), { kind: 'gating' }, NOW, 0)).toEqual({ kind: 'queue' });
    expect(signalDisposition(d(), { kind: 'gating' }, NOW, MAX_QUEUED_DECISIONS)).toMatchObject({ kind: 'refuse' });
    // An update for it is not refused: it waits for the gate.
    expect(refusal(d(), { kind: 'gating' }, NOW)).toBeUndefined();
  });

  it('refuses to queue once MAX_QUEUED_DECISIONS decisions wait', () => {
    expect(MAX_QUEUED_DECISIONS).toBe(100);
    const refused = { kind: 'refuse', reason: 'too many decisions wait for calls this run has not reached (100)' };
    expect(signalDisposition(d(), { kind: 'not_reached' }, NOW, MAX_QUEUED_DECISIONS)).toEqual(refused);
    expect(signalDisposition(d(), { kind: 'not_reached' }, NOW, MAX_QUEUED_DECISIONS + 5)).toEqual(refused);
  });

  it('refuses a call that did not ask for approval, with the refusal text', () => {
    expect(signalDisposition(d(), { kind: 'not_asked' }, NOW, 0)).toEqual({
      kind: 'refuse',
      reason: 'no approval is pending for call "call_2_0": it did not ask for approval',
    });
  });

  it('refuses a call already decided', () => {
    expect(signalDisposition(d(), { kind: 'decided', decision: 'approve', by: 'ops:bob' }, NOW, 0)).toEqual({
      kind: 'refuse',
      reason: 'call "call_2_0" was already decided (approve by ops:bob)',
    });
  });

  it('refuses an expired approval, recorded or past its expiry', () => {
    const refused = { kind: 'refuse', reason: 'the approval of call "call_2_0" has expired' };
    expect(signalDisposition(d(), { kind: 'expired' }, NOW, 0)).toEqual(refused);
    expect(signalDisposition(d(), pending({ expiresAt: new Date(NOW).toISOString() }), NOW, 0)).toEqual(refused);
  });

  it('refuses an approver who is not allowed', () => {
    expect(signalDisposition(d({ by: 'ops:mallory' }), pending({ approvers: ['ops:alice'] }), NOW, 0)).toEqual({
      kind: 'refuse',
      reason: 'ops:mallory may not decide calls of "deploy" (allowed: ops:alice)',
    });
  });

  it('agrees with refusal on every state but not_reached', () => {
    const states: CallApprovalState[] = [
      pending(),
      pending({ approvers: ['x'] }),
      { kind: 'expired' },
      { kind: 'not_asked' },
      { kind: 'decided', decision: 'deny', by: 'y' },
    ];
    for (const state of states) {
      const why = refusal(d(), state, NOW);
      expect(signalDisposition(d(), state, NOW, 0)).toEqual(why ? { kind: 'refuse', reason: why } : { kind: 'apply' });
    }
  });
});

describe('parseDecision extendBy (budget requests)', () => {
  it('takes a positive amount on approve, and refuses it otherwise', () => {
    expect(parseDecision({ callId: 'budget_3_1', decision: 'approve', by: 'ops:a', extendBy: 5000 })).toEqual({
      ok: true,
      value: { callId: 'budget_3_1', decision: 'approve', by: 'ops:a', extendBy: 5000 },
    });
    expect(parseDecision({ callId: 'budget_3_1', decision: 'approve', by: 'ops:a', extendBy: 0 })).toEqual({
      ok: false,
      error: 'malformed decision: extendBy must be a positive number',
    });
    expect(parseDecision({ callId: 'budget_3_1', decision: 'deny', by: 'ops:a', extendBy: 10 })).toEqual({
      ok: false,
      error: 'malformed decision: extendBy is only for approve',
    });
  });
});
