/**
 * One chat turn as the AI SDK's UI message stream: a pure state machine fed the run's stream events of
 * the turn (durable events with `seq`, live `delta`s, `attempt_voided`) in arrival order, returning the
 * chunks to send, each with the cursor just after it.
 *
 * The rules: `start` with the turn's stable message id; `start-step` per model call; text and reasoning
 * from live deltas (always after their `*-start`); tool arguments streamed under a provisional id; at the
 * step's durable end the text shown is checked against the durable text — a prefix gets the rest, anything
 * else (missed deltas, provisional tool parts) is reset (`reset-step`) and shown again whole; a failed
 * attempt is reset; tool calls, approvals, decisions (made anywhere), expiries and results become tool
 * parts; the turn ends `finish` when answered, with `error` first only when the run failed.
 *
 * Resuming after a cursor: the events up to it are replayed silently (they rebuild the state the client
 * holds), the rest is sent; a cursor taken in the middle of live output resets that step first.
 */
import type { AgentEvent, DoneEvent } from '../events/events';
import type { AttemptVoidedEvent, DeltaEvent, ToolProgressDelta } from '../events/stream';
import type { ChatCursor } from './cursor';
import { formatCursor } from './cursor';
import type { ChatChunk, ChatFinishReason, CursoredChunk } from './ui-message-chunks';

/** What the translator is fed: the run's stream events (as `run.stream()` yields them). */
export type ChatStreamEvent = AgentEvent | DeltaEvent | AttemptVoidedEvent | ToolProgressDelta;

/** The id of the assistant message answering user turn `turn` of chat `chatId` (the same in every stream and in the history). */
export function assistantMessageId(chatId: string, turn: number): string {
  return `${chatId}:${turn}`;
}

/** Options of a {@link TurnTranslator}. */
export interface TurnTranslatorOptions {
  /** The chat's id (message ids derive from it). */
  chatId: string;
  /** `seq` of the turn's first `user_message` event: earlier events are ignored. */
  turnStart: number;
  /** Send only what follows this cursor (its events are replayed silently). */
  after?: ChatCursor;
}

/** Where a tool call of the turn stands. */
type CallState = 'running' | 'awaiting' | 'done';

interface CallView {
  tool: string;
  state: CallState;
  /** An approval request was sent for it. */
  asked: boolean;
  /** It was denied (its result is not shown: the part is `output-denied`). */
  denied: boolean;
  /** A budget request: no tool call behind it. */
  budget: boolean;
  step: number;
}

interface StreamedTool {
  id: string;
  tool?: string;
  /** Arguments received before the tool's name was known. */
  pending: string;
  started: boolean;
}

interface StepView {
  step: number;
  attempt: number;
  /** The text part: its id, the text shown, whether it is open. */
  text?: { id: string; shown: string; open: boolean };
  reasoning?: { id: string; open: boolean };
  tools: Map<number, StreamedTool>;
  /** The client holds output of this attempt that no durable event backs yet. */
  live: boolean;
  /** The step's durable text, once known. */
  durableText?: string;
  /** The step's answer is durable: later deltas of it are dropped. */
  settled: boolean;
}

const FAILED = new Set(['provider_error', 'tool_error', 'storage_error', 'invalid_input', 'internal_error']);

/** The finish reason of a run's ending (failures: `error`). */
function finishReasonOf(done: DoneEvent): ChatFinishReason {
  if (done.status === 'success') return 'stop';
  if (done.status === 'max_tokens') return 'length';
  if (FAILED.has(done.status)) return 'error';
  return 'other';
}

/** Turns one chat turn's stream events into UI message chunks (see the module comment). */
export class TurnTranslator {
  private readonly chatId: string;
  private readonly turnStart: number;
  private readonly after: ChatCursor | undefined;
  private silent: boolean;
  private readonly buffered: ChatStreamEvent[] = [];
  private turn: number | undefined;
  private seq = -1;
  private current: StepView | undefined;
  private stepOpen = false;
  private readonly calls = new Map<string, CallView>();
  private out: CursoredChunk[] = [];
  /** Chunks of the durable event being processed (their cursors are set once it is done). */
  private eventChunks: ChatChunk[] = [];
  private isEnded = false;
  private pauseCursor: string | undefined;

  constructor(options: TurnTranslatorOptions) {
    this.chatId = options.chatId;
    this.turnStart = options.turnStart;
    this.after = options.after;
    this.silent = options.after !== undefined;
  }

  /** The assistant message id of this turn (known once its first user message was seen). */
  get messageId(): string | undefined {
    return this.turn === undefined ? undefined : assistantMessageId(this.chatId, this.turn);
  }

  /** The user turn number (known once its first user message was seen). */
  get turnNumber(): number | undefined {
    return this.turn;
  }

  /** True once the turn has ended (answered, run over, or ended by {@link finishPaused}). */
  get ended(): boolean {
    return this.isEnded;
  }

  /** True while every call of the current step has its result or waits for a person, and one waits. */
  get paused(): boolean {
    if (this.isEnded || !this.current) return false;
    const calls = [...this.calls.values()].filter((c) => c.step === this.current!.step);
    return calls.length > 0 && calls.some((c) => c.state === 'awaiting') && calls.every((c) => c.state !== 'running');
  }

  /** The cursor at which the turn last came to wait for an approval (where a continuation after a decision starts). */
  get lastPause(): string | undefined {
    return this.pauseCursor;
  }

  /** The cursor after everything sent so far. */
  get cursor(): string {
    return formatCursor(this.position());
  }

  /** The chunks one stream event brings. */
  push(e: ChatStreamEvent): CursoredChunk[] {
    this.out = [];
    if (this.isEnded) return [];
    if (e.type === 'tool_progress') {
      this.toolProgress(e);
      return this.out;
    }
    if (!('seq' in e)) {
      if (this.silent) this.buffered.push(e);
      else if (this.turn === undefined) this.holdEarly(e);
      else if (e.type === 'delta') this.delta(e);
      else this.voided(e);
      return this.out;
    }
    if (e.seq < this.turnStart || e.seq <= this.seq) return [];
    const prevSeq = Math.max(this.seq, this.turnStart);
    const liveBefore = this.current?.live ? { step: this.current.step, attempt: this.current.attempt } : undefined;
    this.seq = e.seq;
    const after = this.silent && this.after && e.seq === this.after.seq ? this.after : undefined;
    const wasPaused = this.paused;
    this.eventChunks = [];
    this.durable(e);
    const chunks = this.eventChunks;
    this.eventChunks = [];
    if (!wasPaused && this.paused) this.pauseCursor = this.cursor;
    if (this.silent && !(after && after.sent !== undefined)) {
      if (after) this.resume(after);
      return this.out;
    }
    if (after) this.silent = false;
    // The chunks of a step shown live depend on what was shown: a position inside them is the position
    // before the event (with that step live: a resume shows it again). Otherwise they follow from durable
    // events alone, and a position inside them is a count.
    chunks.forEach((chunk, i) => {
      if (after && i < after.sent!) return;
      const last = i === chunks.length - 1;
      const cursor = last
        ? this.cursor
        : liveBefore
          ? formatCursor({ turnStart: this.turnStart, seq: prevSeq, live: liveBefore })
          : formatCursor({ turnStart: this.turnStart, seq: e.seq, sent: i + 1 });
      this.out.push({ chunk, cursor });
    });
    if (after) this.resume(after);
    else if (!this.silent) this.flushEarly();
    if (!this.silent && this.heldProgress.size) this.flushProgress();
    return this.out;
  }

  /**
   * Live deltas that came before the turn's first durable event (a replay: the delta feed's first reading,
   * the whole live window of the model call, may come before the turn's events). They are shown once the
   * durable events have reached their step and attempt, dropped if those are already past.
   */
  private early: DeltaEvent[] = [];

  /** A live event before the turn is known: a delta is held, a void drops the held deltas of its attempt. */
  private holdEarly(e: DeltaEvent | AttemptVoidedEvent): void {
    if (e.type === 'delta') this.early.push(e);
    else this.early = this.early.filter((d) => d.step !== e.step || d.attempt !== e.attempt);
  }

  /** Show the held deltas of the current step's attempt; drop those of steps and attempts already past. */
  private flushEarly(): void {
    const cur = this.current;
    if (this.turn === undefined || !cur || this.early.length === 0) return;
    const held = this.early;
    this.early = [];
    for (const d of held) {
      const past = d.step < cur.step || (d.step === cur.step && (d.attempt < cur.attempt || cur.settled));
      if (past) continue;
      if (d.step === cur.step && d.attempt === cur.attempt) this.delta(d);
      else this.early.push(d);
    }
  }

  /** End the turn because it waits for a decision: `finish` (`tool-calls`), so the user can answer. */
  finishPaused(): CursoredChunk[] {
    this.out = [];
    if (this.isEnded || this.silent) return [];
    this.closeOpenParts();
    this.emit({ type: 'finish', finishReason: 'tool-calls' });
    this.isEnded = true;
    return this.out;
  }

  private position(): ChatCursor {
    const live = this.current?.live ? { live: { step: this.current.step, attempt: this.current.attempt } } : {};
    return { turnStart: this.turnStart, seq: Math.max(this.seq, this.turnStart), ...live };
  }

  private emit(chunk: ChatChunk): void {
    if (this.fromDurable) {
      this.eventChunks.push(chunk);
      return;
    }
    if (this.silent) return;
    this.out.push({ chunk, cursor: this.cursor });
  }

  /** Chunks come from the durable event being processed. */
  private fromDurable = false;

  /**
   * The durable event the cursor names was processed (its chunks before the cursor skipped): announce the
   * message again, reset a step the client showed live, then the deltas that came meanwhile.
   */
  private resume(after: ChatCursor): void {
    this.silent = false;
    const id = this.messageId;
    if (id && this.out[0]?.chunk.type !== 'start')
      this.out.unshift({ chunk: { type: 'start', messageId: id }, cursor: formatCursor(after) });
    const live = after.live;
    if (live && this.current && !this.current.settled && this.current.step === live.step) {
      this.current.live = true;
      this.resetStep();
    }
    for (const e of this.buffered.splice(0)) {
      if (e.type === 'delta') this.delta(e);
      else if (e.type === 'attempt_voided') this.voided(e);
    }
  }

  private durable(e: AgentEvent): void {
    this.fromDurable = true;
    try {
      this.durableEvent(e);
    } finally {
      this.fromDurable = false;
    }
  }

  private durableEvent(e: AgentEvent): void {
    switch (e.type) {
      case 'user_message':
        if (this.turn === undefined) {
          this.turn = e.turn;
          this.emit({ type: 'start', messageId: assistantMessageId(this.chatId, e.turn) });
        } else if (e.turn > this.turn) this.finish('stop');
        return;
      case 'step_started':
        this.openStep(e.step, e.attempt);
        return;
      case 'retrying':
        if (this.current?.step === e.step && this.current.attempt === e.attempt) this.resetStep();
        return;
      case 'text':
        this.openStep(e.step, this.current?.step === e.step ? this.current.attempt : 1);
        this.current!.durableText = e.text;
        return;
      case 'step_finished':
        this.openStep(e.step, this.current?.step === e.step ? this.current.attempt : 1);
        this.settle(this.current!);
        return;
      case 'tool_call': {
        this.calls.set(e.callId, {
          tool: e.tool,
          state: e.inputError ? 'done' : 'running',
          asked: false,
          denied: false,
          budget: false,
          step: e.step,
        });
        if (e.inputError !== undefined)
          this.emit({ type: 'tool-input-error', toolCallId: e.callId, toolName: e.tool, input: e.args, errorText: e.inputError });
        else this.emit({ type: 'tool-input-available', toolCallId: e.callId, toolName: e.tool, input: e.args });
        return;
      }
      case 'approval_requested': {
        let call = this.calls.get(e.callId);
        if (!call) {
          // A budget request (no tool call behind it): shown as a call of its own.
          call = { tool: e.tool, state: 'awaiting', asked: false, denied: false, budget: true, step: this.current?.step ?? e.step };
          this.calls.set(e.callId, call);
          if (!this.stepOpen) this.openStep(e.step, 1);
          this.emit({ type: 'tool-input-available', toolCallId: e.callId, toolName: e.tool, input: e.args });
        }
        call.state = 'awaiting';
        call.asked = true;
        this.emit({ type: 'tool-approval-request', approvalId: e.callId, toolCallId: e.callId });
        return;
      }
      case 'approval_decided': {
        const call = this.calls.get(e.callId);
        if (!call) return;
        const approved = e.decision === 'approve';
        if (call.asked)
          this.emit({ type: 'tool-approval-response', approvalId: e.callId, approved, ...(e.reason ? { reason: e.reason } : {}) });
        if (approved) call.state = call.budget ? 'done' : 'running';
        else {
          call.state = 'done';
          call.denied = true;
          this.emit({ type: 'tool-output-denied', toolCallId: e.callId });
        }
        return;
      }
      case 'approval_expired': {
        const call = this.calls.get(e.callId);
        if (!call) return;
        if (call.asked)
          this.emit({ type: 'tool-approval-response', approvalId: e.callId, approved: false, reason: 'the approval expired' });
        call.state = 'done';
        call.denied = true;
        this.emit({ type: 'tool-output-denied', toolCallId: e.callId });
        return;
      }
      case 'tool_result': {
        const call = this.calls.get(e.callId);
        if (!call) return;
        call.state = 'done';
        if (call.denied) return;
        if (e.isError) this.emit({ type: 'tool-output-error', toolCallId: e.callId, errorText: e.preview });
        else this.emit({ type: 'tool-output-available', toolCallId: e.callId, output: e.preview });
        return;
      }
      case 'awaiting_message':
        if (this.turn !== undefined && e.turn >= this.turn) this.finish('stop');
        return;
      case 'done':
        if (this.current?.live && !this.current.settled) this.resetStep();
        if (finishReasonOf(e) === 'error') {
          this.closeOpenParts();
          this.emit({ type: 'error', errorText: e.error?.message ?? `the run ended: ${e.status}` });
        }
        this.finish(finishReasonOf(e));
        return;
      default:
        return;
    }
  }

  /** A live delta. */
  private delta(d: DeltaEvent): void {
    if (this.turn === undefined) return;
    if (this.early.length > 0) {
      // Deltas of this attempt held from before the turn was known come first.
      const before = this.early.filter((h) => h.step === d.step && h.attempt === d.attempt && h.n < d.n);
      if (before.length > 0) {
        this.early = this.early.filter((h) => !before.includes(h));
        for (const h of before) this.delta(h);
      }
    }
    const cur = this.current;
    if (cur && (d.step < cur.step || (d.step === cur.step && (d.attempt < cur.attempt || cur.settled)))) return;
    if (!cur || d.step > cur.step) this.openStep(d.step, d.attempt);
    else if (d.attempt > cur.attempt) {
      // A new attempt before its `retrying` was read: what the last one showed goes.
      if (cur.live) this.resetStep();
      this.current = { step: d.step, attempt: d.attempt, tools: new Map(), live: false, settled: false };
    }
    const step = this.current!;
    const delta = d.delta;
    if (delta.type === 'text') {
      if (!delta.text) return;
      step.live = true;
      if (step.reasoning?.open) this.endReasoning(step);
      if (!step.text?.open) {
        step.text = { id: `text-${step.step}`, shown: step.text?.shown ?? '', open: true };
        this.emit({ type: 'text-start', id: step.text.id });
      }
      step.text.shown += delta.text;
      this.emit({ type: 'text-delta', id: step.text.id, delta: delta.text });
    } else if (delta.type === 'thinking') {
      if (!delta.text) return;
      step.live = true;
      if (!step.reasoning?.open) {
        step.reasoning = { id: `reasoning-${step.step}`, open: true };
        this.emit({ type: 'reasoning-start', id: step.reasoning.id });
      }
      this.emit({ type: 'reasoning-delta', id: step.reasoning.id, delta: delta.text });
    } else {
      let t = step.tools.get(delta.call);
      if (!t) {
        t = { id: `${this.messageId}:${step.step}.${step.attempt}.${delta.call}`, pending: '', started: false };
        step.tools.set(delta.call, t);
      }
      t.tool ??= delta.tool;
      t.pending += delta.json;
      if (!t.tool) return;
      step.live = true;
      if (!t.started) {
        t.started = true;
        this.emit({ type: 'tool-input-start', toolCallId: t.id, toolName: t.tool });
      }
      if (t.pending) this.emit({ type: 'tool-input-delta', toolCallId: t.id, inputTextDelta: t.pending });
      t.pending = '';
    }
  }

  /** Progress of calls not known yet, by call id (the newest). */
  private readonly heldProgress = new Map<string, ToolProgressDelta>();

  /** Held progress of calls now known: shown when they run, dropped when they are over. */
  private flushProgress(): void {
    for (const [callId, e] of this.heldProgress) {
      const call = this.calls.get(callId);
      if (!call) continue;
      this.heldProgress.delete(callId);
      this.toolProgress(e);
    }
  }

  /**
   * A running tool's progress: a transient `data-tool-progress` part for a call of this turn still
   * running. Transient, so never replayed: a resumed stream shows the next update.
   */
  private toolProgress(e: ToolProgressDelta): void {
    if (this.silent) return;
    const call = this.calls.get(e.callId);
    if (!call) {
      // Before the call's durable events were read: held (the newest per call) until they are.
      this.heldProgress.set(e.callId, e);
      return;
    }
    if (call.state !== 'running') return;
    const { callId, tool, attempt, message, fraction, data } = e;
    this.emit({
      type: 'data-tool-progress',
      id: callId,
      data: {
        toolCallId: callId,
        toolName: tool,
        attempt,
        message,
        ...(fraction !== undefined ? { fraction } : {}),
        ...(data !== undefined ? { data } : {}),
      },
      transient: true,
    });
  }

  private voided(e: AttemptVoidedEvent): void {
    const cur = this.current;
    if (cur && cur.step === e.step && cur.attempt === e.attempt && cur.live) this.resetStep();
  }

  /** Make `step`/`attempt` the current step, opening it (`start-step`) when it is a new one. */
  private openStep(step: number, attempt: number): void {
    const cur = this.current;
    if (cur && cur.step === step) {
      if (attempt > cur.attempt) {
        if (cur.live) this.resetStep();
        this.current = { step, attempt, tools: new Map(), live: false, settled: false };
      }
      return;
    }
    if (cur && step < cur.step) return;
    if (this.stepOpen) {
      this.closeOpenParts();
      this.emit({ type: 'finish-step' });
    }
    this.current = { step, attempt, tools: new Map(), live: false, settled: false };
    this.stepOpen = true;
    this.emit({ type: 'start-step' });
  }

  /** The step's answer is durable: show exactly its text. */
  private settle(step: StepView): void {
    if (step.settled) return;
    const durable = step.durableText ?? '';
    const shown = step.text?.shown ?? '';
    const provisional = [...step.tools.values()].some((t) => t.started);
    if (provisional || !durable.startsWith(shown)) {
      this.resetStep();
      if (durable) {
        const id = `text-${step.step}`;
        this.emit({ type: 'text-start', id });
        this.emit({ type: 'text-delta', id, delta: durable });
        this.emit({ type: 'text-end', id });
      }
    } else {
      const rest = durable.slice(shown.length);
      if (rest) {
        if (step.reasoning?.open) this.endReasoning(step);
        if (!step.text?.open) {
          step.text = { id: `text-${step.step}`, shown, open: true };
          this.emit({ type: 'text-start', id: step.text.id });
        }
        this.emit({ type: 'text-delta', id: step.text.id, delta: rest });
      }
      this.closeOpenParts();
    }
    step.text = { id: `text-${step.step}`, shown: durable, open: false };
    step.settled = true;
    step.live = false;
  }

  /** Drop what the current step shows (`reset-step`). */
  private resetStep(): void {
    const cur = this.current;
    if (!cur) return;
    cur.live = false;
    cur.text = undefined;
    cur.reasoning = undefined;
    cur.tools = new Map();
    this.emit({ type: 'reset-step' });
  }

  private endReasoning(step: StepView): void {
    if (!step.reasoning?.open) return;
    step.reasoning.open = false;
    this.emit({ type: 'reasoning-end', id: step.reasoning.id });
  }

  private closeOpenParts(): void {
    const step = this.current;
    if (!step) return;
    this.endReasoning(step);
    if (step.text?.open) {
      step.text.open = false;
      this.emit({ type: 'text-end', id: step.text.id });
    }
  }

  private finish(reason: ChatFinishReason): void {
    this.closeOpenParts();
    if (this.stepOpen) {
      this.emit({ type: 'finish-step' });
      this.stepOpen = false;
    }
    this.emit({ type: 'finish', finishReason: reason });
    this.isEnded = true;
  }
}
