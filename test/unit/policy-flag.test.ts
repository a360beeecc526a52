/** The CLI's `--policy` flag with rules on arguments, and the HTTP start body's policy (issue 26). */
import { describe, expect, it } from 'vitest';
import { parsePolicyFlag } from '../../apps/cli/policy-flag';
import { StartBody } from '../../apps/http/validation';

describe('--policy', () => {
  it('reads plain rules as before', () => {
    expect(parsePolicyFlag(['purge=deny', 'refund=ask,*=allow'])).toEqual({ purge: 'deny', refund: 'ask', '*': 'allow' });
    expect(() => parsePolicyFlag(['purge=deny', 'purge=ask'])).toThrow(/twice/);
  });
  it('reads tool:condition=rule entries in order, with a plain fallback after them', () => {
    expect(parsePolicyFlag(['refund:amount<=50=allow', 'refund=ask', 'deploy:env=staging=allow', 'shell:command~"rm -rf *"=deny'])).toEqual(
      {
        refund: [{ when: { path: 'amount', op: 'lte', value: 50 }, action: 'allow' }, { action: 'ask' }],
        deploy: [{ when: { path: 'env', op: 'eq', value: 'staging' }, action: 'allow' }],
        shell: [{ when: { path: 'command', op: 'glob', value: 'rm -rf *' }, action: 'deny' }],
      },
    );
    // Commas inside a condition are kept.
    expect(parsePolicyFlag(['deploy:env=["qa","staging"]=allow'])).toEqual({
      deploy: [{ when: { path: 'env', op: 'in', value: ['qa', 'staging'] }, action: 'allow' }],
    });
  });
  it('refuses what it cannot read', () => {
    expect(() => parsePolicyFlag(['refund:amount<=50=maybe'])).toThrow(/give <tool>=allow\|ask\|deny/);
    expect(() => parsePolicyFlag(['refund:amount=allow'])).toThrow(/cannot read condition/);
    expect(() => parsePolicyFlag(['refund=ask', 'refund:amount<=50=allow'])).toThrow(/covers every call/);
    expect(() => parsePolicyFlag(['*:amount<=50=allow'])).toThrow(/needs a tool name/);
  });
});

describe('POST /runs policy', () => {
  const body = (policy: unknown) => StartBody.safeParse({ agent: 'a', input: 'x', policy });
  it('accepts entries on arguments and refuses malformed ones, naming the tool', () => {
    expect(body({ refund: [{ when: { path: 'amount', op: 'lte', value: 50 }, action: 'allow' }], '*': 'ask' }).success).toBe(true);
    const bad = body({ refund: [{ when: { path: 'amount', op: 'near', value: 50 }, action: 'allow' }] });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]?.path).toEqual(['policy', 'refund']);
    expect(body({ refund: 'maybe' }).success).toBe(false);
  });
});
