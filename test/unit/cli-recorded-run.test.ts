/** Checking a decision against what a run's recorded history makes certain (no worker involved). */
import { describe, expect, it } from 'vitest';
import type { RecordedRun } from '../../apps/cli/recorded-run';
import { checkDecision } from '../../apps/cli/recorded-run';
import type { ApprovalSpec, RunPolicy } from '../../src/core/approvals/approvals';
import type { AgentSpec, ToolSpec } from '../../src/core/run/spec';

function tool(name: string, approval?: ApprovalSpec): ToolSpec {
  const retry = { maximumAttempts: 1, initialIntervalMs: 1, backoffCoefficient: 1, maximumIntervalMs: 1 };
  return {
    name,
    description: name,
    inputSchema: {},
    readOnly: false,
    timeoutMs: 1,
    heartbeatTimeoutMs: 1,
    retry,
    onError: 'report',
    ...(approval ? { approval } : {}),
  };
}

function recorded(policy?: RunPolicy): RecordedRun {
  const spec = {
    name: 'a',
    tools: [
      tool('plain'),
      tool('guarded', { mode: 'always', approvers: ['ops:alice'], onTimeout: 'deny' }),
      tool('open', { mode: 'always', onTimeout: 'deny' }),
      tool('maybe', { mode: 'conditional', onTimeout: 'deny' }),
    ],
  } as unknown as AgentSpec;
  return {
    input: { agent: 'a', prompt: 'p', ...(policy ? { policy } : {}) },
    spec,
    calls: new Map([
      ['c_plain', 'plain'],
      ['c_guarded', 'guarded'],
      ['c_open', 'open'],
      ['c_maybe_no', 'maybe'],
      ['c_maybe_yes', 'maybe'],
      ['c_ran', 'open'],
      ['c_unknown_tool', 'nope'],
    ]),
    checks: new Map([
      ['c_maybe_no', false],
      ['c_maybe_yes', true],
    ]),
    ran: new Set(['c_ran']),
  };
}

const kind = (run: RecordedRun, callId: string, by = 'ops:bob') => checkDecision(run, { callId, by });

describe('checkDecision', () => {
  it('accepts what history allows, refuses what it rules out for certain', () => {
    const run = recorded();
    expect(kind(run, 'c_open')).toEqual({ kind: 'ok', tool: 'open' });
    expect(kind(run, 'c_guarded', 'ops:alice')).toEqual({ kind: 'ok', tool: 'guarded' });
    expect(kind(run, 'c_guarded')).toMatchObject({
      kind: 'refused',
      reason: 'ops:bob may not decide calls of "guarded" (allowed: ops:alice)',
    });
    expect(kind(run, 'c_plain')).toMatchObject({ kind: 'refused', reason: 'call "c_plain" (plain) needs no approval' });
    expect(kind(run, 'c_maybe_no')).toMatchObject({ kind: 'refused' });
    expect(kind(run, 'c_maybe_yes')).toEqual({ kind: 'ok', tool: 'maybe' });
    expect(kind(run, 'c_ran')).toMatchObject({ kind: 'refused', reason: 'call "c_ran" (open) has already run' });
    expect(kind(run, 'c_unknown_tool')).toMatchObject({ kind: 'refused' });
    expect(kind(run, 'c_missing')).toEqual({ kind: 'unrecorded' });
  });

  it('follows the run policy: ask makes any tool need a person, deny and allow (without approvers) need none', () => {
    expect(kind(recorded({ plain: 'ask' }), 'c_plain')).toEqual({ kind: 'ok', tool: 'plain' });
    expect(kind(recorded({ '*': 'deny' }), 'c_open')).toMatchObject({ kind: 'refused' });
    expect(kind(recorded({ open: 'allow' }), 'c_open')).toMatchObject({
      kind: 'refused',
      reason: 'call "c_open" (open) needs no approval',
    });
    // allow cannot waive a tool that names its approvers
    expect(kind(recorded({ '*': 'allow' }), 'c_guarded', 'ops:alice')).toEqual({ kind: 'ok', tool: 'guarded' });
    expect(kind(recorded({ '*': 'allow' }), 'c_guarded')).toMatchObject({ kind: 'refused' });
  });
});
