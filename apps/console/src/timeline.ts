/**
 * A run's live stream as a timeline to show: one entry per model step (its text as it arrives, retries,
 * voided attempts, latency once done), one per tool call (queued, waiting for approval, running with its
 * newest progress, done, with its latency), and notes for the rest. Fed the stream's events in order; pure apart from itself.
 */
import { TextAccumulator } from '../../../src/client/live';
import type { StreamEvent } from '../../../src/entry/client';
import type { DoneEvent } from '../../../src/entry/client';
import type { Usage } from '../../../src/entry/client';

/** A model step. */
export interface StepEntry {
  kind: 'step';
  key: string;
  step: number;
  model: string;
  attempt: number;
  text: string;
  /** Retries and voided attempts, in order. */
  notes: string[];
  finished?: { latencyMs: number; usage: Usage; costUsd?: number };
}

/** Where a tool call stands. */
export type ToolState = 'queued' | 'awaiting_approval' | 'running' | 'done' | 'error' | 'denied' | 'skipped' | 'expired' | 'discarded';

/** A tool call. */
export interface ToolEntry {
  kind: 'tool';
  key: string;
  step: number;
  callId: string;
  tool: string;
  args: unknown;
  state: ToolState;
  /** When it began running (workflow time, ms), for the elapsed time of a running call. */
  startedAt?: number;
  latencyMs?: number;
  attempts?: number;
  preview?: string;
  decision?: { decision: string; by: string; reason?: string };
  expiresAt?: string;
  /** The newest progress the running call reported (live; gone once it has its result). */
  progress?: { attempt: number; message: string; fraction?: number };
}

/** Anything else worth a line. */
export interface NoteEntry {
  kind: 'note';
  key: string;
  text: string;
  tone: 'info' | 'warn' | 'bad';
}

/** One line of a run's timeline. */
export type TimelineEntry = StepEntry | ToolEntry | NoteEntry;

/** The timeline of one run's stream. */
export class Timeline {
  readonly entries: TimelineEntry[] = [];
  /** The seq of the last durable event (to resume the stream from). */
  lastSeq: number | undefined;
  /** The `done` event, once the run has ended. */
  done: DoneEvent | undefined;
  agent: string | undefined;
  private readonly steps = new Map<number, StepEntry>();
  private readonly tools = new Map<string, ToolEntry>();
  private readonly text = new TextAccumulator();
  private notes = 0;

  /** Take one stream event; returns false when it was already seen (a replayed durable event). */
  apply(e: StreamEvent): boolean {
    if ('seq' in e) {
      if (this.lastSeq !== undefined && e.seq <= this.lastSeq) return false;
      this.lastSeq = e.seq;
    }
    if (e.type === 'delta' || e.type === 'text' || e.type === 'attempt_voided') {
      const chunks = this.text.push(e);
      const step = this.step(e.step);
      if (chunks.length) step.text = this.text.textOf(e.step);
      if (e.type === 'attempt_voided') step.notes.push(`attempt ${e.attempt} voided: ${e.reason}`);
      return true;
    }
    if (e.type === 'tool_progress') {
      // It may come before the call's durable events: the entry is made, and filled in by them.
      const entry = this.tool(e.callId, e.step, e.tool);
      if (entry.state !== 'queued' && entry.state !== 'running') return true;
      entry.state = 'running';
      entry.progress = { attempt: e.attempt, message: e.message, ...(e.fraction !== undefined ? { fraction: e.fraction } : {}) };
      return true;
    }
    switch (e.type) {
      case 'run_started':
        this.agent = e.agent;
        this.note(`Run started: agent ${e.agent}, model ${e.model}, at most ${e.maxSteps} steps`, 'info');
        break;
      case 'step_started': {
        const step = this.step(e.step);
        step.model = `${e.provider}/${e.model}`;
        step.attempt = e.attempt;
        break;
      }
      case 'retrying':
        this.step(e.step).notes.push(`attempt ${e.attempt} failed (${e.error}); retrying in ${e.delayMs} ms with ${e.nextModel}`);
        break;
      case 'step_finished':
        this.step(e.step).finished = { latencyMs: e.latencyMs, usage: e.usage, ...(e.costUsd !== undefined ? { costUsd: e.costUsd } : {}) };
        break;
      case 'tool_call': {
        const entry = this.tool(e.callId, e.step, e.tool, e.args);
        if (e.inputError) {
          entry.state = 'error';
          entry.preview = `invalid arguments: ${e.inputError}`;
        }
        break;
      }
      case 'approval_requested': {
        const entry = this.tool(e.callId, e.step, e.tool, e.args);
        entry.state = 'awaiting_approval';
        if (e.expiresAt) entry.expiresAt = e.expiresAt;
        break;
      }
      case 'approval_decided': {
        const entry = this.tool(e.callId, e.step, e.tool);
        entry.decision = { decision: e.decision, by: e.by, ...(e.reason ? { reason: e.reason } : {}) };
        if (e.decision === 'deny') entry.state = 'denied';
        else if (e.decision === 'skip') entry.state = 'skipped';
        else entry.state = 'queued';
        break;
      }
      case 'approval_expired':
        this.tool(e.callId, e.step, e.tool).state = 'expired';
        break;
      case 'approval_refused':
        this.note(`A decision${e.by ? ` by ${e.by}` : ''} was refused: ${e.reason}`, 'warn');
        break;
      case 'tool_started': {
        const entry = this.tool(e.callId, e.step, e.tool);
        entry.state = 'running';
        entry.startedAt = Date.parse(e.at);
        break;
      }
      case 'early_tool_discarded':
        // Started while the model streamed, from an attempt whose answer never came: cancelled, never shown to the model.
        for (const callId of e.callIds) {
          const entry = this.tools.get(callId);
          if (entry?.state === 'running') entry.state = 'discarded';
        }
        break;
      case 'tool_result': {
        const entry = this.tool(e.callId, e.step, e.tool);
        if (entry.state !== 'denied' && entry.state !== 'skipped' && entry.state !== 'expired') entry.state = e.isError ? 'error' : 'done';
        entry.latencyMs = e.latencyMs;
        entry.attempts = e.attempts;
        entry.preview = e.preview;
        delete entry.progress;
        break;
      }
      case 'user_message':
        this.note(`Message${e.by ? ` from ${e.by}` : ''}: ${e.text}`, 'info');
        break;
      case 'awaiting_message':
        this.note('Waiting for the next message', 'info');
        break;
      case 'compacted':
        this.note(`Context compacted (${e.reason}): ${e.tokensBefore} → ${e.tokensAfter} tokens`, 'info');
        break;
      case 'compaction_failed':
        this.note(`Compaction failed`, 'warn');
        break;
      case 'sub_agent_started':
        this.note(`Sub-agent ${e.agent} started (${e.workflowId})`, 'info');
        break;
      case 'sub_agent_finished':
        this.note(`Sub-agent ${e.workflowId} finished: ${e.status ?? e.error ?? 'unknown'}`, 'info');
        break;
      case 'done':
        this.done = e;
        for (const t of this.tools.values())
          if (t.state === 'running' || t.state === 'queued' || t.state === 'awaiting_approval') t.state = 'error';
        this.note(`Run ended: ${e.status}${e.error ? ` (${e.error.message})` : ''}`, e.status === 'success' ? 'info' : 'bad');
        break;
      case 'continued_as_new':
      case 'approval_queued':
        break;
      default:
        this.note(e.type.replace(/_/g, ' '), 'info');
    }
    return true;
  }

  private step(n: number): StepEntry {
    let s = this.steps.get(n);
    if (!s) {
      s = { kind: 'step', key: `step-${n}`, step: n, model: '', attempt: 1, text: '', notes: [] };
      this.steps.set(n, s);
      this.entries.push(s);
    }
    return s;
  }

  private tool(callId: string, step: number, tool: string, args?: unknown): ToolEntry {
    let t = this.tools.get(callId);
    if (!t) {
      t = { kind: 'tool', key: `tool-${callId}`, step, callId, tool, args, state: 'queued' };
      this.tools.set(callId, t);
      this.entries.push(t);
    } else if (args !== undefined && t.args === undefined) t.args = args;
    return t;
  }

  private note(text: string, tone: NoteEntry['tone']): void {
    this.entries.push({ kind: 'note', key: `note-${this.notes++}`, text, tone });
  }
}
