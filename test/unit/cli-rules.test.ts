/** `durable-agent rules add`'s flags to a rule, and how rules and changes print. */
import { describe, expect, it } from 'vitest';
import { formatChange, formatRule, ruleOfFlags } from '../../apps/cli/commands/rules';

const NOW = Date.parse('2030-01-01T00:00:00Z');

describe('durable-agent rules', () => {
  it('add: the scope follows --agent/--session, --when is the infix form, --until a duration from now', () => {
    expect(
      ruleOfFlags({ tool: 'refund', action: 'allow', agent: 'billing', when: ['amount<=50', 'currency=EUR'], until: '8h' }, NOW),
    ).toEqual({
      scope: 'agent',
      agent: 'billing',
      tool: 'refund',
      action: 'allow',
      when: {
        all: [
          { path: 'amount', op: 'lte', value: 50 },
          { path: 'currency', op: 'eq', value: 'EUR' },
        ],
      },
      until: '2030-01-01T08:00:00.000Z',
    });
    expect(ruleOfFlags({ tool: '*', action: 'deny', whenJson: '{"path":"cmd","op":"glob","value":"rm -rf*"}' }, NOW)).toEqual({
      scope: 'namespace',
      tool: '*',
      action: 'deny',
      when: { path: 'cmd', op: 'glob', value: 'rm -rf*' },
    });
    expect(ruleOfFlags({ tool: 'x', action: 'ask', session: 'chat-1', id: 'r-7' }, NOW)).toEqual({
      id: 'r-7',
      scope: 'session',
      session: 'chat-1',
      tool: 'x',
      action: 'ask',
    });
  });

  it('add: one clear error per bad flag', () => {
    expect(() => ruleOfFlags({ action: 'allow' })).toThrow('--tool is required (a tool name, or * for every tool)');
    expect(() => ruleOfFlags({ tool: 'x', action: 'maybe' })).toThrow('--action must be allow, ask or deny, got "maybe"');
    expect(() => ruleOfFlags({ tool: 'x', action: 'ask', scope: 'agent' })).toThrow('--scope agent needs --agent <name>');
    expect(() => ruleOfFlags({ tool: 'x', action: 'ask', scope: 'run' })).toThrow('--scope must be namespace, agent or session, got "run"');
    expect(() => ruleOfFlags({ tool: 'x', action: 'ask', when: ['amount'] })).toThrow(/^--when: cannot read condition "amount"/);
    expect(() => ruleOfFlags({ tool: 'x', action: 'ask', whenJson: '{' })).toThrow(/^--when-json is not JSON/);
    expect(() => ruleOfFlags({ tool: 'x', action: 'ask', when: ['a=1'], whenJson: '{}' })).toThrow('give --when or --when-json, not both');
  });

  it('prints a rule and a change on one line', () => {
    expect(
      formatRule({
        id: 'r-1',
        version: 3,
        scope: 'agent',
        agent: 'billing',
        tool: 'refund',
        action: 'allow',
        when: { path: 'amount', op: 'lte', value: 50 },
        createdBy: 'ops:alice',
        path: 'cli',
        reason: 'small',
      }),
    ).toBe('r-1 v3  [agent billing]  allow refund  when amount <= 50  by ops:alice via cli: small');
    expect(
      formatChange({
        type: 'rule_changed',
        seq: 4,
        at: '2030-01-01T00:00:00.000Z',
        op: 'remove',
        version: 5,
        by: 'ops:alice',
        path: 'http',
        ruleId: 'r-1',
      }),
    ).toBe('4. 2030-01-01T00:00:00.000Z v5 remove r-1 by ops:alice via http');
  });
});
