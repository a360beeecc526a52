/** Precedence of the gate with run policy entries on arguments and standing rules (issue 26). Pure. */
import { describe, expect, it } from 'vitest';
import type { ApprovalRule, ApprovalSpec, RunPolicy } from '../../src/core/approvals/approvals';
import { gateFor, policyMatch, policyRule } from '../../src/core/approvals/approvals';
import { agentRules, asRuleSet, ruleFits, standingVerdict } from '../../src/core/approvals/standing-rules';
import { policyProblems, policyValueProblem } from '../../src/core/approvals/run-policy';
import { defineAgent } from '../../src/agents/define';
import { agentSpec } from '../../src/agents/registry';

const always: ApprovalSpec = { mode: 'always', onTimeout: 'deny' };
const named: ApprovalSpec = { mode: 'always', onTimeout: 'deny', approvers: ['ops:alice'] };
const conditional: ApprovalSpec = { mode: 'conditional', onTimeout: 'deny' };
const never: ApprovalSpec = { mode: 'never', onTimeout: 'deny' };
const small = { path: 'amount', op: 'lte' as const, value: 50 };
const rule = (r: Partial<ApprovalRule> & Pick<ApprovalRule, 'id' | 'action'>): ApprovalRule => ({
  scope: 'namespace',
  tool: 'refund',
  createdBy: 'ops:alice',
  ...r,
});
const gate = (
  approval: ApprovalSpec | undefined,
  opts: { policy?: RunPolicy; approved?: string[]; run?: ApprovalRule[]; standing?: ApprovalRule[]; args?: object; check?: boolean } = {},
) =>
  gateFor('refund', approval, opts.policy, new Set(opts.approved ?? []), opts.check, {
    rules: opts.run ?? [],
    args: (opts.args ?? { amount: 30 }) as never,
    nowMs: 0,
    ...(opts.standing ? { standing: opts.standing } : {}),
  });

describe('run policy entries on arguments', () => {
  const policy: RunPolicy = { refund: [{ when: small, action: 'allow' }, { action: 'ask' }], '*': 'deny' };
  it('first entry that matches wins, named policy:<tool>:<i>', () => {
    expect(policyMatch(policy, 'refund', { amount: 30 })).toMatchObject({ action: 'allow', rule: { id: 'policy:refund:0', scope: 'run' } });
    expect(policyMatch(policy, 'refund', { amount: 80 })).toMatchObject({ action: 'ask', rule: { id: 'policy:refund:1' } });
    expect(policyRule(policy, 'other')).toBe('deny');
  });
  it('no entry matches: the * value applies when plain; an allow entry that cannot tell is passed over, a deny one asks', () => {
    expect(policyMatch({ refund: [{ when: small, action: 'allow' }], '*': 'ask' }, 'refund', { amount: 80 })).toEqual({ action: 'ask' });
    expect(policyMatch({ refund: [{ when: small, action: 'allow' }] }, 'refund', { amount: 80 })).toBeUndefined();
    expect(policyMatch({ refund: [{ when: small, action: 'allow' }] }, 'refund', { amount: 'x' })).toBeUndefined();
    expect(policyMatch({ refund: [{ when: small, action: 'deny' }] }, 'refund', undefined)?.action).toBe('ask');
  });
  it('an allow entry does not waive a tool that names approvers; a deny entry wins over everything', () => {
    const p: RunPolicy = { refund: [{ when: small, action: 'allow' }] };
    expect(gate(named, { policy: p })).toEqual({ kind: 'ask' });
    expect(gate(always, { policy: p })).toMatchObject({ kind: 'run', why: 'run_policy', rule: { id: 'policy:refund:0' } });
    const d: RunPolicy = { refund: [{ when: small, action: 'deny' }] };
    expect(gate(always, { policy: d, approved: ['refund'] })).toMatchObject({ kind: 'deny', why: 'run_policy' });
  });
  it('plain policies gate as before (no rule named)', () => {
    expect(gate(always, { policy: { refund: 'allow' } })).toEqual({ kind: 'run', why: 'run_policy' });
    expect(gate(always, { policy: { refund: 'deny' } })).toEqual({ kind: 'deny', why: 'run_policy' });
    expect(gate(never, { policy: { refund: 'ask' } })).toEqual({ kind: 'ask' });
  });
  it('values are checked; an allow entry loosens like allow', () => {
    expect(policyValueProblem('refund', [{ when: small, action: 'allow' }])).toBeUndefined();
    expect(policyValueProblem('refund', 'maybe')).toMatch(/must be allow, ask or deny/);
    expect(policyValueProblem('refund', [{ action: 'allow', extra: 1 }])).toMatch(/unknown field/);
    expect(policyValueProblem('refund', [{ when: { path: 'a', op: 'nope', value: 1 }, action: 'ask' }])).toMatch(/when/);
    expect(policyValueProblem('refund', [])).toMatch(/1 to/);
    const tools = [{ name: 'refund', approval: always }];
    expect(policyProblems({ refund: [{ when: small, action: 'allow' }] }, tools).map((p) => p.kind)).toEqual(['loosens_approval']);
    expect(policyProblems({ refund: [{ when: small, action: 'ask' }] }, tools)).toEqual([]);
    expect(policyProblems({ refund: [{ when: small, action: 'allow' }] }, tools, { waiver: { by: 'ops:alice' } })).toEqual([]);
  });
});

describe('standing rules: precedence', () => {
  const allowSmall = rule({ id: 'a', action: 'allow', when: small });
  const denyAll = rule({ id: 'd', action: 'deny' });
  it('deny wins from any source, over policy allow, approved-for-run and run allow rules', () => {
    expect(gate(always, { policy: { refund: 'allow' }, standing: [denyAll] })).toMatchObject({
      kind: 'deny',
      why: 'rule',
      rule: { id: 'd' },
    });
    expect(gate(always, { approved: ['refund'], standing: [denyAll] })).toMatchObject({ kind: 'deny', rule: { id: 'd' } });
    const runAllow = rule({ id: 'run-1', scope: 'run', action: 'allow' });
    expect(gate(always, { run: [runAllow], standing: [denyAll] })).toMatchObject({ kind: 'deny', rule: { id: 'd' } });
    // The run policy's own deny is named first.
    expect(gate(always, { policy: { refund: 'deny' }, standing: [denyAll] })).toEqual({ kind: 'deny', why: 'run_policy' });
  });
  it('a deny rule that cannot tell asks', () => {
    const unsure = rule({ id: 'u', action: 'deny', when: { path: 'amount', op: 'gt', value: 'x' } });
    expect(gate(never, { standing: [unsure] })).toMatchObject({ kind: 'ask', rule: { id: 'u' } });
  });
  it('policy allow, approved-for-run, run rules and policy ask come before standing ask/allow', () => {
    const ask = rule({ id: 'k', action: 'ask' });
    expect(gate(always, { policy: { refund: 'allow' }, standing: [ask] })).toEqual({ kind: 'run', why: 'run_policy' });
    expect(gate(always, { approved: ['refund'], standing: [ask] })).toEqual({ kind: 'run', why: 'approved_for_run' });
    expect(gate(always, { policy: { refund: 'ask' }, standing: [allowSmall] })).toEqual({ kind: 'ask' });
    expect(gate(always, { standing: [allowSmall] })).toMatchObject({ kind: 'run', why: 'rule', rule: { id: 'a' } });
    expect(gate(always, { standing: [allowSmall], args: { amount: 80 } })).toEqual({ kind: 'ask' });
  });
  it('most specific scope first; ask beats allow in one scope', () => {
    const sessionAllow = rule({ id: 's', scope: 'session', session: 'w', action: 'allow' });
    const nsAsk = rule({ id: 'n', action: 'ask' });
    expect(gate(always, { standing: [nsAsk, sessionAllow] })).toMatchObject({ kind: 'run', rule: { id: 's' } });
    const sessionAsk = rule({ id: 's2', scope: 'session', session: 'w', action: 'ask' });
    expect(gate(always, { standing: [sessionAllow, sessionAsk] })).toMatchObject({ kind: 'ask', rule: { id: 's2' } });
    expect(standingVerdict([nsAsk, rule({ id: 'g', scope: 'agent', action: 'allow' })], 'refund', {}, undefined)).toMatchObject({
      action: 'allow',
      rule: { id: 'g' },
    });
  });
  it('an allow rule waives a tool that names approvers only if its maker is one of them', () => {
    expect(gate(named, { standing: [rule({ id: 'a', action: 'allow', createdBy: 'ops:eve' })] })).toEqual({ kind: 'ask' });
    expect(gate(named, { standing: [rule({ id: 'a', action: 'allow' })] })).toMatchObject({ kind: 'run', rule: { id: 'a' } });
  });
  it("then the tool's own mode; an allow rule skips a predicate; it names itself only where it waives something", () => {
    expect(gate(conditional, { standing: [allowSmall] })).toMatchObject({ kind: 'run', why: 'rule' });
    expect(gate(conditional, { standing: [allowSmall], args: { amount: 80 } })).toEqual({ kind: 'check' });
    expect(gate(never, { standing: [allowSmall] })).toEqual({ kind: 'run', why: 'no_approval_needed' });
    expect(
      gate(never, { standing: [rule({ id: 'k', action: 'ask', when: { path: 'amount', op: 'gt', value: 50 } })], args: { amount: 80 } }),
    ).toMatchObject({
      kind: 'ask',
      rule: { id: 'k' },
    });
  });
  it('without standing rules every recorded combination gates as before', () => {
    for (const approval of [undefined, always, named, conditional, never])
      for (const policy of [undefined, { refund: 'allow' }, { refund: 'ask' }, { refund: 'deny' }, { '*': 'allow' }] as RunPolicy[])
        for (const approved of [[], ['refund']])
          for (const check of [undefined, true, false])
            expect(gate(approval, { policy, approved, check, standing: [] })).toEqual(
              gateFor('refund', approval, policy, new Set(approved), check),
            );
  });
});

describe('which standing rules apply to a run', () => {
  const who = { agent: 'support', session: 'chat-1' };
  it('scope and expiry', () => {
    expect(ruleFits(rule({ id: 'n', action: 'deny' }), who, 0)).toBe(true);
    expect(ruleFits(rule({ id: 'a', scope: 'agent', agent: 'support', action: 'deny' }), who, 0)).toBe(true);
    expect(ruleFits(rule({ id: 'a', scope: 'agent', agent: 'billing', action: 'deny' }), who, 0)).toBe(false);
    expect(ruleFits(rule({ id: 's', scope: 'session', session: 'chat-1', action: 'deny' }), who, 0)).toBe(true);
    expect(ruleFits(rule({ id: 's', scope: 'session', session: 'chat-2', action: 'deny' }), who, 0)).toBe(false);
    expect(ruleFits(rule({ id: 'r', scope: 'run', action: 'deny' }), who, 0)).toBe(false);
    const until = '2026-01-01T00:00:00Z';
    expect(ruleFits(rule({ id: 'u', action: 'deny', until }), who, Date.parse(until) - 1)).toBe(true);
    expect(ruleFits(rule({ id: 'u', action: 'deny', until }), who, Date.parse(until))).toBe(false);
  });
  it("the agent's code rules are agent-scope rules made by agent:<name> unless named", () => {
    expect(
      agentRules('support', [
        { id: 'c', tool: 'refund', action: 'allow' },
        { id: 'd', tool: 'x', action: 'deny', createdBy: 'ops:alice' },
      ]),
    ).toEqual([
      { id: 'c', tool: 'refund', action: 'allow', scope: 'agent', agent: 'support', createdBy: 'agent:support' },
      { id: 'd', tool: 'x', action: 'deny', scope: 'agent', agent: 'support', createdBy: 'ops:alice' },
    ]);
  });
  it('rule sets from the outside world', () => {
    expect(asRuleSet({ version: 3, rules: [rule({ id: 'a', action: 'allow' }), { junk: true }] })).toEqual({
      version: 3,
      rules: [rule({ id: 'a', action: 'allow' })],
    });
    expect(asRuleSet({ version: -1, rules: [] })).toBeUndefined();
    expect(asRuleSet('x')).toBeUndefined();
  });
});

describe('defineAgent({ approvalRules })', () => {
  const base = { name: 'rules_agent', model: { provider: 'scripted', model: 'x' }, tools: [] };
  it('records the rules in the spec and refuses malformed ones, naming the rule', () => {
    const rules = [{ id: 'small', tool: 'refund', when: small, action: 'allow' as const }];
    expect(agentSpec(defineAgent({ ...base, approvalRules: rules }), 'ref').approvalRules).toEqual(rules);
    expect(agentSpec(defineAgent(base), 'ref').approvalRules).toBeUndefined();
    expect(() => defineAgent({ ...base, approvalRules: [rules[0]!, rules[0]!] })).toThrow(/used twice/);
    expect(() => defineAgent({ ...base, approvalRules: [{ id: 'x', tool: 'refund', action: 'maybe' as never }] })).toThrow(/action/);
    expect(() =>
      defineAgent({
        ...base,
        approvalRules: [{ id: 'x', tool: 'refund', action: 'deny', when: { path: 'a', op: 'near' as never, value: 1 } }],
      }),
    ).toThrow(/\(x\): when/);
  });
});

describe('function rules of the agent code', () => {
  const fnAllow = rule({ id: 'f', scope: 'agent', action: 'allow', fn: true });
  const fnDeny = rule({ id: 'g', scope: 'agent', action: 'deny', fn: true });
  const withAnswers = (standing: ApprovalRule[], answers?: Record<string, boolean | null>, args: object | undefined = { amount: 1 }) =>
    gateFor('refund', always, undefined, new Set(), undefined, {
      rules: [],
      args: args as never,
      nowMs: 0,
      standing,
      ...(answers ? { answers } : {}),
    });
  it('need an answer from the activity first, then decide by it; an answer of null cannot tell', () => {
    expect(withAnswers([fnAllow])).toEqual({ kind: 'check' });
    expect(withAnswers([fnAllow], { f: true })).toMatchObject({ kind: 'run', why: 'rule', rule: { id: 'f' } });
    expect(withAnswers([fnAllow], { f: false })).toEqual({ kind: 'ask' });
    expect(withAnswers([fnAllow], { f: null })).toEqual({ kind: 'ask' });
    expect(withAnswers([fnDeny], { g: true })).toMatchObject({ kind: 'deny', rule: { id: 'g' } });
    expect(withAnswers([fnDeny], { g: null })).toMatchObject({ kind: 'ask', rule: { id: 'g' } });
    // Arguments not known yet (early starts): no check, an unanswered deny rule keeps the call back.
    expect(
      gateFor('refund', never, undefined, new Set(), undefined, { rules: [], args: undefined, nowMs: 0, standing: [fnDeny] }),
    ).toMatchObject({
      kind: 'ask',
    });
  });
  it('a rule set from outside cannot claim a function condition', () => {
    expect(asRuleSet({ version: 1, rules: [fnAllow, rule({ id: 'a', action: 'allow' })] })?.rules.map((r) => r.id)).toEqual(['a']);
  });
});
