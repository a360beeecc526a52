/**
 * Live streams on the client: the run's durable events merged with live deltas, with the rules that make
 * them exact — a delta of an attempt that failed, of a step already finished, or seen twice is dropped;
 * a failed attempt, or an answer an output guardrail rejected (ending the run), is announced as void;
 * text helpers show only what survives.
 */
import type { AgentEvent } from '../core/events/events';
import type { AnyToolCall, ToolCallShape } from '../core/run/result';
import type { AttemptVoidedEvent, DeltaEvent, LiveDelta, TextChunk, ToolLiveDelta, ToolProgressDelta } from '../core/events/stream';

/** Whether a live delta is a tool's progress (here, not beside the types: `core/events/stream` is exported as types only). */
function isToolLiveDelta(d: LiveDelta): d is ToolLiveDelta {
  return d.delta.type === 'tool_progress';
}

/** What `run.stream()` yields: durable events (numbered by `seq`), live deltas, voided attempts, and running tools' progress. */
export type StreamEvent<C extends ToolCallShape = AnyToolCall> = AgentEvent<C> | DeltaEvent | AttemptVoidedEvent | ToolProgressDelta;

const key = (step: number, attempt: number) => `${step}/${attempt}`;

/** Puts durable events and deltas together into one exact stream (pure: feed it both, in arrival order). */
export class LiveFilter<C extends ToolCallShape = AnyToolCall> {
  private readonly finished = new Set<number>();
  private readonly voided = new Set<string>();
  private readonly next = new Map<string, number>();
  /** Attempts that streamed something and have not finished or been voided. */
  private readonly open = new Map<string, { step: number; attempt: number }>();
  /** The attempts that streamed something, by step (a finished step's answer may still be rejected). */
  private readonly streamed = new Map<number, Set<number>>();

  /** Tool calls whose result is recorded (their progress is over), by call id. */
  private readonly toolsDone = new Set<string>();
  /** The newest attempt of each running tool call that reported progress, and its next update number. */
  private readonly toolNext = new Map<string, { attempt: number; n: number }>();
  private ended = false;

  /** A durable event, and the voided attempt it implies. */
  durable(e: AgentEvent<C>): Array<StreamEvent<C>> {
    const out: Array<StreamEvent<C>> = [e];
    if (e.type === 'tool_result') {
      this.toolsDone.add(e.callId);
      this.toolNext.delete(e.callId);
    } else if (e.type === 'done') this.ended = true;
    if (e.type === 'retrying') out.push(...this.void(e.step, e.attempt, `the attempt failed: ${e.error}`));
    else if (e.type === 'step_finished' || e.type === 'text') {
      // The step's answer is recorded (its text comes whole just before step_finished): no more deltas.
      this.finished.add(e.step);
      for (const [k, a] of this.open) if (a.step === e.step) this.open.delete(k);
    } else if (e.type === 'guardrail' && e.kind === 'output' && e.action === 'ended') {
      // The step's answer was rejected: what was streamed of it is void too.
      for (const attempt of this.streamed.get(e.step) ?? [])
        out.push(...this.void(e.step, attempt, `the answer failed the output guardrail "${e.name}": ${e.reason}`));
    } else if (e.type === 'done') {
      for (const a of [...this.open.values()])
        out.push(...this.void(a.step, a.attempt, `the run ended (${e.status}) before the answer was complete`));
    }
    return out;
  }

  /**
   * A live delta as a stream event, or undefined when it must not be shown. A tool's progress is not
   * bound to its step's end (tools run after `step_finished`): it is dropped once the call's `tool_result`
   * came, when a later attempt of the call already reported, or when seen before.
   */
  delta(d: LiveDelta): DeltaEvent | ToolProgressDelta | undefined {
    if (isToolLiveDelta(d)) return this.progress(d);
    const k = key(d.step, d.attempt);
    if (this.finished.has(d.step) || this.voided.has(k) || d.n < (this.next.get(k) ?? 0)) return undefined;
    this.next.set(k, d.n + 1);
    this.open.set(k, { step: d.step, attempt: d.attempt });
    const attempts = this.streamed.get(d.step) ?? new Set<number>();
    this.streamed.set(d.step, attempts.add(d.attempt));
    return { type: 'delta', step: d.step, attempt: d.attempt, n: d.n, delta: d.delta };
  }

  private progress(d: ToolLiveDelta): ToolProgressDelta | undefined {
    if (this.ended || this.toolsDone.has(d.callId)) return undefined;
    const now = this.toolNext.get(d.callId);
    if (now && (d.attempt < now.attempt || (d.attempt === now.attempt && d.n < now.n))) return undefined;
    this.toolNext.set(d.callId, { attempt: d.attempt, n: d.n + 1 });
    const { type, tool, message, fraction, data } = d.delta;
    return {
      type,
      step: d.step,
      callId: d.callId,
      tool,
      attempt: d.attempt,
      n: d.n,
      message,
      ...(fraction !== undefined ? { fraction } : {}),
      ...(data !== undefined ? { data } : {}),
    };
  }

  private void(step: number, attempt: number, reason: string): AttemptVoidedEvent[] {
    const k = key(step, attempt);
    if (this.voided.has(k)) return [];
    this.voided.add(k);
    this.open.delete(k);
    return [{ type: 'attempt_voided', step, attempt, reason }];
  }
}

/**
 * The answer text of a run as it should be shown: deltas appended, a voided attempt's text taken back, and
 * each step's text checked against the durable `text` event (a reader that missed deltas, or attached
 * late, gets the step's text whole).
 */
export class TextAccumulator {
  private readonly shown = new Map<number, { attempt: number; text: string }>();
  /** Steps whose text is final (their durable `text` event came). */
  private readonly final = new Set<number>();

  /** The text chunks one stream event brings. */
  push<C extends ToolCallShape>(e: StreamEvent<C>): TextChunk[] {
    if (e.type === 'delta') {
      if (e.delta.type !== 'text' || this.final.has(e.step)) return [];
      const now = this.shown.get(e.step);
      const out: TextChunk[] = [];
      if (now && now.attempt !== e.attempt && now.text) out.push({ type: 'reset', step: e.step, text: '' });
      const text = (now && now.attempt === e.attempt ? now.text : '') + e.delta.text;
      this.shown.set(e.step, { attempt: e.attempt, text });
      out.push({ type: 'text', step: e.step, text: e.delta.text });
      return out;
    }
    if (e.type === 'attempt_voided') {
      const now = this.shown.get(e.step);
      if (!now || now.attempt !== e.attempt) return [];
      this.shown.set(e.step, { attempt: -1, text: '' });
      return now.text ? [{ type: 'reset', step: e.step, text: '' }] : [];
    }
    if (e.type === 'text') {
      this.final.add(e.step);
      const now = this.shown.get(e.step)?.text ?? '';
      this.shown.set(e.step, { attempt: 0, text: e.text });
      if (now === e.text) return [];
      if (e.text.startsWith(now)) return [{ type: 'text', step: e.step, text: e.text.slice(now.length) }];
      return [{ type: 'reset', step: e.step, text: e.text }];
    }
    return [];
  }

  /** The whole text shown for `step` so far. */
  textOf(step: number): string {
    return this.shown.get(step)?.text ?? '';
  }
}

/** Merge async iterables into one, in arrival order; ends when all end (or when the consumer stops). */
export function merge<T>(...sources: Array<AsyncIterable<T>>): AsyncGenerator<T> {
  return mergeGrowing(sources);
}

/**
 * Merge async iterables into one, in arrival order, where `seen` may add sources as values pass (it gets
 * each value, the index of its source, and `add`). Every value of each source once, in its source's order;
 * ends when all sources end (or when the consumer stops, which closes them all).
 */
export async function* mergeGrowing<T>(
  sources: ReadonlyArray<AsyncIterable<T>>,
  seen?: (value: T, from: number, add: (source: AsyncIterable<T>) => void) => void,
): AsyncGenerator<T> {
  const iterators: Array<AsyncIterator<T>> = [];
  const pending = new Map<number, Promise<{ i: number; r: IteratorResult<T> }>>();
  const pull = (i: number) =>
    pending.set(
      i,
      iterators[i]!.next().then((r) => ({ i, r })),
    );
  const add = (source: AsyncIterable<T>) => {
    iterators.push(source[Symbol.asyncIterator]());
    pull(iterators.length - 1);
  };
  sources.forEach(add);
  try {
    while (pending.size > 0) {
      const { i, r } = await Promise.race(pending.values());
      if (r.done) {
        pending.delete(i);
        continue;
      }
      pull(i);
      seen?.(r.value, i, add);
      yield r.value;
    }
  } finally {
    for (const it of iterators) void it.return?.(undefined)?.catch(() => undefined);
  }
}
