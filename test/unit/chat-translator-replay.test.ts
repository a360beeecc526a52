/**
 * A replay of a turn in progress (a page reload: GET stream, `run.stream({ after: turnStart })`): the delta
 * feed's first reading (the whole live window of the model call) may come before the turn's durable events.
 * Those deltas are the start of the answer: they must be shown once the turn is known, not dropped (the page
 * would show the answer with its beginning missing until the step's durable text).
 */
import { describe, expect, it } from 'vitest';
import type { AgentEvent, AgentEventBody } from '../../src/core/events/events';
import type { DeltaEvent } from '../../src/core/events/stream';
import type { ChatStreamEvent } from '../../src/core/chat/turn-translator';
import { TurnTranslator } from '../../src/core/chat/turn-translator';
import { MessageAssembler } from '../../src/core/chat/apply-chunks';

const AT = '2026-01-01T00:00:00.000Z';
const durable = (seq: number, e: AgentEventBody): AgentEvent => ({ ...e, seq, at: AT }) as AgentEvent;
const delta = (n: number, text: string): DeltaEvent => ({ type: 'delta', step: 1, attempt: 1, n, delta: { type: 'text', text } });

function shown(events: ChatStreamEvent[]): string {
  const t = new TurnTranslator({ chatId: 'c', turnStart: 1 });
  const a = new MessageAssembler();
  for (const e of events) for (const c of t.push(e)) a.apply(c.chunk);
  return a.message.parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('');
}

describe('a replay whose first deltas come before the durable events of the turn', () => {
  it('shows them, in order, once the turn is known', () => {
    const events: ChatStreamEvent[] = [
      delta(0, 'A durable '),
      delta(1, 'agent '),
      durable(1, { type: 'user_message', turn: 1, text: 'hi', via: 'signal', by: 'user:a' }),
      durable(2, { type: 'step_started', step: 1, provider: 'p', model: 'm', attempt: 1 }),
      delta(2, 'keeps '),
      delta(3, 'going.'),
    ];
    expect(shown(events)).toBe('A durable agent keeps going.');
  });

  it('drops a voided attempt that came before the turn was known, as it would have live', () => {
    const events: ChatStreamEvent[] = [
      delta(0, 'Lost '),
      { type: 'attempt_voided', step: 1, attempt: 1, reason: 'the attempt failed' },
      durable(1, { type: 'user_message', turn: 1, text: 'hi', via: 'signal', by: 'user:a' }),
      durable(2, { type: 'step_started', step: 1, provider: 'p', model: 'm', attempt: 2 }),
      { type: 'delta', step: 1, attempt: 2, n: 0, delta: { type: 'text', text: 'Kept.' } },
    ];
    expect(shown(events)).toBe('Kept.');
  });

  it("holds a later step's deltas until the replay reaches that step (the turn's earlier steps first)", () => {
    const usage = { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 };
    const step2 = (n: number, text: string): DeltaEvent => ({ type: 'delta', step: 2, attempt: 1, n, delta: { type: 'text', text } });
    const events: ChatStreamEvent[] = [
      step2(0, 'echo says '),
      durable(1, { type: 'user_message', turn: 1, text: 'hi', via: 'signal', by: 'user:a' }),
      durable(2, { type: 'step_started', step: 1, provider: 'p', model: 'm', attempt: 1 }),
      durable(3, { type: 'text', step: 1, text: 'Let me look. ' }),
      durable(4, { type: 'step_finished', step: 1, stopReason: 'tool_use', usage, latencyMs: 1 }),
      durable(5, { type: 'tool_call', step: 1, callId: 'call-1', tool: 'echo', args: { text: 'x' } }),
      durable(6, {
        type: 'tool_result',
        step: 1,
        callId: 'call-1',
        tool: 'echo',
        isError: false,
        preview: 'x',
        bytes: 1,
        stored: false,
        latencyMs: 1,
        attempts: 1,
      }),
      durable(7, { type: 'step_started', step: 2, provider: 'p', model: 'm', attempt: 1 }),
      step2(1, 'x.'),
    ];
    expect(shown(events)).toBe('Let me look. echo says x.');
  });
});
