// The approval contract of issue 26: the new decision fields and the shape check of conditions.
import { describe, expect, it } from 'vitest';
import { parseDecision, parseRuleRef } from '../../src/core/approvals/approvals';
import { COND_LIMITS, parseCond } from '../../src/core/approvals/conditions';

describe('parseDecision: scopes, match, path, rule, updateId', () => {
  const valid = { callId: 'call_1_0', decision: 'approve', by: 'ops:alice' };
  const error = (payload: unknown): string => {
    const r = parseDecision(payload);
    if (r.ok) throw new Error(`expected ${JSON.stringify(payload)} to be refused`);
    return r.error;
  };

  it('accepts run scope for approve and deny, with a match', () => {
    expect(parseDecision({ ...valid, scope: 'run', match: 'args' })).toEqual({
      ok: true,
      value: { ...valid, scope: 'run', match: 'args' },
    });
    expect(parseDecision({ ...valid, decision: 'deny', scope: 'run' })).toEqual({
      ok: true,
      value: { ...valid, decision: 'deny', scope: 'run' },
    });
  });

  it('keeps path, rule and updateId', () => {
    const d = { ...valid, path: 'http', rule: { id: 'r-12', version: 7, scope: 'agent' }, updateId: 'u-1' };
    expect(parseDecision(d)).toEqual({ ok: true, value: d });
  });

  it('session and agent scopes need the standing rule they apply (same scope), for approve or deny', () => {
    expect(error({ ...valid, scope: 'session' })).toBe(
      'malformed decision: scope "session" needs the session rule it applies (rule: { id, version, scope: "session" }): write the rule first',
    );
    expect(error({ ...valid, scope: 'agent', rule: { id: 'r-1', version: 2, scope: 'session' } })).toMatch(/needs the agent rule/);
    expect(error({ ...valid, decision: 'skip', scope: 'agent', rule: { id: 'r-1', version: 2, scope: 'agent' } })).toMatch(
      /only for approve or deny/,
    );
    const d = { ...valid, scope: 'session', rule: { id: 'r-1', version: 2, scope: 'session' } };
    expect(parseDecision(d)).toEqual({ ok: true, value: d });
  });

  it.each([
    [{ scope: 'everything' }, 'scope must be "call", "run" or "tool"'],
    [{ scope: 'run', decision: 'skip' }, 'scope "run" is only for approve or deny'],
    [{ scope: 'tool', decision: 'deny' }, 'scope "tool" is only for approve'],
    [{ match: 'args' }, 'match needs scope "run"'],
    [{ scope: 'run', match: 'name' }, 'match must be "tool" or "args"'],
    [{ path: 'email' }, 'path must be one of sdk, cli, http, console, chat, temporal, rule, timeout, policy, parent'],
    [{ updateId: '' }, 'updateId must be a non-empty string of at most 200 characters'],
    [{ rule: 'r-1' }, 'rule must be an object { id, version?, scope }'],
    [{ rule: { id: 'r', scope: 'galaxy' } }, 'rule.scope must be one of run, session, agent, namespace'],
    [{ rule: { id: 'r', scope: 'run', v: 1 } }, 'rule: unknown field(s): v'],
    [{ rule: { id: 'r', scope: 'run', version: -1 } }, 'rule.version must be a non-negative integer'],
  ])('refuses %j', (extra, message) => {
    expect(error({ ...valid, ...extra })).toBe(`malformed decision: ${message}`);
  });

  it('still refuses unknown fields', () => {
    expect(error({ ...valid, for: '1d' })).toBe('malformed decision: unknown field(s): for');
  });

  it('parseRuleRef drops nothing it knows', () => {
    expect(parseRuleRef({ id: 'x', scope: 'run' })).toEqual({ id: 'x', scope: 'run' });
  });
});

describe('parseCond', () => {
  const bad = (c: unknown): string => {
    const r = parseCond(c);
    if (r.ok) throw new Error(`expected ${JSON.stringify(c)} to be refused`);
    return r.error;
  };

  it.each([
    { path: 'amount', op: 'lte', value: 50 },
    { path: 'env', op: 'eq', value: 'staging' },
    { path: 'command', op: 'glob', value: 'rm -rf *', i: true },
    { path: 'items', op: 'some', cond: { path: 'sku', op: 'in', value: ['a', 'b'] } },
    { all: [{ path: 'a', op: 'exists' }, { not: { any: [] } }] },
    { path: 'tags', op: 'contains', value: { k: [1, null, true] } },
  ])('accepts %j', (c) => {
    expect(parseCond(c)).toEqual({ ok: true, value: c });
  });

  it.each([
    [null, 'when: a condition must be an object'],
    [[], 'when: a condition must be an object'],
    [
      { path: 'a', op: 'like', value: 1 },
      'when.op must be one of eq, ne, lt, lte, gt, gte, in, nin, glob, contains, startsWith, endsWith, exists, some, every',
    ],
    [{ path: '', op: 'eq', value: 1 }, 'when.path must be a non-empty string'],
    [{ path: 'a..b', op: 'eq', value: 1 }, 'when.path has an empty segment'],
    [{ path: 'a', op: 'eq' }, 'when.value is required for eq'],
    [{ path: 'a', op: 'in', value: 1 }, 'when.value must be an array for in'],
    [{ path: 'a', op: 'glob', value: 1 }, 'when.value must be a string for glob'],
    [{ path: 'a', op: 'lt', value: true }, 'when.value must be a number or a string for lt'],
    [{ path: 'a', op: 'eq', value: 1, x: 1 }, 'when: unknown field(s) x'],
    [{ all: {} }, 'when.all must be an array'],
    [{ path: 'a', op: 'eq', value: 'x'.repeat(COND_LIMITS.maxLiteral + 1) }, 'when.value: string longer than 1024 characters'],
  ])('refuses %j', (c, message) => {
    expect(bad(c)).toBe(`malformed condition: ${message}`);
  });

  it('caps nodes and depth', () => {
    const many = { all: Array.from({ length: COND_LIMITS.maxNodes }, () => ({ path: 'a', op: 'exists' })) };
    expect(bad(many)).toBe(`malformed condition: more than ${COND_LIMITS.maxNodes} conditions`);
    let deep: unknown = { path: 'a', op: 'exists' };
    for (let n = 0; n < COND_LIMITS.maxDepth + 1; n++) deep = { not: deep };
    expect(bad(deep)).toMatch(/nested deeper than 8/);
  });
});
