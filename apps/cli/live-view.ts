/**
 * A run shown live for people: answer text written as it streams, a spinner with elapsed time while tools
 * run (with their newest progress: `running grep — scanning 40% (3s)`) or wait for a person, and the text of an attempt that failed taken back — erased in place on a
 * terminal, marked void (then replaced) anywhere else. Durable events print as {@link formatEvent} lines.
 */
import type { StreamEvent } from '../../src/entry/client';
import { TextAccumulator } from '../../src/entry/client';
import type { AgentEvent } from '../../src/entry/client';
import type { TextChunk } from '../../src/entry/client';
import { formatDuration, formatEvent } from './format';
import type { Output } from './terminal-output';

/** What the view needs of a spinner (an `ora` spinner has it). */
export interface Spinner {
  text: string;
  readonly isSpinning: boolean;
  start(): unknown;
  stop(): unknown;
  clear(): unknown;
  render(): unknown;
}

/** Options of a {@link LiveView}. */
export interface LiveViewOptions {
  /** The run's workflow id, for the commands the view tells people to type. */
  workflowId: string;
  /**
   * Draw in place (erase withdrawn text, show `spinner`): only on a terminal. Otherwise every line is
   * final, withdrawn text is marked void, and nothing but plain lines is written.
   */
  interactive: boolean;
  /** Shown while tools run or wait for a person (interactive views only). */
  spinner?: Spinner;
  /** The clock, in ms since the epoch. */
  now?: () => number;
}

/** The text block of one step: everything written since its header, to erase it. */
interface Block {
  step: number;
  attempt: number | undefined;
  /** Everything written since the header (header included). */
  written: string;
  /** Lines printed after the block's text (e.g. the retry line), to print again after erasing. */
  after: string[];
}

const INDENT = '    ';
/** How often the spinner's elapsed times are brought up to date. */
const TICK_MS = 200;

/** Control sequences this view writes (styles, cursor moves): they take no room on the screen. */
const CONTROL = new RegExp(`${String.fromCharCode(27)}\\[[0-9;?]*[A-Za-z]`, 'g');

/** Terminal rows the cursor must go up to get back to the start of `written` (wrapping at `columns`). */
export function rowsUp(written: string, columns: number): number {
  const lines = written.replace(CONTROL, '').split('\n');
  const last = lines.pop() ?? '';
  const rows = (w: number) => Math.max(1, Math.ceil(w / columns));
  return lines.reduce((sum, l) => sum + rows(l.length), 0) + (last.length ? rows(last.length) - 1 : 0);
}

/** Renders the events of `run.stream()` for people, onto an {@link Output}. */
export class LiveView {
  private readonly text = new TextAccumulator();
  private block: Block | undefined;
  /** The cursor is at the start of a line (no streamed text waiting for its line end). */
  private atLineStart = true;
  /** Calls running or waiting for a person, by call id (`progress`: the newest a running tool reported). */
  private readonly waiting = new Map<string, { label: string; since: number }>();
  /** The newest progress of running tools, by call id. */
  private readonly progress = new Map<string, string>();
  private ticker: NodeJS.Timeout | undefined;
  private readonly now: () => number;

  constructor(
    private readonly out: Output,
    private readonly options: LiveViewOptions,
  ) {
    this.now = options.now ?? Date.now;
  }

  /** Show one event of the run's stream. */
  push(e: StreamEvent): void {
    if (this.options.spinner?.isSpinning) this.options.spinner.clear();
    const chunks = this.text.push(e);
    if (e.type === 'tool_progress') {
      // It may come before the call's durable events are read: kept until the call shows.
      this.progress.set(e.callId, progressText(e.message, e.fraction));
    } else if (e.type === 'delta') {
      this.showText(chunks, e.attempt, 'a new attempt replaces it');
    } else if (e.type === 'attempt_voided') {
      this.showText(chunks, e.attempt, e.reason);
    } else if (e.type === 'text') {
      this.showText(chunks, undefined, undefined);
      this.closeLine();
    } else {
      this.track(e);
      this.lines(formatEvent(e, this.out.styles, { workflowId: this.options.workflowId }));
      if (e.type === 'step_finished' || e.type === 'done') this.block = undefined;
    }
    this.syncSpinner();
  }

  /** Print lines of its own (e.g. a note) between events. */
  lines(lines: string[]): void {
    if (!lines.length) return;
    this.closeLine();
    const text = lines.join('\n') + '\n';
    this.block?.after.push(...lines);
    this.emit(text);
  }

  /** End the view: close a line left open, stop the spinner. */
  finish(): void {
    this.waiting.clear();
    this.syncSpinner();
    this.closeLine();
  }

  /** The whole text shown for `step`. */
  textOf(step: number): string {
    return this.text.textOf(step);
  }

  private showText(chunks: TextChunk[], attempt: number | undefined, voidReason: string | undefined): void {
    for (const c of chunks) {
      if (c.type === 'text') this.append(c.step, c.text, attempt);
      else this.withdraw(c.step, c.text, voidReason);
    }
  }

  /** Write streamed text of `step`, starting its block (header line) when needed. */
  private append(step: number, text: string, attempt: number | undefined): void {
    const b = this.block;
    if (!b || b.step !== step || b.after.length) {
      const continued = b && b.step === step && b.after.length > 0;
      this.closeLine();
      const attemptNote = attempt !== undefined && attempt > 1 ? ` (attempt ${attempt})` : '';
      this.block = { step, attempt, written: '', after: [] };
      this.emit(`[step ${step}] text${attemptNote}${continued ? ', continued' : ''}:\n`);
    }
    let raw = '';
    text.split('\n').forEach((piece, i) => {
      if (i > 0) {
        raw += '\n';
        this.atLineStart = true;
      }
      if (piece) {
        if (this.atLineStart) raw += INDENT;
        raw += piece;
        this.atLineStart = false;
      }
    });
    this.emit(raw);
  }

  /**
   * Take back the text shown for `step` and show `replacement` instead: erased on a terminal (when it is
   * still on the screen), else marked void and followed by the replacement.
   */
  private withdraw(step: number, replacement: string, voidReason: string | undefined): void {
    const s = this.out.styles;
    const b = this.block?.step === step ? this.block : undefined;
    const attempt = b?.attempt !== undefined ? `attempt ${b.attempt}'s text` : 'the text';
    if (b && this.erase(b)) {
      this.block = undefined;
      if (b.after.length) this.lines(b.after);
      if (!replacement) this.lines([s.dim(`[step ${step}] ${attempt} withdrawn (${voidReason ?? 'replaced'})`)]);
    } else {
      this.block = undefined;
      if (replacement)
        this.lines([s.yellow(`[step ${step}] ${attempt} above is incomplete; the step's whole text follows and replaces it`)]);
      else this.lines([s.yellow(`[step ${step}] ${attempt} above is void: ${voidReason ?? 'replaced'}; it is not part of the answer`)]);
    }
    if (replacement) this.append(step, replacement, undefined);
  }

  /** Erase the block from the screen (interactive views, when all of it is still on the screen). */
  private erase(b: Block): boolean {
    if (!this.options.interactive) return false;
    const { columns = 80, rows = 24 } = this.out.stream;
    const up = rowsUp(b.written, columns);
    if (up >= rows) return false;
    this.out.text(`\r${up > 0 ? `\u001b[${up}A` : ''}\u001b[0J`);
    this.atLineStart = true;
    return true;
  }

  private closeLine(): void {
    if (!this.atLineStart) {
      this.atLineStart = true;
      this.emit('\n');
    }
  }

  private emit(raw: string): void {
    if (this.block) this.block.written += raw;
    this.out.text(raw);
  }

  /** Keep track of calls that run or wait for a person, for the spinner. */
  private track(e: AgentEvent): void {
    const since = Date.parse(e.at);
    const at = Number.isFinite(since) ? since : this.now();
    switch (e.type) {
      case 'tool_call':
        if (e.inputError === undefined) this.waiting.set(e.callId, { label: `running ${e.tool}`, since: at });
        break;
      case 'tool_started': // when it really starts (after its approval, or its turn)
        this.waiting.set(e.callId, { label: `running ${e.tool}`, since: at });
        break;
      case 'approval_requested':
        this.waiting.set(e.callId, { label: `waiting for a person to decide ${e.tool}`, since: at });
        break;
      case 'approval_decided':
        if (e.decision === 'approve') this.waiting.set(e.callId, { label: `running ${e.tool}`, since: at });
        else this.waiting.delete(e.callId);
        break;
      case 'approval_expired':
      case 'tool_result':
        this.waiting.delete(e.callId);
        this.progress.delete(e.callId);
        break;
      case 'early_tool_discarded':
        for (const callId of e.callIds) this.waiting.delete(callId);
        break;
      case 'done':
        this.waiting.clear();
        this.progress.clear();
        break;
      default:
        break;
    }
  }

  private spinnerText(): string {
    const now = this.now();
    const text = [...this.waiting.entries()]
      .map(([callId, w]) => {
        const progress = w.label.startsWith('running ') ? this.progress.get(callId) : undefined;
        return `${w.label}${progress ? ` — ${progress}` : ''} (${formatDuration(Math.max(0, now - w.since))})`;
      })
      .join(', ');
    const width = (this.out.stream.columns ?? 80) - 4;
    return text.length > width ? `${text.slice(0, Math.max(0, width - 1))}…` : text;
  }

  /** Spin while something waits and no streamed line is open; else stay off the screen. */
  private syncSpinner(): void {
    const spinner = this.options.spinner;
    if (!spinner || !this.options.interactive) return;
    if (this.waiting.size > 0 && this.atLineStart) {
      spinner.text = this.spinnerText();
      if (spinner.isSpinning) spinner.render();
      else spinner.start();
      this.ticker ??= setInterval(() => {
        if (spinner.isSpinning) spinner.text = this.spinnerText();
      }, TICK_MS).unref();
    } else {
      if (spinner.isSpinning) spinner.stop();
      if (this.ticker) clearInterval(this.ticker);
      this.ticker = undefined;
    }
  }
}

/** A tool's progress as the spinner shows it: `scanning 40%`. */
export function progressText(message: string, fraction: number | undefined): string {
  const line = message.replace(/\s+/g, ' ').trim();
  const percent = fraction !== undefined ? `${Math.round(fraction * 100)}%` : '';
  return [line, percent].filter(Boolean).join(' ');
}
