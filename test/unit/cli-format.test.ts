/** How the CLI prints the newer statuses and events. */
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../core/events';
import type { AgentRunResult } from '../../core/result';
import { formatEvent, formatResult } from '../../cli/format';
import { stylesFor } from '../../cli/output';

const plain = stylesFor({ isTTY: false });
const stamp = { seq: 3, at: '2025-01-01T00:00:00.000Z' };
const usage = { inputTokens: 1, outputTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 0 };

describe('formatEvent', () => {
  it('approval_queued says the decision waits for the call', () => {
    const e: AgentEvent = { ...stamp, type: 'approval_queued', callId: 'call_2_0', by: 'ops:alice', decision: 'approve' };
    expect(formatEvent(e, plain)).toEqual([
      '[approval] approve of call_2_0 by ops:alice queued: the run has not reached this call yet, and applies the decision when the call asks for approval',
    ]);
  });

  it('retrying shows a delay capped from what the provider asked for', () => {
    const base = { ...stamp, type: 'retrying' as const, step: 2, attempt: 1, error: 'rate limited', errorType: 'rate_limit_error', delayMs: 60000, nextModel: 'anthropic/claude' };
    expect(formatEvent({ ...base, requestedDelayMs: 3600000 }, plain)).toEqual([
      '[step 2] attempt 1 failed (rate_limit_error: rate limited); retrying in 60000 ms (capped from 3600000 ms, the wait the provider asked for) with anthropic/claude',
    ]);
    expect(formatEvent(base, plain)).toEqual(['[step 2] attempt 1 failed (rate_limit_error: rate limited); retrying in 60000 ms with anthropic/claude']);
  });

  it.each([
    ['storage_error', "blob store"],
    ['invalid_input', 'names an agent the worker does not have'],
    ['internal_error', 'a bug or an outage'],
  ] as const)('done with %s explains the status', (status, meaning) => {
    const e: AgentEvent = { ...stamp, type: 'done', status, steps: 1, usage, costUsd: 0, finalText: '', error: { message: 'boom' } };
    const out = formatEvent(e, plain);
    expect(out[0]).toBe(`[done] ${status} after 1 step`);
    expect(out[1]).toContain(meaning);
    expect(out[2]).toBe('       boom');
  });
});

describe('formatResult', () => {
  it('explains the new failure statuses', () => {
    const r = {
      status: 'storage_error',
      steps: 0,
      usage,
      costUsd: 0,
      finalText: '',
      messages: [],
      error: { message: 'blob missing', type: 'StorageError' },
      report: { workflowId: 'w', startedAt: 'a', endedAt: 'b', steps: [], toolCalls: [] },
    } as unknown as AgentRunResult;
    const out = formatResult(r, plain).join('\n');
    expect(out).toMatch(/status: +storage_error \(the worker could not read or write the run's content in its blob store/);
    expect(out).toContain('error:    StorageError: blob missing');
  });
});
