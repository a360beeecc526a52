/** Token permissions (http/auth.ts, http/permissions.ts) and the start options a token gets (http/start-options.ts). */
import { describe, expect, it } from 'vitest';
import type { Caller } from '../../apps/http/auth';
import { parseTokens } from '../../apps/http/auth';
import { holds, mayActOnRun } from '../../apps/http/permissions';
import { startOptions } from '../../apps/http/start-options';

const T = (n: number) => `token-number-${n}-long-enough`;
const callerOf = (entry: unknown): Caller => parseTokens(JSON.stringify({ tokens: { [T(1)]: entry } }), 'test').caller(`Bearer ${T(1)}`)!;

describe('token permissions', () => {
  it('defaults to read, start, message and cancel; "approve": true adds decide', () => {
    expect(callerOf({ identity: 'a' }).permissions).toEqual(['read', 'start', 'message', 'cancel']);
    expect(callerOf({ identity: 'a', approve: true }).permissions).toEqual(['read', 'start', 'message', 'cancel', 'decide']);
    expect(callerOf({ identity: 'a', approve: false }).permissions).toEqual(['read', 'start', 'message', 'cancel']);
  });

  it('takes the listed permissions as they are, "approve": true still adding decide', () => {
    expect(callerOf({ identity: 'd', permissions: ['read'] }).permissions).toEqual(['read']);
    expect(callerOf({ identity: 'm', permissions: [] }).permissions).toEqual([]);
    expect(callerOf({ identity: 'x', permissions: ['metrics', 'read'], approve: true }).permissions).toEqual(['read', 'decide', 'metrics']);
  });

  it('refuses an unknown permission, a non-list and a contradiction, naming the entry but never the token', () => {
    const bad = (entry: unknown) => () =>
      parseTokens(JSON.stringify({ tokens: { [T(1)]: { identity: 'ok' }, [T(2)]: entry } }), 'tokens.json');
    expect(bad({ identity: 'a', permissions: ['read', 'approve'] })).toThrow(
      /tokens\.json: token #2 \(permissions\.1\): unknown permission "approve" \(known: read, start, message, cancel, decide, waive, rules, metrics, admin\)/,
    );
    expect(bad({ identity: 'a', permissions: 'admin' })).toThrow(/token #2 \(permissions\)/);
    expect(bad({ identity: 'a', permissions: ['decide'], approve: false })).toThrow(
      /token #2 \(approve\): "approve": false contradicts "decide"/,
    );
    try {
      bad({ identity: 'a', permissions: ['nope'] })();
    } catch (err) {
      expect((err as Error).message).not.toContain(T(2));
    }
  });

  it('admin implies every permission and acts on every run; others act only on the runs they started', () => {
    const admin = callerOf({ identity: 'root', permissions: ['admin'] });
    for (const p of ['read', 'start', 'message', 'cancel', 'decide', 'waive', 'rules', 'metrics'] as const)
      expect(holds(admin, p)).toBe(true);
    expect(mayActOnRun(admin, undefined)).toBe(true);
    expect(mayActOnRun(admin, 'someone')).toBe(true);
    const alice = callerOf({ identity: 'ops:alice' });
    expect([holds(alice, 'metrics'), holds(alice, 'waive'), holds(alice, 'decide'), holds(alice, 'admin')]).toEqual([
      false,
      false,
      false,
      false,
    ]);
    expect(mayActOnRun(alice, 'ops:alice')).toBe(true);
    expect(mayActOnRun(alice, 'ops:bob')).toBe(false);
    expect(mayActOnRun(alice, undefined)).toBe(false);
  });
});

describe('startOptions', () => {
  const body = { agent: 'a', input: 'hi', policy: { refund: 'allow' as const } };
  it('records the caller as starter, and as approval waiver only when its token holds waive (or admin)', () => {
    expect(startOptions(body, callerOf({ identity: 'ops:alice' }))).toEqual({
      input: 'hi',
      policy: { refund: 'allow' },
      startedBy: 'ops:alice',
    });
    expect(startOptions(body, callerOf({ identity: 'ops:lead', permissions: ['start', 'waive'] }))).toEqual({
      input: 'hi',
      policy: { refund: 'allow' },
      startedBy: 'ops:lead',
      approvalWaiver: { by: 'ops:lead' },
    });
    expect(startOptions(body, callerOf({ identity: 'root', permissions: ['admin'] }))).toMatchObject({ approvalWaiver: { by: 'root' } });
  });
});
