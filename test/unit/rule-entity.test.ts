/** The rules entity's pure side: checks of changes, their effect on the state, caps, expiry, push targets. */
import { describe, expect, it } from 'vitest';
import type { PutRuleRequest, RulesEntityState } from '../../src/core/approvals/rule-entity';
import {
  applyEditors,
  applyPut,
  applyRemove,
  editorsProblem,
  initialRulesState,
  MAX_RULES,
  MAX_RULES_BYTES,
  nextExpiry,
  pruneExpired,
  putProblem,
  refusalKindOf,
  refusalType,
  removeProblem,
  seedEditors,
} from '../../src/core/approvals/rule-entity';
import { AGENT_NAME_ATTRIBUTE, RULES_CHANGED_SIGNAL, runningRunsQuery } from '../../src/core/approvals/rule-push';
import { rulesChangedSignal } from '../../src/workflows/definitions';
import { AGENT_NAME } from '../../src/workflows/search-attributes';

const NOW = Date.parse('2030-01-01T00:00:00Z');
const AT = new Date(NOW).toISOString();
const alice = initialRulesState(['ops:alice']);
const put = (rule: Partial<PutRuleRequest['rule']> = {}, by = 'ops:alice'): PutRuleRequest => ({
  rule: { scope: 'namespace', tool: 'deploy', action: 'ask', ...rule } as PutRuleRequest['rule'],
  by,
});

describe('rule changes', () => {
  it('a put names the rule r-<n>, versions it, records who made it and logs the change', () => {
    const { state, rule } = applyPut(alice, { ...put({ reason: 'why' }), path: 'cli' }, AT);
    expect(rule).toEqual({
      id: 'r-1',
      version: 1,
      scope: 'namespace',
      tool: 'deploy',
      action: 'ask',
      createdBy: 'ops:alice',
      path: 'cli',
      reason: 'why',
    });
    expect(state.version).toBe(1);
    expect(state.changes).toEqual([
      { type: 'rule_changed', seq: 1, at: AT, op: 'put', version: 1, by: 'ops:alice', path: 'cli', ruleId: 'r-1', rule },
    ]);
    const second = applyPut(state, put({ id: 'r-2' }), AT).state;
    // A generated id skips one taken by name.
    expect(applyPut(second, put(), AT).rule.id).toBe('r-3');
    const replaced = applyPut(second, put({ id: 'r-1', action: 'deny' }), AT).state;
    expect(replaced.rules.map((r) => [r.id, r.action, r.version])).toEqual([
      ['r-1', 'deny', 3],
      ['r-2', 'ask', 2],
    ]);
    const removed = applyRemove(replaced, { id: 'r-1', by: 'ops:alice' }, AT);
    expect(removed.rules.map((r) => r.id)).toEqual(['r-2']);
    expect(removed.version).toBe(4);
  });

  it('refuses a non-editor, no editors at all, a stale version, and malformed rules, with a clear message', () => {
    expect(
      [put({}, 'ops:bob'), { ...put(), expectedVersion: 3 }, put({ scope: 'session' })].map((r) => putProblem(alice, r, NOW)?.kind),
    ).toEqual(['forbidden', 'conflict', 'invalid']);
    expect(refusalKindOf(refusalType('conflict'))).toBe('conflict');
    expect(refusalType('forbidden')).toBe('RuleChangeForbidden');
    expect(putProblem(alice, put({}, 'ops:bob'), NOW)?.message).toBe('ops:bob may not change the rules (editors: ops:alice)');
    expect(putProblem(initialRulesState(), put(), NOW)?.message).toMatch(
      /no one may change the rules yet: start a worker with approvalRules/,
    );
    expect(putProblem(alice, { ...put(), expectedVersion: 3 }, NOW)?.message).toBe(
      'the rules changed: version is 0, not the expected 3 (read them again)',
    );
    expect(putProblem(alice, { ...put(), expectedVersion: 0 }, NOW)).toBeUndefined();
    expect(putProblem(alice, put({ scope: 'session' }), NOW)?.message).toMatch(/^rule.session: the conversation/);
    expect(putProblem(alice, put({ scope: 'agent' }), NOW)?.message).toMatch(/^rule.agent: the agent/);
    expect(putProblem(alice, put({ agent: 'x' }), NOW)?.message).toBe('rule.agent: only with scope agent');
    expect(putProblem(alice, put({ scope: 'run' as never }), NOW)?.message).toBe('rule.scope: one of session, agent, namespace');
    expect(putProblem(alice, put({ action: 'maybe' as never }), NOW)?.message).toBe('rule.action: one of allow, ask, deny');
    expect(putProblem(alice, put({ when: { path: 'a', op: 'nope' } as never }), NOW)?.message).toMatch(/^rule.when: /);
    expect(putProblem(alice, put({ until: 'soon' }), NOW)?.message).toBe('rule.until: an ISO time');
    expect(putProblem(alice, put({ until: '2029-12-31T00:00:00Z' }), NOW)?.message).toBe('rule.until: 2029-12-31T00:00:00Z has passed');
    expect(putProblem(alice, put({ id: 'has space' }), NOW)?.message).toMatch(/^rule.id: /);
    expect(putProblem(alice, { ...put(), rule: { ...put().rule, extra: 1 } as never }, NOW)?.message).toBe('rule: unknown field(s) extra');
    expect(putProblem(alice, { ...put(), path: 'fax' as never }, NOW)?.message).toBe('path: unknown path "fax"');
    expect(removeProblem(alice, { id: 'r-9', by: 'ops:alice' })?.message).toBe('no rule "r-9"');
    expect(editorsProblem(alice, { editors: [], by: 'ops:alice' })?.message).toBe('editors: a list of identities');
    expect(editorsProblem(alice, { editors: ['ops:bob'], by: 'ops:bob' })?.message).toMatch(/ops:bob may not change the rules/);
  });

  it(`caps the set at ${MAX_RULES} rules and ${MAX_RULES_BYTES} bytes`, () => {
    let full: RulesEntityState = alice;
    for (let i = 0; i < MAX_RULES; i++) full = applyPut(full, put(), AT).state;
    expect(putProblem(full, put(), NOW)?.message).toBe(`too many rules: at most ${MAX_RULES} (remove some first)`);
    // Replacing stays possible at the cap.
    expect(putProblem(full, put({ id: 'r-1' }), NOW)).toBeUndefined();
    let big: RulesEntityState = alice;
    const reason = 'x'.repeat(1000);
    for (let i = 0; i < 30; i++) big = applyPut(big, put({ reason }), AT).state;
    expect(putProblem(big, put({ reason }), NOW)?.message).toMatch(
      new RegExp(`^the rules would take \\d+ bytes: at most ${MAX_RULES_BYTES}$`),
    );
  });

  it('editors: set by an editor (the version stays); seeded from configuration only while there are none', () => {
    const two = applyEditors(alice, { editors: ['ops:alice', 'ops:bob', 'ops:bob'], by: 'ops:alice' }, AT);
    expect(two.editors).toEqual(['ops:alice', 'ops:bob']);
    expect(two.version).toBe(0);
    expect(seedEditors(two, ['ops:eve'], AT)).toBe(two);
    const seeded = seedEditors(initialRulesState(), ['ops:eve', ''], AT);
    expect(seeded.editors).toEqual(['ops:eve']);
    expect(seeded.changes[0]).toMatchObject({ op: 'editors', by: 'configuration', editors: ['ops:eve'] });
  });

  it('expired rules are removed in one version, each logged; the next expiry is the earliest until', () => {
    let s = applyPut(alice, put({ until: '2030-01-02T00:00:00Z' }), AT).state;
    s = applyPut(s, put({ until: '2030-01-03T00:00:00Z' }), AT).state;
    s = applyPut(s, put(), AT).state;
    expect(nextExpiry(s)).toBe(Date.parse('2030-01-02T00:00:00Z'));
    expect(pruneExpired(s, NOW)).toBe(s);
    const pruned = pruneExpired(s, Date.parse('2030-01-02T00:00:00Z'));
    expect(pruned.rules.map((r) => r.id)).toEqual(['r-2', 'r-3']);
    expect(pruned.version).toBe(4);
    expect(pruned.changes.at(-1)).toMatchObject({ op: 'expired', by: 'entity', ruleId: 'r-1', version: 4 });
  });
});

describe('push targets', () => {
  it('lists running agent runs, of the named agents (quoted) or all', () => {
    expect(runningRunsQuery('all')).toBe(`WorkflowType = 'agentWorkflow' AND ExecutionStatus = 'Running'`);
    expect(runningRunsQuery(['a', "o'b"])).toBe(
      `WorkflowType = 'agentWorkflow' AND ExecutionStatus = 'Running' AND DurableAgentName IN ('a', 'o\\'b')`,
    );
    expect(runningRunsQuery([])).toBe('');
  });

  it('names the signal and search attribute the workflow side defines', () => {
    expect(RULES_CHANGED_SIGNAL).toBe(rulesChangedSignal.name);
    expect(AGENT_NAME_ATTRIBUTE).toBe(AGENT_NAME.name);
  });
});
