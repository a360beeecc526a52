/** The context rules (core/context.ts, core/compaction.ts): estimates, split points, the view, stubs. */
import { describe, expect, it } from 'vitest';
import { compactionDue, nextCallEstimate, rebasedContext } from '../../src/core/context/compaction';
import type { ContextSpec } from '../../src/core/context/context';
import {
  anchorAt,
  compacted,
  compactionFailed,
  contextView,
  isSplitPoint,
  messagesTokens,
  splitPoint,
  stubbedThrough,
  SUMMARY_HEADER,
  summaryRequestText,
} from '../../src/core/context/context';
import type { Message } from '../../src/core/messages/messages';
import type { LoopState } from '../../src/core/loop/state';
import { startLoop } from '../../src/core/loop/state';
import { ZERO_USAGE } from '../../src/core/budget/usage';

const user = (text: string): Message => ({ role: 'user', content: [{ type: 'text', text }] });
const say = (text: string): Message => ({ role: 'assistant', content: [{ type: 'text', text }] });
const call = (id: string): Message => ({ role: 'assistant', content: [{ type: 'tool_use', id, name: 'read', input: { id } }] });
const result = (id: string, text: string): Message => ({
  role: 'user',
  content: [{ type: 'tool_result', toolUseId: id, output: { type: 'text', text }, isError: false }],
});

/** user turn, then `steps` tool steps with outputs of `chars` characters, then an answer. */
function conversation(steps: number, chars: number, first = 'do it'): Message[] {
  const m: Message[] = [user(first)];
  for (let i = 1; i <= steps; i++) m.push(call(`c${i}`), result(`c${i}`, `${i}:`.padEnd(chars, 'x')));
  return m;
}

/** Every tool call in `view` has its result right after it, and every result follows its call. */
function pairsIntact(view: Message[]): boolean {
  for (let i = 0; i < view.length; i++) {
    const m = view[i]!;
    for (const b of m.content) {
      if (b.type === 'tool_use' && !view[i + 1]?.content.some((r) => r.type === 'tool_result' && r.toolUseId === b.id)) return false;
      if (b.type === 'tool_result' && !view[i - 1]?.content.some((u) => u.type === 'tool_use' && u.id === b.toolUseId)) return false;
    }
  }
  return true;
}

const SPEC: ContextSpec = { windowTokens: 10_000, compactAt: 0.8, keepRecentTokens: 2_000, keepToolResults: 3, summarize: true };

describe('split points', () => {
  it('never split a tool call from its result', () => {
    const m = conversation(3, 10);
    expect(m.map((_, i) => isSplitPoint(m, i))).toEqual([true, true, false, true, false, true, false]);
  });

  it('keep the most recent tokens verbatim and summarise the rest, at a step boundary when no user turn fits', () => {
    const m = conversation(20, 400); // ~110 tokens a step
    const split = splitPoint(m, 0, 1000)!;
    expect(m[split]!.role).toBe('assistant');
    expect(messagesTokens(m.slice(split))).toBeLessThanOrEqual(1000);
    expect(messagesTokens(m.slice(split - 2))).toBeGreaterThan(1000);
    expect(pairsIntact(contextView(m, { from: split, keepToolResults: 0 }, 21, 'sum'))).toBe(true);
  });

  it('prefer a user-turn boundary that keeps enough', () => {
    const m = [...conversation(10, 400), say('done'), user('next task'), ...conversation(3, 400).slice(1)];
    expect(m[splitPoint(m, 0, 600)!]).toEqual(user('next task'));
    // A turn that keeps less than half of what may be kept is not worth it: the step boundary stays.
    expect(m[splitPoint(m, 0, 1000)!]!.role).toBe('assistant');
  });

  it('find nothing to summarise when only the newest step is after the start', () => {
    const m = conversation(1, 400);
    expect(splitPoint(m, 1, 10)).toBeUndefined();
    expect(splitPoint(m, 0, 10)).toBe(1);
  });
});

describe('the view the model is shown', () => {
  it('is the whole transcript with nothing to stub or summarise', () => {
    const m = conversation(2, 2000);
    expect(contextView(m, { from: 0, keepToolResults: 10 }, 3)).toEqual(m);
  });

  it('stubs results of old steps in blocks of keepToolResults (small ones stay whole), never the recent ones', () => {
    expect([4, 7, 8, 10, 11, 13, 14].map((s) => stubbedThrough(s, 3))).toEqual([0, 3, 3, 6, 6, 9, 9]);
    expect(stubbedThrough(100, 0)).toBe(0);
    const m = [...conversation(8, 2000), call('small'), result('small', 'tiny')];
    const view = contextView(m, { from: 0, keepToolResults: 3 }, 10);
    const texts = view.flatMap((x) =>
      x.content.flatMap((b) => (b.type === 'tool_result' && b.output.type === 'text' ? [b.output.text] : [])),
    );
    expect(texts.slice(0, 6).every((t) => t.startsWith('[Earlier tool result omitted to save context: 2000 characters'))).toBe(true);
    expect(texts.slice(0, 6).every((t) => /call c\d/.test(t))).toBe(true);
    expect(texts.slice(6, 8).every((t) => t.length === 2000)).toBe(true);
    expect(texts[8]).toBe('tiny');
    expect(messagesTokens(view)).toBeLessThan(messagesTokens(m) / 2);
    expect(pairsIntact(view)).toBe(true);
  });

  it('names the stored blob of a stored output in its stub', () => {
    const stored: Message = {
      role: 'user',
      content: [
        {
          type: 'tool_result',
          toolUseId: 'c1',
          output: { type: 'stored', ref: 'sha256-abc', bytes: 90_000, preview: 'p' },
          isError: false,
        },
      ],
    };
    const view = contextView(
      [user('go'), call('c1'), stored, call('c2'), result('c2', 'x'), call('c3')],
      { from: 0, keepToolResults: 1 },
      4,
    );
    expect(JSON.stringify(view[2])).toMatch(/90000 characters, stored as sha256-abc/);
  });

  it('opens with the summary: merged into a first user turn, else a user message of its own', () => {
    const m = [user('a'), say('b'), user('c'), call('c1'), result('c1', 'r')];
    const onTurn = contextView(m, { from: 2, keepToolResults: 0 }, 3, 'S');
    expect(onTurn[0]).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: `${SUMMARY_HEADER}\n\nS` },
        { type: 'text', text: 'c' },
      ],
    });
    expect(onTurn).toHaveLength(3);
    const onStep = contextView(m, { from: 3, keepToolResults: 0 }, 3, 'S');
    expect(onStep.map((x) => x.role)).toEqual(['user', 'assistant', 'user']);
    expect(pairsIntact(onStep)).toBe(true);
  });
});

describe('the summariser request', () => {
  it('renders messages as text with the previous summary, cutting long results', () => {
    const text = summaryRequestText('before', [user('goal'), call('c1'), result('c1', 'y'.repeat(5000))], 100_000);
    expect(text).toMatch(/^Summary of the conversation before this part:\nbefore/);
    expect(text).toMatch(/User: goal/);
    expect(text).toMatch(/Assistant called read \(call c1\) with \{"id":"c1"\}/);
    expect(text).toMatch(/Tool result \(call c1\): y{2000}… \[5000 characters in all\]/);
  });

  it('leaves out the oldest messages past its budget, and says how many', () => {
    const m = conversation(50, 1500);
    const text = summaryRequestText(undefined, m, 20_000);
    expect(text.length).toBeLessThanOrEqual(20_000);
    expect(text).toMatch(/\[\d+ earlier message\(s\) left out: too long to summarise at once\]/);
    expect(text).toMatch(/call c50/);
  });
});

describe('token accounting and when to compact', () => {
  const loopWith = (messages: Message[], patch: Partial<LoopState> = {}): LoopState => ({
    ...startLoop({ name: 'a', limits: { maxSteps: 100, toolResultInlineBytes: 0 } }, 'x'),
    messages,
    ...patch,
  });

  it('anchors on the provider count and estimates only newer messages', () => {
    const m = conversation(2, 4000);
    const loop = loopWith(m, {
      context: anchorAt(undefined, { ...ZERO_USAGE, inputTokens: 900, cacheReadTokens: 100, outputTokens: 50 }, 4),
    });
    expect(nextCallEstimate(loop)).toBe(1050 + messagesTokens(m.slice(4)));
    // After continue-as-new only recent messages are in memory: the anchor counts from the whole transcript.
    const later = loopWith(m.slice(2), {
      earlier: { messages: 2, steps: 0, toolCalls: 0, costUsd: 0, unpricedSteps: 0 },
      context: loop.context!,
    });
    expect(nextCallEstimate(later)).toBe(nextCallEstimate(loop));
    expect(rebasedContext(later)?.anchor).toEqual({ tokens: nextCallEstimate(loop), messages: 5 });
  });

  it('compacts past compactAt of a known window, not with an unknown one or summaries off, and waits after a failure', () => {
    const big = loopWith(conversation(20, 2000));
    expect(compactionDue(big, SPEC)).toBe(true);
    expect(compactionDue(loopWith(conversation(2, 2000)), SPEC)).toBe(false);
    expect(compactionDue(big, { ...SPEC, windowTokens: undefined })).toBe(false);
    expect(compactionDue(big, { ...SPEC, summarize: false })).toBe(false);
    expect(compactionDue(big, undefined)).toBe(false);
    const failed = { ...big, step: 10, context: compactionFailed(undefined, 10) };
    expect(compactionDue(failed, SPEC)).toBe(false);
    expect(compactionDue({ ...failed, step: 14 }, SPEC)).toBe(true);
  });

  it('re-anchors on the estimate after a compaction and adds up what summaries cost', () => {
    const once = compacted(
      undefined,
      { summaryRef: 's1', from: 9, usage: { ...ZERO_USAGE, inputTokens: 10 }, costUsd: 0.5, tokensAfter: 300 },
      12,
    );
    const twice = compacted(
      once,
      { summaryRef: 's2', from: 15, usage: { ...ZERO_USAGE, outputTokens: 5 }, costUsd: 0.25, tokensAfter: 400 },
      20,
    );
    expect(twice).toEqual({
      summaryRef: 's2',
      from: 15,
      anchor: { tokens: 400, messages: 20 },
      compactions: 2,
      usage: { ...ZERO_USAGE, inputTokens: 10, outputTokens: 5 },
      costUsd: 0.75,
    });
  });
});
