/** The client's live-stream rules (client/live.ts): exact merging of durable events and deltas. */
import { describe, expect, it } from 'vitest';
import type { StreamEvent } from '../../src/client/live';
import { LiveFilter, merge, TextAccumulator } from '../../src/client/live';
import type { AgentEvent } from '../../src/core/events/events';
import type { LiveDelta, TextChunk } from '../../src/core/events/stream';
import { ZERO_USAGE } from '../../src/core/budget/usage';

let seq = 0;
const stamp = <T extends object>(e: T) => ({ ...e, seq: seq++, at: '2026-01-01T00:00:00.000Z' }) as unknown as AgentEvent;
const delta = (step: number, attempt: number, n: number, text: string): LiveDelta => ({
  workflowId: 'w',
  step,
  attempt,
  n,
  delta: { type: 'text', text },
});

describe('LiveFilter', () => {
  it('passes deltas in order once, drops those of a failed attempt or a finished step, and voids failed attempts', () => {
    const f = new LiveFilter();
    expect(f.delta(delta(1, 1, 0, 'a'))).toMatchObject({ type: 'delta', n: 0 });
    expect(f.delta(delta(1, 1, 0, 'a'))).toBeUndefined();
    expect(f.delta(delta(1, 1, 2, 'c'))).toMatchObject({ n: 2 });
    const retry = f.durable(stamp({ type: 'retrying', step: 1, attempt: 1, error: 'reset', delayMs: 10, nextModel: 'm' }));
    expect(retry.map((e) => e.type)).toEqual(['retrying', 'attempt_voided']);
    expect(f.delta(delta(1, 1, 3, 'd'))).toBeUndefined();
    expect(f.delta(delta(1, 2, 0, 'x'))).toBeDefined();
    f.durable(stamp({ type: 'text', step: 1, text: 'x' }));
    expect(f.delta(delta(1, 2, 1, 'y'))).toBeUndefined();
  });

  it('voids an attempt still streaming when the run ends', () => {
    const f = new LiveFilter();
    f.delta(delta(3, 2, 0, 'partial'));
    const out = f.durable(stamp({ type: 'done', status: 'provider_error', steps: 3, usage: ZERO_USAGE, costUsd: 0, finalText: '' }));
    expect(out.map((e) => e.type)).toEqual(['done', 'attempt_voided']);
    expect(out[1]).toMatchObject({ step: 3, attempt: 2 });
  });
});

describe('TextAccumulator', () => {
  const run = (events: StreamEvent[]) => {
    const acc = new TextAccumulator();
    const chunks: TextChunk[] = events.flatMap((e) => acc.push(e));
    return { chunks, acc };
  };
  const d = (step: number, attempt: number, n: number, text: string): StreamEvent => ({
    type: 'delta',
    step,
    attempt,
    n,
    delta: { type: 'text', text },
  });

  it('appends deltas, takes back a voided attempt, and checks each step against its durable text', () => {
    const { chunks, acc } = run([
      d(1, 1, 0, 'Hel'),
      { type: 'attempt_voided', step: 1, attempt: 1, reason: 'x' },
      d(1, 2, 0, 'Hello'),
      stamp({ type: 'text', step: 1, text: 'Hello, world' }) as StreamEvent,
      d(1, 2, 1, ' late'),
    ]);
    expect(chunks).toEqual([
      { type: 'text', step: 1, text: 'Hel' },
      { type: 'reset', step: 1, text: '' },
      { type: 'text', step: 1, text: 'Hello' },
      { type: 'text', step: 1, text: ', world' },
    ]);
    expect(acc.textOf(1)).toBe('Hello, world');
  });

  it('replaces text that disagrees with the durable text, and gives a late reader the whole text', () => {
    expect(run([d(2, 1, 0, 'Hxllo'), stamp({ type: 'text', step: 2, text: 'Hello' }) as StreamEvent]).chunks.at(-1)).toEqual({
      type: 'reset',
      step: 2,
      text: 'Hello',
    });
    expect(run([stamp({ type: 'text', step: 2, text: 'Hello' }) as StreamEvent]).chunks).toEqual([
      { type: 'text', step: 2, text: 'Hello' },
    ]);
  });
});

describe('merge', () => {
  it('yields from every source as items arrive and ends when all end', async () => {
    async function* slow(items: string[], ms: number) {
      for (const i of items) {
        await new Promise((r) => setTimeout(r, ms));
        yield i;
      }
    }
    const out: string[] = [];
    for await (const x of merge(slow(['a1', 'a2'], 30), slow(['b1', 'b2', 'b3'], 5))) out.push(x);
    expect([...out].sort()).toEqual(['a1', 'a2', 'b1', 'b2', 'b3']);
    expect(out.indexOf('b3')).toBeLessThan(out.indexOf('a2'));
  });
});

describe('LiveFilter: an answer an output guardrail rejected', () => {
  it('voids the attempt that streamed it, after its step finished, and the text shown is taken back', () => {
    const f = new LiveFilter();
    const text = new TextAccumulator();
    const chunks = [
      ...text.push(f.delta(delta(1, 2, 0, 'the key is sk-'))!),
      ...f
        .durable(stamp({ type: 'step_finished', step: 1, stopReason: 'end_turn', usage: ZERO_USAGE, latencyMs: 1 }))
        .flatMap((e) => text.push(e)),
    ];
    const voided = f.durable(
      stamp({
        type: 'guardrail',
        kind: 'output',
        step: 1,
        name: 'no_secrets',
        pass: false,
        reason: 'An API key.',
        tripwire: true,
        action: 'ended',
      }),
    );
    expect(voided.slice(1)).toEqual([
      { type: 'attempt_voided', step: 1, attempt: 2, reason: 'the answer failed the output guardrail "no_secrets": An API key.' },
    ]);
    chunks.push(...voided.flatMap((e) => text.push(e)));
    expect(chunks.at(-1)).toEqual({ type: 'reset', step: 1, text: '' });
    expect(text.textOf(1)).toBe('');
    // A logged (not ending) failure voids nothing.
    expect(
      f.durable(
        stamp({ type: 'guardrail', kind: 'output', step: 1, name: 'x', pass: false, reason: 'r', tripwire: false, action: 'logged' }),
      ),
    ).toHaveLength(1);
  });
});

describe('LiveFilter: tool progress', () => {
  const progress = (callId: string, attempt: number, n: number, message: string, step = 1): LiveDelta => ({
    workflowId: 'w',
    step,
    attempt,
    n,
    callId,
    delta: { type: 'tool_progress', tool: 'scan', message, ...(n === 1 ? { fraction: 0.5 } : {}) },
  });

  it('passes progress after its step finished, once and in order, and drops it after the call’s tool_result', () => {
    const f = new LiveFilter();
    f.durable(stamp({ type: 'step_finished', step: 1, stopReason: 'tool_use', usage: ZERO_USAGE, latencyMs: 1 }));
    expect(f.delta(progress('c1', 1, 0, 'start'))).toEqual({
      type: 'tool_progress',
      step: 1,
      callId: 'c1',
      tool: 'scan',
      attempt: 1,
      n: 0,
      message: 'start',
    });
    expect(f.delta(progress('c1', 1, 0, 'start'))).toBeUndefined();
    expect(f.delta(progress('c1', 1, 1, 'half'))).toMatchObject({ n: 1, message: 'half', fraction: 0.5 });
    expect(f.delta(progress('c2', 1, 0, 'other call'))).toMatchObject({ callId: 'c2' });
    f.durable(
      stamp({
        type: 'tool_result',
        step: 1,
        callId: 'c1',
        tool: 'scan',
        isError: false,
        preview: '',
        bytes: 0,
        stored: false,
        latencyMs: 1,
        attempts: 1,
      }),
    );
    expect(f.delta(progress('c1', 1, 2, 'late'))).toBeUndefined();
    expect(f.delta(progress('c2', 1, 1, 'still running'))).toBeDefined();
    f.durable(stamp({ type: 'done', status: 'completed', steps: 1, usage: ZERO_USAGE, costUsd: 0, finalText: '' }));
    expect(f.delta(progress('c2', 1, 2, 'after the end'))).toBeUndefined();
  });

  it('voids an attempt’s progress once a later attempt of the call reported', () => {
    const f = new LiveFilter();
    expect(f.delta(progress('c1', 1, 3, 'attempt 1'))).toBeDefined();
    expect(f.delta(progress('c1', 2, 0, 'attempt 2'))).toMatchObject({ attempt: 2, n: 0 });
    expect(f.delta(progress('c1', 1, 4, 'attempt 1, read late'))).toBeUndefined();
    expect(f.delta(progress('c1', 2, 1, 'attempt 2 goes on'))).toMatchObject({ attempt: 2, n: 1 });
  });

  it('leaves a step’s model deltas to the step rule (progress does not reopen the step)', () => {
    const f = new LiveFilter();
    f.durable(stamp({ type: 'text', step: 1, text: 'x' }));
    expect(f.delta(progress('c1', 1, 0, 'p'))).toBeDefined();
    expect(f.delta(delta(1, 1, 0, 'late text'))).toBeUndefined();
  });
});
