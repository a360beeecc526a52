/**
 * The chat turn translator: run stream events of one turn to the AI SDK's UI message chunks — the chunk
 * rules, resets of voided attempts and of missed deltas, approvals, endings, and cursors that resume after
 * any chunk with exactly the rest. Chunks are applied with `MessageAssembler`, which throws as the AI SDK
 * does on a delta without its start.
 */
import { describe, expect, it } from 'vitest';
import type { UIMessage, UIMessageChunk } from 'ai' with { 'resolution-mode': 'import' };
import type { AgentEvent, AgentEventBody } from '../../src/core/events/events';
import type { DeltaEvent } from '../../src/core/events/stream';
import type { ChatChunk, ChatMessage, CursoredChunk } from '../../src/core/chat/ui-message-chunks';
import type { ChatStreamEvent } from '../../src/core/chat/turn-translator';
import { TurnTranslator } from '../../src/core/chat/turn-translator';
import { MessageAssembler } from '../../src/core/chat/apply-chunks';
import { parseCursor } from '../../src/core/chat/cursor';
import { chatHistory, lastTurnStatus } from '../../src/core/chat/history';

const AT = '2026-01-01T00:00:00.000Z';
const usage = { inputTokens: 1, outputTokens: 1 } as unknown as Extract<AgentEventBody, { type: 'step_finished' }>['usage'];

/** Number a list of event bodies from `from` (deltas and voids pass as they are). */
function log(
  items: Array<AgentEventBody | DeltaEvent | { type: 'attempt_voided'; step: number; attempt: number; reason: string }>,
  from = 0,
): ChatStreamEvent[] {
  let seq = from;
  return items.map((e) => (e.type === 'delta' || e.type === 'attempt_voided' ? e : ({ ...e, seq: seq++, at: AT } as AgentEvent)));
}
const delta = (step: number, attempt: number, n: number, text: string): DeltaEvent => ({
  type: 'delta',
  step,
  attempt,
  n,
  delta: { type: 'text', text },
});
const user = (turn: number, text: string): AgentEventBody => ({ type: 'user_message', turn, text, via: 'signal', by: 'user:a' });
const started = (step: number, attempt = 1): AgentEventBody => ({ type: 'step_started', step, provider: 'p', model: 'm', attempt });
const text = (step: number, t: string): AgentEventBody => ({ type: 'text', step, text: t });
const finished = (step: number): AgentEventBody => ({ type: 'step_finished', step, stopReason: 'end_turn', usage, latencyMs: 1 });
const awaiting = (turn: number): AgentEventBody => ({ type: 'awaiting_message', turn });
const result = (step: number, callId: string, tool: string, preview: string, isError = false): AgentEventBody => ({
  type: 'tool_result',
  step,
  callId,
  tool,
  isError,
  preview,
  bytes: preview.length,
  stored: false,
  latencyMs: 1,
  attempts: 1,
});

function translate(events: ChatStreamEvent[], turnStart = 1, after?: string): { out: CursoredChunk[]; t: TurnTranslator } {
  const t = new TurnTranslator({ chatId: 'c', turnStart, ...(after ? { after: parseCursor(after)! } : {}) });
  const out: CursoredChunk[] = [];
  for (const e of events) out.push(...t.push(e));
  return { out, t };
}
function assemble(chunks: ReadonlyArray<ChatChunk | CursoredChunk>, into?: MessageAssembler): ChatMessage {
  const a = into ?? new MessageAssembler();
  for (const c of chunks) a.apply('chunk' in c ? c.chunk : c);
  return a.message;
}
const textOf = (m: ChatMessage) => m.parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('');
const types = (out: CursoredChunk[]) => out.map((c) => c.chunk.type);

const ANSWER = 'Hello there, friend.';
const simple = log([
  { type: 'run_started', agent: 'a', model: 'p/m', maxSteps: 10 },
  user(1, 'hi'),
  started(1),
  delta(1, 1, 0, 'Hello '),
  delta(1, 1, 1, 'there, '),
  text(1, ANSWER),
  finished(1),
  awaiting(1),
]);

const approval = log(
  [
    user(1, 'deploy'),
    started(1),
    text(1, 'Deploying.'),
    finished(1),
    { type: 'tool_call', step: 1, callId: 'call-1', tool: 'deploy', args: { service: 'api' } },
    { type: 'tool_call', step: 1, callId: 'call-2', tool: 'echo', args: { text: 'x' } },
    { type: 'approval_requested', step: 1, callId: 'call-1', tool: 'deploy', args: { service: 'api' } },
    result(1, 'call-2', 'echo', 'x'),
  ],
  1,
);

describe('turn translator', () => {
  it('a streamed answer: start (stable id), start-step, text-start before its deltas, the rest of the durable text, finish', () => {
    const { out, t } = translate(simple);
    expect(types(out)).toEqual([
      'start',
      'start-step',
      'text-start',
      'text-delta',
      'text-delta',
      'text-delta',
      'text-end',
      'finish-step',
      'finish',
    ]);
    expect(out[0]!.chunk).toEqual({ type: 'start', messageId: 'c:1' });
    expect(out.at(-1)!.chunk).toEqual({ type: 'finish', finishReason: 'stop' });
    expect(textOf(assemble(out))).toBe(ANSWER);
    expect(t.ended).toBe(true);
  });

  it('a voided attempt is reset (reset-step) and its text vanishes; the retry shows exactly the transcript', () => {
    const events = log(
      [
        user(1, 'hi'),
        started(1),
        delta(1, 1, 0, 'Wrong answ'),
        { type: 'retrying', step: 1, attempt: 1, error: 'reset', delayMs: 10, nextModel: 'p/m' },
        { type: 'attempt_voided', step: 1, attempt: 1, reason: 'failed' },
        started(1, 2),
        delta(1, 2, 0, 'Hello '),
        text(1, ANSWER),
        finished(1),
        awaiting(1),
      ],
      1,
    );
    const { out } = translate(events);
    expect(types(out).filter((x) => x === 'reset-step')).toHaveLength(1);
    expect(types(out).filter((x) => x === 'start-step')).toHaveLength(1);
    const m = assemble(out);
    expect(textOf(m)).toBe(ANSWER);
    expect(m.parts.filter((p) => p.type === 'text')).toHaveLength(1);
  });

  it("a new attempt's deltas before its retrying event reset the step too", () => {
    const events = log(
      [user(1, 'hi'), started(1), delta(1, 1, 0, 'Wrong'), delta(1, 2, 0, 'Hello '), text(1, ANSWER), finished(1), awaiting(1)],
      1,
    );
    const { out } = translate(events);
    expect(types(out)).toContain('reset-step');
    expect(textOf(assemble(out))).toBe(ANSWER);
  });

  it('missed deltas (what was shown is no prefix of the durable text): reset-step and the whole text again', () => {
    const events = log(
      [user(1, 'hi'), started(1), delta(1, 1, 0, 'Hello '), delta(1, 1, 3, 'friend'), text(1, ANSWER), finished(1), awaiting(1)],
      1,
    );
    const { out } = translate(events);
    const reset = types(out).indexOf('reset-step');
    expect(reset).toBeGreaterThan(0);
    expect(out.slice(reset + 1).map((c) => c.chunk)).toContainEqual({ type: 'text-delta', id: 'text-1', delta: ANSWER });
    expect(textOf(assemble(out))).toBe(ANSWER);
  });

  it('no deltas at all (a late reader): the durable text whole, no reset', () => {
    const events = log([user(1, 'hi'), started(1), text(1, ANSWER), finished(1), awaiting(1)], 1);
    const { out } = translate(events);
    expect(types(out)).not.toContain('reset-step');
    expect(textOf(assemble(out))).toBe(ANSWER);
  });

  it('reasoning streams as reasoning parts, closed before the text', () => {
    const events = log(
      [
        user(1, 'hi'),
        started(1),
        { type: 'delta', step: 1, attempt: 1, n: 0, delta: { type: 'thinking', text: 'Let me think.' } },
        delta(1, 1, 1, 'Hello '),
        text(1, ANSWER),
        finished(1),
        awaiting(1),
      ],
      1,
    );
    const { out } = translate(events);
    expect(types(out).slice(0, 6)).toEqual(['start', 'start-step', 'reasoning-start', 'reasoning-delta', 'reasoning-end', 'text-start']);
    const m = assemble(out);
    expect(m.parts.map((p) => p.type)).toEqual(['step-start', 'reasoning', 'text']);
  });

  it('tool arguments stream (tool-input-start/delta) under a provisional id, replaced at the step end by the durable call', () => {
    const events = log(
      [
        user(1, 'deploy'),
        started(1),
        delta(1, 1, 0, 'Deploying.'),
        { type: 'delta', step: 1, attempt: 1, n: 1, delta: { type: 'tool_args', call: 0, tool: 'deploy', json: '{"service":' } },
        { type: 'delta', step: 1, attempt: 1, n: 2, delta: { type: 'tool_args', call: 0, json: '"api"}' } },
        text(1, 'Deploying.'),
        finished(1),
        { type: 'tool_call', step: 1, callId: 'call-1', tool: 'deploy', args: { service: 'api' } },
        { type: 'tool_started', step: 1, callId: 'call-1', tool: 'deploy' },
        result(1, 'call-1', 'deploy', 'deployed api'),
        started(2),
        text(2, 'Done.'),
        finished(2),
        awaiting(1),
      ],
      1,
    );
    const { out } = translate(events);
    expect(types(out)).toContain('tool-input-start');
    expect(types(out)).toContain('tool-input-delta');
    const m = assemble(out);
    const tools = m.parts.filter((p) => p.type === 'tool-deploy');
    expect(tools).toEqual([
      { type: 'tool-deploy', toolCallId: 'call-1', state: 'output-available', input: { service: 'api' }, output: 'deployed api' },
    ]);
    expect(textOf(m)).toBe('Deploying.Done.');
    expect(m.parts.filter((p) => p.type === 'step-start')).toHaveLength(2);
  });

  it("a running tool's progress is a transient data-tool-progress part (held until its call is known), none after its result", async () => {
    const progress = (n: number, message: string): ChatStreamEvent => ({
      type: 'tool_progress',
      step: 1,
      callId: 'call-1',
      tool: 'scan',
      attempt: 1,
      n,
      message,
      fraction: 0.5,
    });
    const events = log([user(1, 'scan'), started(1), text(1, 'Scanning.'), finished(1)], 1);
    const { out, t } = translate(events);
    const more = [
      progress(0, 'early'), // before the call's durable events were read
      ...log(
        [
          { type: 'tool_call', step: 1, callId: 'call-1', tool: 'scan', args: {} },
          { type: 'tool_started', step: 1, callId: 'call-1', tool: 'scan' },
        ],
        5,
      ),
      progress(1, 'halfway'),
      ...log([result(1, 'call-1', 'scan', 'scanned')], 7),
      progress(2, 'after the result'),
    ].flatMap((e) => t.push(e));
    const data = more.filter((c) => c.chunk.type === 'data-tool-progress').map((c) => c.chunk);
    expect(data).toEqual([
      {
        type: 'data-tool-progress',
        id: 'call-1',
        transient: true,
        data: { toolCallId: 'call-1', toolName: 'scan', attempt: 1, message: 'early', fraction: 0.5 },
      },
      {
        type: 'data-tool-progress',
        id: 'call-1',
        transient: true,
        data: { toolCallId: 'call-1', toolName: 'scan', attempt: 1, message: 'halfway', fraction: 0.5 },
      },
    ]);
    expect(types(more).indexOf('data-tool-progress')).toBeGreaterThan(types(more).indexOf('tool-input-available'));
    // Transient: not a part of the message, here and for the AI SDK (which accepts the chunks as they are).
    const m = assemble([...out, ...more]);
    expect(m.parts.map((p) => p.type)).not.toContain('data-tool-progress');
    const ai = await import('ai');
    const chunks = [...out, ...more].map((c) => c.chunk) as unknown as Array<UIMessageChunk>;
    const stream = new ReadableStream<UIMessageChunk>({
      start(controller) {
        for (const c of chunks) controller.enqueue(c);
        controller.close();
      },
    });
    let last: UIMessage | undefined;
    for await (const message of ai.readUIMessageStream({ stream, terminateOnError: true })) last = message;
    expect(last?.parts.map((p) => p.type)).toEqual(['step-start', 'text', 'tool-scan']);
  });

  it('an approval: tool-approval-request (approvalId = callId); paused once every call of the step has its result or waits; finish tool-calls', () => {
    const t = new TurnTranslator({ chatId: 'c', turnStart: 1 });
    const out: CursoredChunk[] = [];
    const pausedAfter: boolean[] = [];
    for (const e of approval) {
      out.push(...t.push(e));
      pausedAfter.push(t.paused);
    }
    // Not paused while echo still runs; paused after its result.
    expect(pausedAfter.slice(-2)).toEqual([false, true]);
    expect(out.map((c) => c.chunk)).toContainEqual({ type: 'tool-approval-request', approvalId: 'call-1', toolCallId: 'call-1' });
    const end = t.finishPaused();
    expect(end.map((c) => c.chunk)).toEqual([{ type: 'finish', finishReason: 'tool-calls' }]);
    const m = assemble([...out, ...end]);
    expect(m.parts.find((p) => p.type === 'tool-deploy')).toMatchObject({ state: 'approval-requested', approval: { id: 'call-1' } });
    expect(t.lastPause).toBe(out.at(-1)!.cursor);
  });

  it('the continuation after a decision (from the pause cursor) goes on with the same message: response, output, next step', () => {
    const first = translate(approval);
    const asked = assemble(first.out);
    const rest = log(
      [
        {
          type: 'approval_decided',
          step: 1,
          callId: 'call-1',
          tool: 'deploy',
          decision: 'approve',
          by: 'user:a',
          via: 'update',
          sticky: false,
        },
        { type: 'tool_started', step: 1, callId: 'call-1', tool: 'deploy' },
        result(1, 'call-1', 'deploy', 'deployed api'),
        started(2),
        text(2, 'Done.'),
        finished(2),
        awaiting(1),
      ],
      1 + approval.length,
    );
    const cont = translate([...approval, ...rest], 1, first.t.lastPause);
    expect(cont.out[0]!.chunk).toEqual({ type: 'start', messageId: 'c:1' });
    expect(cont.out[1]!.chunk).toEqual({ type: 'tool-approval-response', approvalId: 'call-1', approved: true });
    const a = new MessageAssembler();
    assemble(first.out, a);
    const m = assemble(cont.out, a);
    expect(m.id).toBe(asked.id);
    expect(m.parts.find((p) => p.type === 'tool-deploy')).toMatchObject({
      state: 'output-available',
      approval: { id: 'call-1', approved: true },
    });
    expect(textOf(m)).toBe('Deploying.Done.');
  });

  it('a denial (or an expiry) shows approval-response approved:false and tool-output-denied; the denied result is not shown', () => {
    for (const ending of [
      {
        type: 'approval_decided',
        step: 1,
        callId: 'call-1',
        tool: 'deploy',
        decision: 'deny',
        by: 'ops',
        reason: 'no',
        via: 'signal',
        sticky: false,
      } as const,
      { type: 'approval_expired', step: 1, callId: 'call-1', tool: 'deploy', outcome: 'deny' } as const,
    ]) {
      const rest = log(
        [
          ending,
          {
            type: 'tool_result',
            step: 1,
            callId: 'call-1',
            tool: 'deploy',
            isError: true,
            preview: 'denied',
            bytes: 6,
            stored: false,
            latencyMs: 0,
            attempts: 0,
          },
        ],
        1 + approval.length,
      );
      const { out } = translate([...approval, ...rest]);
      const tail = out.slice(-2).map((c) => c.chunk);
      expect(tail[0]).toMatchObject({ type: 'tool-approval-response', approvalId: 'call-1', approved: false });
      expect(tail[1]).toEqual({ type: 'tool-output-denied', toolCallId: 'call-1' });
      expect(assemble(out).parts.find((p) => p.type === 'tool-deploy')).toMatchObject({ state: 'output-denied' });
    }
  });

  it('endings: a failed run sends error then finish error; a cancelled one finish other; live text of an unfinished attempt is reset first', () => {
    const failed = translate(
      log(
        [
          user(1, 'hi'),
          started(1),
          delta(1, 1, 0, 'Hal'),
          {
            type: 'done',
            status: 'provider_error',
            steps: 1,
            usage,
            costUsd: null,
            finalText: '',
            error: { message: 'the model is down', type: 'ProviderError' },
          },
        ],
        1,
      ),
    );
    expect(types(failed.out).slice(-4)).toEqual(['reset-step', 'error', 'finish-step', 'finish']);
    expect(failed.out.at(-3)!.chunk).toEqual({ type: 'error', errorText: 'the model is down' });
    expect(failed.out.at(-1)!.chunk).toEqual({ type: 'finish', finishReason: 'error' });
    const cancelled = translate(
      log([user(1, 'hi'), { type: 'done', status: 'cancelled', steps: 0, usage, costUsd: null, finalText: '' }], 1),
    );
    expect(cancelled.out.at(-1)!.chunk).toEqual({ type: 'finish', finishReason: 'other' });
    expect(types(cancelled.out)).not.toContain('error');
  });

  it('a later turn ends this one; events of other turns are ignored', () => {
    const events = log([user(1, 'a'), started(1), text(1, 'A'), finished(1), user(2, 'b'), started(2), text(2, 'B')], 1);
    const { out } = translate(events);
    expect(textOf(assemble(out))).toBe('A');
    expect(out.at(-1)!.chunk).toEqual({ type: 'finish', finishReason: 'stop' });
  });

  it('resuming after any chunk yields exactly the rest: the page ends with the same message', () => {
    const turns = [
      simple,
      [
        ...approval,
        ...log(
          [
            {
              type: 'approval_decided',
              step: 1,
              callId: 'call-1',
              tool: 'deploy',
              decision: 'approve',
              by: 'user:a',
              via: 'update',
              sticky: false,
            },
            result(1, 'call-1', 'deploy', 'ok'),
            started(2),
            delta(2, 1, 0, 'Fin'),
            delta(2, 1, 1, 'ished'),
            text(2, 'Finished.'),
            finished(2),
            awaiting(1),
          ],
          1 + approval.length,
        ),
      ],
    ];
    for (const events of turns) {
      const full = translate(events);
      const want = assemble(full.out);
      // Deltas are live: a resumed stream gets only the durable events (the worst case: every delta missed).
      const durable = events.filter((e) => 'seq' in e);
      for (let i = 0; i < full.out.length - 1; i++) {
        const a = new MessageAssembler();
        assemble(full.out.slice(0, i + 1), a);
        const rest = translate(durable, 1, full.out[i]!.cursor).out;
        expect(rest[0]?.chunk.type, `after chunk ${i}`).toBe('start');
        const m = assemble(rest, a);
        expect(m, `after chunk ${i} (${full.out[i]!.cursor})`).toEqual(want);
      }
      // Durable-only streams resume with exactly the chunks that followed.
      const plain = translate(durable);
      for (let i = 0; i < plain.out.length - 1; i++) {
        const rest = translate(durable, 1, plain.out[i]!.cursor).out.slice(1);
        expect(rest.map((c) => c.chunk)).toEqual(plain.out.slice(i + 1).map((c) => c.chunk));
      }
    }
  });
});

describe('chat history', () => {
  const events = log([
    { type: 'run_started', agent: 'a', model: 'p/m', maxSteps: 10 },
    user(1, 'one'),
    started(1),
    text(1, 'First.'),
    finished(1),
    awaiting(1),
    user(2, 'two'),
    started(2),
    text(2, 'Second.'),
    finished(2),
    awaiting(2),
  ]).filter((e): e is AgentEvent => 'seq' in e);

  it('the turns as UI messages, with the ids the streams use', () => {
    const m = chatHistory('c', events);
    expect(m.map((x) => [x.id, x.role, textOf(x)])).toEqual([
      ['c:1:u0', 'user', 'one'],
      ['c:1', 'assistant', 'First.'],
      ['c:2:u0', 'user', 'two'],
      ['c:2', 'assistant', 'Second.'],
    ]);
  });

  it('where the last turn stands', () => {
    expect(lastTurnStatus('c', []).state).toBe('none');
    expect(lastTurnStatus('c', events).state).toBe('answered');
    expect(lastTurnStatus('c', events.slice(0, -2)).state).toBe('running');
    const paused = approval.filter((e): e is AgentEvent => 'seq' in e);
    expect(lastTurnStatus('c', paused)).toMatchObject({ state: 'paused', lastPause: expect.any(String) });
  });
});
