/**
 * The console's run timeline (console/src/timeline.ts): a run's stream events become steps with their
 * text as it arrives (a voided attempt's text taken back), tool calls through approval, running and done
 * with their latency, and notes; a durable event seen again after a reconnection is ignored.
 */
import { describe, expect, it } from 'vitest';
import type { StreamEvent } from '../../src/client/live';
import type { StepEntry, ToolEntry } from '../../apps/console/src/timeline';
import { Timeline } from '../../apps/console/src/timeline';

const at = '2026-01-01T00:00:00.000Z';
const usage = { inputTokens: 10, outputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0 };
const delta = (step: number, attempt: number, n: number, text: string): StreamEvent => ({
  type: 'delta',
  step,
  attempt,
  n,
  delta: { type: 'text', text },
});

describe('console timeline', () => {
  it("shows a running call's newest progress, even one that came before the call's events, and drops it at its result", () => {
    const t = new Timeline();
    const progress = (n: number, message: string, fraction?: number): StreamEvent => ({
      type: 'tool_progress',
      step: 1,
      callId: 'c1',
      tool: 'scan',
      attempt: 1,
      n,
      message,
      ...(fraction !== undefined ? { fraction } : {}),
    });
    t.apply(progress(0, 'listing'));
    t.apply({ type: 'tool_call', step: 1, callId: 'c1', tool: 'scan', args: { dir: '/' }, seq: 0, at });
    t.apply({ type: 'tool_started', step: 1, callId: 'c1', tool: 'scan', seq: 1, at });
    t.apply(progress(1, 'scanning', 0.4));
    const tools = t.entries.filter((e): e is ToolEntry => e.kind === 'tool');
    expect(tools).toHaveLength(1);
    expect(tools[0]).toMatchObject({ state: 'running', args: { dir: '/' }, progress: { attempt: 1, message: 'scanning', fraction: 0.4 } });
    expect(t.entries.filter((e) => e.kind === 'note')).toEqual([]);
    t.apply({
      type: 'tool_result',
      step: 1,
      callId: 'c1',
      tool: 'scan',
      isError: false,
      preview: 'ok',
      bytes: 2,
      stored: false,
      latencyMs: 5,
      attempts: 1,
      seq: 2,
      at,
    });
    expect(tools[0]!.state).toBe('done');
    expect(tools[0]!.progress).toBeUndefined();
    t.apply(progress(2, 'late'));
    expect(tools[0]).toMatchObject({ state: 'done' });
    expect(tools[0]!.progress).toBeUndefined();
  });

  it('shows text as it arrives, takes back a voided attempt, and follows a tool call to its latency', () => {
    const t = new Timeline();
    const events: StreamEvent[] = [
      { type: 'run_started', agent: 'ops', model: 'scripted/ops', maxSteps: 5, seq: 0, at },
      { type: 'step_started', step: 1, provider: 'scripted', model: 'ops', attempt: 1, seq: 1, at },
      delta(1, 1, 0, 'Lost '),
      { type: 'retrying', step: 1, attempt: 1, error: 'overloaded', delayMs: 50, nextModel: 'scripted/ops', seq: 2, at },
      { type: 'attempt_voided', step: 1, attempt: 1, reason: 'the attempt failed: overloaded' },
      delta(1, 2, 0, 'Rolling '),
      delta(1, 2, 1, 'out.'),
    ];
    for (const e of events) t.apply(e);
    const step = t.entries.find((e): e is StepEntry => e.kind === 'step')!;
    expect(step.text).toBe('Rolling out.');
    expect(step.notes.join('\n')).toMatch(/attempt 1 failed \(overloaded\)[\s\S]*attempt 1 voided/);
    expect(step.finished).toBeUndefined();

    const rest: StreamEvent[] = [
      { type: 'text', step: 1, text: 'Rolling out.', seq: 3, at },
      { type: 'tool_call', step: 1, callId: 'c1', tool: 'rollout', args: { service: 'api' }, seq: 4, at },
      { type: 'step_finished', step: 1, stopReason: 'tool_use', usage, latencyMs: 120, seq: 5, at },
      { type: 'approval_requested', step: 1, callId: 'c1', tool: 'rollout', args: { service: 'api' }, seq: 6, at },
    ];
    for (const e of rest) t.apply(e);
    const tool = () => t.entries.find((e): e is ToolEntry => e.kind === 'tool')!;
    expect(tool().state).toBe('awaiting_approval');
    t.apply({
      type: 'approval_decided',
      step: 1,
      callId: 'c1',
      tool: 'rollout',
      decision: 'approve',
      by: 'ops:alice',
      reason: 'ok',
      via: 'update',
      sticky: false,
      seq: 7,
      at,
    });
    t.apply({ type: 'tool_started', step: 1, callId: 'c1', tool: 'rollout', seq: 8, at });
    expect(tool().state).toBe('running');
    // A reconnection replays durable events from the cursor: one already seen changes nothing.
    expect(t.apply({ type: 'tool_started', step: 1, callId: 'c1', tool: 'rollout', seq: 8, at })).toBe(false);
    t.apply({
      type: 'tool_result',
      step: 1,
      callId: 'c1',
      tool: 'rollout',
      isError: false,
      preview: 'live',
      bytes: 4,
      stored: false,
      latencyMs: 300,
      attempts: 1,
      seq: 9,
      at,
    });
    expect(tool()).toMatchObject({ state: 'done', latencyMs: 300, decision: { decision: 'approve', by: 'ops:alice', reason: 'ok' } });
    expect(step.finished).toMatchObject({ latencyMs: 120 });
    expect(t.lastSeq).toBe(9);

    t.apply({ type: 'done', status: 'success', steps: 2, usage, costUsd: 0, finalText: 'done', seq: 10, at });
    expect(t.done?.status).toBe('success');
    expect(t.entries.filter((e) => e.kind === 'note').map((e) => (e.kind === 'note' ? e.text : ''))).toEqual([
      'Run started: agent ops, model scripted/ops, at most 5 steps',
      'Run ended: success',
    ]);
  });

  it('marks a denied call denied, whatever its result says', () => {
    const t = new Timeline();
    t.apply({ type: 'approval_requested', step: 1, callId: 'c2', tool: 'rollout', args: {}, seq: 0, at });
    t.apply({
      type: 'approval_decided',
      step: 1,
      callId: 'c2',
      tool: 'rollout',
      decision: 'deny',
      by: 'ops:bob',
      reason: 'freeze',
      via: 'signal',
      sticky: false,
      seq: 1,
      at,
    });
    t.apply({
      type: 'tool_result',
      step: 1,
      callId: 'c2',
      tool: 'rollout',
      isError: true,
      preview: 'denied: freeze',
      bytes: 14,
      stored: false,
      latencyMs: 0,
      attempts: 0,
      seq: 2,
      at,
    });
    expect(t.entries[0]).toMatchObject({ kind: 'tool', state: 'denied', decision: { by: 'ops:bob', reason: 'freeze' } });
  });

  it('marks a call started early and then discarded (its model attempt failed) discarded, and running again when the retry starts it', () => {
    const t = new Timeline();
    t.apply({ type: 'tool_started', step: 1, callId: 'c3', tool: 'read', early: true, attempt: 1, seq: 0, at });
    expect(t.entries[0]).toMatchObject({ kind: 'tool', state: 'running' });
    t.apply({ type: 'early_tool_discarded', step: 1, attempt: 1, callIds: ['c3'], seq: 1, at });
    expect(t.entries[0]).toMatchObject({ kind: 'tool', state: 'discarded' });
    t.apply({ type: 'tool_started', step: 1, callId: 'c3', tool: 'read', early: true, attempt: 2, seq: 2, at });
    expect(t.entries[0]).toMatchObject({ kind: 'tool', state: 'running' });
  });
});
