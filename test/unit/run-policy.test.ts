/** The rules a run policy must follow (core/run-policy.ts): only tighten approvals, every key a tool. */
import { describe, expect, it } from 'vitest';
import type { PolicyTool } from '../../src/core/approvals/run-policy';
import { nearMatches, PolicyError, policyProblems, waiverProblem } from '../../src/core/approvals/run-policy';
import { DurableAgentError } from '../../src/core/run/errors';

const tools: PolicyTool[] = [
  { name: 'clear', approval: { mode: 'always', onTimeout: 'deny' } },
  { name: 'refund', approval: { mode: 'conditional', onTimeout: 'deny' } },
  { name: 'guarded', approval: { mode: 'always', approvers: ['ops:alice'], onTimeout: 'deny' } },
  { name: 'purge' },
  { name: 'lookup', approval: { mode: 'never', onTimeout: 'deny' } },
];
const kinds = (policy: Record<string, string>, waiver?: { by: string }) =>
  policyProblems(policy as never, tools, waiver ? { waiver } : {}).map((p) => [p.kind, p.key, p.tool ?? p.nearMatches]);

describe('policyProblems', () => {
  it('tightening is accepted without a waiver', () => {
    expect(kinds({ clear: 'deny', refund: 'ask', guarded: 'deny', purge: 'ask', lookup: 'deny' })).toEqual([]);
    expect(kinds({ '*': 'ask' })).toEqual([]);
    expect(kinds({ '*': 'deny', purge: 'allow', lookup: 'allow' })).toEqual([]);
  });

  it('allow on a tool that needs approval (named, or through "*") needs a waiver', () => {
    expect(kinds({ clear: 'allow' })).toEqual([['loosens_approval', 'clear', 'clear']]);
    expect(kinds({ refund: 'allow' })).toEqual([['loosens_approval', 'refund', 'refund']]);
    expect(kinds({ guarded: 'allow' })).toEqual([['loosens_approval', 'guarded', 'guarded']]);
    expect(kinds({ '*': 'allow', clear: 'deny', refund: 'ask' })).toEqual([['loosens_approval', '*', 'guarded']]);
    expect(kinds({ clear: 'allow', '*': 'allow' }, { by: 'ops:root' })).toEqual([]);
  });

  it('a key that names no tool is refused with its near matches; case counts', () => {
    expect(kinds({ purg: 'deny' })).toEqual([['unknown_tool', 'purg', ['purge']]]);
    expect(kinds({ PURGE: 'deny' }, { by: 'x' })).toEqual([['unknown_tool', 'PURGE', ['purge']]]);
    expect(kinds({ nothing_like_it: 'deny' })).toEqual([['unknown_tool', 'nothing_like_it', []]]);
    expect(policyProblems({ purg: 'deny' }, tools)[0]?.message).toBe(
      'policy key "purg" names no tool of the agent (did you mean purge?); tools: clear, refund, guarded, purge, lookup',
    );
    expect(policyProblems({ everything__x: 'deny' }, tools, { acceptedPrefixes: ['everything__'] })).toEqual([]);
    expect(policyProblems({ other: 'deny' }, tools, { refuseUnknown: false })).toEqual([]);
  });

  it('nearMatches: case-insensitive equal first, then by edit distance, at most 3', () => {
    expect(nearMatches('Purge', ['purge', 'purges', 'merge'])).toEqual(['purge', 'purges', 'merge']);
    expect(nearMatches('delpoy', ['deploy', 'destroy', 'lookup'])).toEqual(['deploy']);
  });

  it('PolicyError names the first key and its near matches', () => {
    const err = new PolicyError(policyProblems({ purg: 'deny', clear: 'allow' }, tools));
    expect(err).toBeInstanceOf(DurableAgentError);
    expect(err).toMatchObject({ code: 'invalid_input', key: 'purg', nearMatches: ['purge'], name: 'PolicyError' });
    expect(err.message).toMatch(/^Invalid run policy: policy key "purg".*; policy "clear": "allow", a tool that needs approval/);
  });

  it('waiverProblem', () => {
    expect(waiverProblem(undefined)).toBeUndefined();
    expect(waiverProblem({ by: 'ops:alice' })).toBeUndefined();
    expect(waiverProblem({ by: '' })).toMatch(/approvalWaiver.by/);
    expect(waiverProblem('ops:alice')).toMatch(/must be an object/);
    expect(waiverProblem({ by: 'a', role: 'x' })).toMatch(/unknown field\(s\): role/);
  });
});
