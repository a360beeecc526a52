// Run-scope rules: what decisions become, how calls match them, and their place in the gate's precedence.
import { describe, expect, it } from 'vitest';
import { gateFor } from '../../src/core/approvals/approvals';
import type { ApprovalRule, ApprovalSpec } from '../../src/core/approvals/approval-requests';
import { matchRules, runRuleOf, sameArgsCond } from '../../src/core/approvals/run-rules';

const always: ApprovalSpec = { mode: 'always', onTimeout: 'deny' };
const named: ApprovalSpec = { mode: 'always', onTimeout: 'deny', approvers: ['ops:alice'] };
const deny = (tool: string, extra: Partial<ApprovalRule> = {}): ApprovalRule => ({
  id: 'run-1',
  scope: 'run',
  tool,
  action: 'deny',
  createdBy: 'ops:alice',
  ...extra,
});
const allow = (tool: string, extra: Partial<ApprovalRule> = {}): ApprovalRule => ({
  id: 'run-2',
  scope: 'run',
  tool,
  action: 'allow',
  createdBy: 'ops:bob',
  ...extra,
});
const now = Date.parse('2026-01-01T00:00:00Z');
const rules = (list: ApprovalRule[], args?: Record<string, unknown>) => ({ rules: list, args: args as never, nowMs: now });

describe('runRuleOf', () => {
  it('approve makes an allow rule for the tool, deny a deny rule; match args adds the same-arguments condition', () => {
    expect(runRuleOf({ callId: 'c', decision: 'approve', by: 'ops:a', scope: 'run' }, 'deploy', { service: 'a' }, 0)).toEqual({
      id: 'run-1',
      scope: 'run',
      tool: 'deploy',
      action: 'allow',
      createdBy: 'ops:a',
    });
    expect(
      runRuleOf(
        { callId: 'c', decision: 'deny', by: 'ops:a', scope: 'run', match: 'args', reason: 'no', path: 'cli' },
        'deploy',
        { service: 'a', n: [1] },
        2,
      ),
    ).toEqual({
      id: 'run-3',
      scope: 'run',
      tool: 'deploy',
      when: {
        all: [
          { path: 'service', op: 'eq', value: 'a' },
          { path: 'n', op: 'eq', value: [1] },
        ],
      },
      action: 'deny',
      createdBy: 'ops:a',
      path: 'cli',
      reason: 'no',
    });
  });
  it('same arguments: deep-equal top-level values, other keys ignored', () => {
    const r = allow('deploy', { when: sameArgsCond({ service: 'a' }) });
    expect(matchRules([r], 'deploy', { service: 'a', extra: 1 }, undefined, now)?.action).toBe('allow');
    expect(matchRules([r], 'deploy', { service: 'b' }, undefined, now)).toBeUndefined();
  });
});

describe('matchRules', () => {
  it('deny wins over allow, whatever the order', () => {
    expect(matchRules([allow('deploy'), deny('deploy')], 'deploy', {}, undefined, now)?.action).toBe('deny');
  });
  it('a deny rule that cannot tell asks; with unknown arguments (early starts) a conditional deny asks', () => {
    const d = deny('deploy', { when: { path: 'n', op: 'lt', value: 5 } });
    expect(matchRules([d], 'deploy', { n: 'x' }, undefined, now)?.action).toBe('ask');
    expect(matchRules([d, allow('deploy')], 'deploy', undefined, undefined, now)?.action).toBe('ask');
  });
  it('an allow rule counts only when its maker is one of the named approvers', () => {
    expect(matchRules([allow('deploy')], 'deploy', {}, ['ops:alice'], now)).toBeUndefined();
    expect(matchRules([allow('deploy', { createdBy: 'ops:alice' })], 'deploy', {}, ['ops:alice'], now)?.action).toBe('allow');
  });
  it('skips rules of other tools and expired rules; `*` covers every tool', () => {
    expect(matchRules([deny('wire')], 'deploy', {}, undefined, now)).toBeUndefined();
    expect(matchRules([deny('deploy', { until: '2025-12-31T23:59:59Z' })], 'deploy', {}, undefined, now)).toBeUndefined();
    expect(matchRules([deny('*')], 'deploy', {}, undefined, now)?.action).toBe('deny');
  });
});

describe('gateFor with run rules: precedence', () => {
  it('run policy deny first, then a deny rule (even over policy allow)', () => {
    expect(gateFor('deploy', always, { deploy: 'deny' }, new Set(), undefined, rules([allow('deploy')], {}))).toEqual({
      kind: 'deny',
      why: 'run_policy',
    });
    expect(gateFor('deploy', always, { deploy: 'allow' }, new Set(), undefined, rules([deny('deploy')], {}))).toMatchObject({
      kind: 'deny',
      why: 'rule',
    });
  });
  it('policy allow and "all calls" before an allow rule; an allow rule before policy ask and the tool mode', () => {
    expect(gateFor('deploy', always, { deploy: 'allow' }, new Set(), undefined, rules([allow('deploy')], {}))).toEqual({
      kind: 'run',
      why: 'run_policy',
    });
    expect(gateFor('deploy', always, undefined, new Set(['deploy']), undefined, rules([allow('deploy')], {}))).toEqual({
      kind: 'run',
      why: 'approved_for_run',
    });
    expect(gateFor('deploy', always, { deploy: 'ask' }, new Set(), undefined, rules([allow('deploy')], {}))).toMatchObject({
      kind: 'run',
      why: 'rule',
    });
    expect(
      gateFor('deploy', { mode: 'conditional', onTimeout: 'deny' }, undefined, new Set(), undefined, rules([allow('deploy')], {})),
    ).toMatchObject({ kind: 'run', why: 'rule' });
  });
  it('named approvers: an allow rule by someone else does not waive them', () => {
    expect(gateFor('deploy', named, undefined, new Set(), undefined, rules([allow('deploy')], {}))).toEqual({ kind: 'ask' });
  });
  it('no rules: exactly the gates recorded runs had', () => {
    for (const policy of [undefined, { deploy: 'ask' as const }, { deploy: 'allow' as const }, { deploy: 'deny' as const }])
      for (const approval of [undefined, always, named])
        expect(gateFor('deploy', approval, policy, new Set(), undefined, rules([], {}))).toEqual(
          gateFor('deploy', approval, policy, new Set()),
        );
  });
});
