/** How the CLI prints the newer statuses and events. */
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/core/events/events';
import type { AgentRunResult } from '../../src/core/run/result';
import { clearLine, cursorTo, moveCursor } from 'node:readline';
import { Writable } from 'node:stream';
import type { StreamEvent } from '../../src/client/live';
import { formatDuration, formatEvent, formatResult } from '../../apps/cli/format';
import { spinnerFor } from '../../apps/cli/follow';
import { LiveView, rowsUp } from '../../apps/cli/live-view';
import { Output, stylesFor } from '../../apps/cli/terminal-output';
import { approvalLines } from '../../apps/cli/commands/approvals';

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

  it('an early start says so, and a discard names the attempt and its calls', () => {
    expect(formatEvent({ ...stamp, type: 'tool_started', step: 1, callId: 'c1', tool: 'read', early: true, attempt: 1 }, plain)).toEqual([
      '[step 1] read running (c1) — started while the model streams',
    ]);
    expect(formatEvent({ ...stamp, type: 'early_tool_discarded', step: 1, attempt: 1, callIds: ['c1', 'c2'] }, plain)).toEqual([
      '[step 1] attempt 1 failed or was dropped: early calls c1, c2 discarded',
    ]);
  });

  it('retrying shows a delay capped from what the provider asked for', () => {
    const base = {
      ...stamp,
      type: 'retrying' as const,
      step: 2,
      attempt: 1,
      error: 'rate limited',
      errorType: 'rate_limit_error',
      delayMs: 60000,
      nextModel: 'anthropic/claude',
    };
    expect(formatEvent({ ...base, requestedDelayMs: 3600000 }, plain)).toEqual([
      '[step 2] attempt 1 failed (rate_limit_error: rate limited); retrying in 60000 ms (capped from 3600000 ms, the wait the provider asked for) with anthropic/claude',
    ]);
    expect(formatEvent(base, plain)).toEqual([
      '[step 2] attempt 1 failed (rate_limit_error: rate limited); retrying in 60000 ms with anthropic/claude',
    ]);
  });

  it('sub-agent events name the child run, its status and spend', () => {
    const base = { ...stamp, step: 1, callId: 'call_1_0', tool: 'researcher', agent: 'researcher', workflowId: 'run-1--call_1_0' };
    expect(formatEvent({ ...base, type: 'sub_agent_started' }, plain)).toEqual([
      '[step 1] researcher (call_1_0) started sub-agent researcher: run run-1--call_1_0',
    ]);
    expect(formatEvent({ ...base, type: 'sub_agent_finished', status: 'success', usage, costUsd: 0.5 }, plain)).toEqual([
      '[step 1] sub-agent researcher (run-1--call_1_0) success, 1 input / 2 output tokens, $0.5000',
    ]);
    expect(formatEvent({ ...base, type: 'sub_agent_finished', error: 'no input' }, plain)).toEqual([
      '[step 1] sub-agent researcher (run-1--call_1_0) did not run: no input',
    ]);
  });

  it.each([
    ['storage_error', 'blob store'],
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

describe('formatEvent with the run known', () => {
  it('approval_requested gives the exact command to decide it', () => {
    const e = { ...stamp, type: 'approval_requested', step: 1, callId: 'call_wipe', tool: 'wipe', args: {} } as AgentEvent;
    expect(formatEvent(e, plain, { workflowId: 'wiper-1' })[1]).toBe(
      '    decide with: durable-agent approve wiper-1 call_wipe   (or deny / skip instead of approve; list: durable-agent approvals)',
    );
  });

  it('approval_requested with a question (an at-most-once rerun) shows it before the command', () => {
    const e = {
      ...stamp,
      type: 'approval_requested',
      step: 1,
      callId: 'call_1_0~rerun-1',
      tool: 'pay',
      args: {},
      question: 'The outcome of this call is unknown.',
    } as AgentEvent;
    const lines = formatEvent(e, plain, { workflowId: 'payer-1' });
    expect(lines[1]).toBe('    The outcome of this call is unknown.');
    expect(lines[2]).toContain('durable-agent approve payer-1 call_1_0~rerun-1');
  });
});

describe('formatDuration', () => {
  it.each([
    [850, '850 ms'],
    [1249, '1.2 s'],
    [42_000, '42 s'],
    [185_000, '3 min 05 s'],
    [7_260_000, '2 h 01 min'],
  ])('%d ms is %s', (ms, text) => expect(formatDuration(ms)).toBe(text));
});

/** A terminal's output captured as written, with its size. */
class Captured extends Writable {
  written = '';
  constructor(
    readonly isTTY: boolean,
    readonly columns = 40,
    readonly rows = 24,
  ) {
    super();
  }
  override _write(chunk: Buffer, _enc: BufferEncoding, done: () => void): void {
    this.written += chunk.toString('utf8');
    done();
  }
  // What a terminal stream (tty.WriteStream) adds, for the spinner: the same escape sequences.
  clearLine(dir: -1 | 0 | 1 = 0): boolean {
    return clearLine(this, dir);
  }
  cursorTo(x: number): boolean {
    return cursorTo(this, x);
  }
  moveCursor(dx: number, dy: number): boolean {
    return moveCursor(this, dx, dy);
  }
}

/**
 * What a terminal of `columns` shows after `written`: a small screen model for the sequences the view
 * writes (printable text wrapping at the width, CR, LF, cursor up, erase to the end of the screen, SGR).
 */
function screen(written: string, columns: number): string[] {
  const rows: string[][] = [[]];
  let row = 0;
  let col = 0;
  for (let i = 0; i < written.length; i++) {
    const ch = written[i] as string;
    if (ch === '\u001b') {
      const m = /^.\[([0-9;?]*)([A-Za-z])/.exec(written.slice(i)); // after ESC
      if (!m) throw new Error(`unknown escape at ${i}`);
      i += m[0].length - 1;
      if (m[2] === 'A') row = Math.max(0, row - Number(m[1] || 1));
      else if (m[2] === 'G') col = Number(m[1] || 1) - 1;
      else if (m[2] === 'K' && m[1] === '2') rows[row] = [];
      else if (m[2] === 'J') {
        rows[row] = (rows[row] ?? []).slice(0, col);
        rows.length = row + 1;
      } else if (!['m', 'h', 'l'].includes(m[2] as string)) throw new Error(`unexpected escape ${m[0]}`);
    } else if (ch === '\r') col = 0;
    else if (ch === '\n') {
      row++;
      col = 0;
      rows[row] ??= [];
    } else {
      if (col === columns) {
        row++;
        col = 0;
        rows[row] ??= [];
      }
      (rows[row] ??= [])[col++] = ch;
    }
  }
  return rows.map((r) => r.join('')).filter((l, i, all) => l !== '' || i < all.length - 1);
}

const at = '2025-01-01T00:00:00.000Z';
const DRAFT = 'A first draft that is long enough to wrap over more than one row of the screen';
const ANSWER = 'The answer is 42.\nChecked twice.';

/** A step streamed by attempt 1, which fails, then by attempt 2, which succeeds. */
function flakyStep(): StreamEvent[] {
  const deltas = (attempt: number, text: string, pieces: number): StreamEvent[] => {
    const size = Math.ceil(text.length / pieces);
    const out: StreamEvent[] = [];
    for (let i = 0, n = 0; i < text.length; i += size, n++)
      out.push({ type: 'delta', step: 1, attempt, n, delta: { type: 'text', text: text.slice(i, i + size) } });
    return out;
  };
  return [
    { seq: 0, at, type: 'step_started', step: 1, provider: 'scripted', model: 'm', attempt: 1 },
    ...deltas(1, DRAFT, 7),
    { seq: 1, at, type: 'retrying', step: 1, attempt: 1, error: 'connection reset', delayMs: 50, nextModel: 'scripted/m' },
    { type: 'attempt_voided', step: 1, attempt: 1, reason: 'the attempt failed: connection reset' },
    { seq: 2, at, type: 'step_started', step: 1, provider: 'scripted', model: 'm', attempt: 2 },
    ...deltas(2, ANSWER, 5),
    { seq: 3, at, type: 'text', step: 1, text: ANSWER },
    { seq: 4, at, type: 'step_finished', step: 1, stopReason: 'end_turn', usage, latencyMs: 5 },
  ];
}

function render(events: StreamEvent[], tty: boolean): Captured {
  const stream = new Captured(tty);
  const view = new LiveView(new Output(false, stream), { workflowId: 'w-1', interactive: tty });
  for (const e of events) view.push(e);
  view.finish();
  return stream;
}

describe('LiveView', () => {
  it('rowsUp counts wrapped rows back to where the text started', () => {
    expect(rowsUp('abc', 40)).toBe(0);
    expect(rowsUp('abc\n', 40)).toBe(1);
    expect(rowsUp(`${'x'.repeat(40)}\n${'y'.repeat(41)}`, 40)).toBe(2);
    expect(rowsUp(`\u001b[1m${'x'.repeat(40)}\u001b[22m\n`, 40)).toBe(1);
  });

  it('not on a terminal: streamed text, then the failed attempt marked void, then the replacement; plain lines only', () => {
    const out = render(flakyStep(), false).written;
    expect(out).toBe(
      [
        '[step 1] calling scripted/m',
        '[step 1] text:',
        `    ${DRAFT}`,
        '[step 1] attempt 1 failed (connection reset); retrying in 50 ms with scripted/m',
        "[step 1] attempt 1's text above is void: the attempt failed: connection reset; it is not part of the answer",
        '[step 1] calling scripted/m (attempt 2)',
        '[step 1] text (attempt 2):',
        '    The answer is 42.',
        '    Checked twice.',
        '[step 1] finished: end_turn, 1 input / 2 output tokens, 5 ms',
        '',
      ].join('\n'),
    );
  });

  it("on a terminal: the failed attempt's text is erased from the screen, the retry line kept, the answer shown once", () => {
    const out = render(flakyStep(), true).written;
    expect(out).toContain('\u001b['); // drawn in place
    const rows = screen(out, 40);
    const shown = rows.join('\n');
    expect(rows.join('')).not.toContain('first draft');
    expect(rows.join('')).toContain('[step 1] attempt 1 failed (connection reset); retrying in 50 ms with scripted/m');
    expect(rows.join('')).toContain("[step 1] attempt 1's text withdrawn (the attempt failed: connection reset)");
    expect(rows[0]).toBe('[step 1] calling scripted/m');
    expect(shown.split('The answer is 42.').length - 1).toBe(1);
    expect(shown).toContain('    The answer is 42.\n    Checked twice.\n');
  });

  it('a reader that missed deltas gets the step whole: marked and replaced, or redrawn on a terminal', () => {
    const events: StreamEvent[] = [
      { type: 'delta', step: 1, attempt: 1, n: 0, delta: { type: 'text', text: 'The ans' } },
      { type: 'delta', step: 1, attempt: 1, n: 2, delta: { type: 'text', text: 'Checked' } }, // n 1 missed
      { seq: 0, at, type: 'text', step: 1, text: ANSWER },
    ];
    const plainOut = render(events, false).written;
    expect(plainOut).toContain(
      "[step 1] attempt 1's text above is incomplete; the step's whole text follows and replaces it\n[step 1] text:\n    The answer is 42.\n    Checked twice.\n",
    );
    const shown = screen(render(events, true).written, 40);
    expect(shown).toEqual(['[step 1] text:', '    The answer is 42.', '    Checked twice.']);
  });

  it('on a terminal, a spinner with elapsed time runs while a tool runs, and leaves nothing behind', async () => {
    const stream = new Captured(true);
    const view = new LiveView(new Output(false, stream), { workflowId: 'w-1', interactive: true, spinner: spinnerFor(stream) });
    const started = new Date(Date.now() - 1500).toISOString(); // the call started 1.5 s ago
    view.push({ seq: 0, at: started, type: 'tool_call', step: 1, callId: 'call_1_0', tool: 'pause', args: { ms: 700 } });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(stream.written).toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] running pause \(1\.[5-9] s\)/);
    view.push({
      seq: 1,
      at,
      type: 'tool_result',
      step: 1,
      callId: 'call_1_0',
      tool: 'pause',
      isError: false,
      preview: 'paused',
      bytes: 6,
      latencyMs: 700,
      attempts: 1,
    } as AgentEvent);
    view.finish();
    expect(screen(stream.written, 40).join('')).not.toMatch(/running pause|[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/);
    expect(screen(stream.written, 40).join('')).toMatch(/^\[step 1\] tool call pause \{"ms":700\} \(call_1_0\)\[step 1\] tool result/);
    expect(screen(stream.written, 40).join('')).toContain('[step 1] tool result pause ok (6 B, 700 ms): paused');
  });

  it("on a terminal, the spinner shows a running tool's newest progress", async () => {
    const stream = new Captured(true);
    const view = new LiveView(new Output(false, stream), { workflowId: 'w-1', interactive: true, spinner: spinnerFor(stream) });
    const progress = { type: 'tool_progress', step: 1, callId: 'call_1_0', tool: 'grep', attempt: 1 } as const;
    view.push({ ...progress, n: 0, message: 'listing files' }); // before the call's durable event was read
    view.push({ seq: 0, at, type: 'tool_call', step: 1, callId: 'call_1_0', tool: 'grep', args: {} });
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(stream.written).toMatch(/running grep — listing files \(/);
    view.push({ ...progress, n: 1, message: 'scanning\nsrc/', fraction: 0.4 });
    view.push({ ...progress, callId: 'call_other', n: 0, message: 'not a call shown' });
    await new Promise((resolve) => setTimeout(resolve, 250));
    view.finish();
    expect(stream.written).toMatch(/running grep — scanning src\/ 40% \(/);
    expect(stream.written).not.toContain('not a call shown');
  });

  it('text that arrives whole (no deltas) prints as the text event always did', () => {
    const out = render([{ seq: 0, at, type: 'text', step: 2, text: ANSWER }], false).written;
    expect(out).toBe('[step 2] text:\n    The answer is 42.\n    Checked twice.\n');
  });
});

describe('durable-agent approvals (text)', () => {
  const pending = { callId: 'call_1_0', tool: 'refund', args: { amount: 5 }, step: 1, requestedAt: '2025-01-01T00:00:00.000Z' };

  it("names a sub-agent's parent run, as the README says the inbox does", () => {
    const lines = approvalLines([
      {
        workflowId: 'order-7/agent',
        runId: 'r-child',
        agent: 'support',
        pending: [pending],
        parent: { workflowId: 'order-7', runId: 'r-parent' },
      },
    ]);
    expect(lines[0]).toBe('order-7/agent  (agent support, 1 pending, parent order-7)');
    expect(lines[1]).toBe('  call_1_0  refund({"amount":5})  step 1, requested 2025-01-01T00:00:00.000Z');
  });

  it('names no parent for a top-level run', () => {
    const lines = approvalLines([{ workflowId: 'w-1', runId: 'r-1', agent: 'support', pending: [pending] }]);
    expect(lines[0]).toBe('w-1  (agent support, 1 pending)');
  });
});
