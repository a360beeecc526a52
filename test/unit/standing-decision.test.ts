/** The rule a decision with scope session or agent writes first (client side). */
import { describe, expect, it } from 'vitest';
import { standingRuleOf } from '../../src/client/standing-decision';

const NOW = Date.parse('2030-01-01T00:00:00Z');
const call = { callId: 'call_1_0', tool: 'refund', args: { amount: 40, order: 'o-1' } };
const where = { workflowId: 'chat-42', agent: 'billing' };

describe('standing decisions', () => {
  it('session: this conversation; agent: the run’s agent, for a time; match args: the same top-level arguments', () => {
    expect(standingRuleOf({ callId: 'call_1_0', decision: 'approve', by: 'ops:alice', scope: 'session' }, call, where, NOW)).toEqual({
      scope: 'session',
      session: 'chat-42',
      tool: 'refund',
      action: 'allow',
    });
    expect(
      standingRuleOf(
        { callId: 'call_1_0', decision: 'deny', by: 'ops:alice', scope: 'agent', match: 'args', for: '8h', reason: 'no' },
        call,
        where,
        NOW,
      ),
    ).toEqual({
      scope: 'agent',
      agent: 'billing',
      tool: 'refund',
      when: {
        all: [
          { path: 'amount', op: 'eq', value: 40 },
          { path: 'order', op: 'eq', value: 'o-1' },
        ],
      },
      action: 'deny',
      until: '2030-01-01T08:00:00.000Z',
      reason: 'no',
    });
  });

  it('refuses what cannot be a standing rule before anything is written', () => {
    const d = { callId: 'call_1_0', by: 'ops:alice' };
    expect(() => standingRuleOf({ ...d, decision: 'skip', scope: 'session' }, call, where)).toThrow(
      'malformed decision: scope "session" is only for approve or deny',
    );
    expect(() => standingRuleOf({ ...d, decision: 'approve', scope: 'agent', for: 'soon' }, call, where)).toThrow(
      /for "soon" is not a duration/,
    );
    expect(() => standingRuleOf({ ...d, decision: 'approve', scope: 'agent' }, call, { workflowId: 'x' })).toThrow(
      /does not say its agent/,
    );
  });
});
