/**
 * The newest progress updates of one tool-call attempt, as the Temporal-native transport carries them: in
 * the `runTool` activity's heartbeat details (kept on the pending activity, never in history), read by
 * clients with `describe` like a model call's deltas (`live-window.ts`). The tool's own heartbeat details
 * (`ctx.heartbeat(details)`) ride along under `user`.
 */
import type { ToolProgressUpdate } from '../../core/events/stream';
import type { LiveDetails } from './live-window';
import { LiveWindow } from './live-window';

/** Bound of a tool attempt's progress window: bytes of the kept updates' JSON. */
export const PROGRESS_WINDOW_BYTES = 16 * 1024;

/** What a `runTool` activity's heartbeat carries once its tool reported progress (or heartbeat details). */
export interface ToolLiveDetails extends LiveDetails<ToolProgressUpdate> {
  kind: 'tool';
  callId: string;
  tool: string;
  /** The details the tool itself last passed to `ctx.heartbeat`, if any. */
  user?: unknown;
}

/** A bounded window over one tool-call attempt's progress updates. */
export class ProgressWindow {
  private readonly window: LiveWindow<ToolProgressUpdate>;

  constructor(
    readonly step: number,
    readonly attempt: number,
    readonly callId: string,
    readonly tool: string,
    maxBytes = PROGRESS_WINDOW_BYTES,
  ) {
    this.window = new LiveWindow<ToolProgressUpdate>(step, attempt, maxBytes);
  }

  /** Add an update (the oldest go once the window is full); returns its number. */
  push(update: ToolProgressUpdate): number {
    return this.window.push(update);
  }

  /** The heartbeat details for the window as it is, with the tool's own details. */
  details(user?: unknown): ToolLiveDetails {
    return { ...this.window.details(), kind: 'tool', callId: this.callId, tool: this.tool, ...(user !== undefined ? { user } : {}) };
  }
}

/** Whether heartbeat details are a {@link ToolLiveDetails} window. */
export function isToolLiveDetails(value: unknown): value is ToolLiveDetails {
  const v = value as Partial<ToolLiveDetails> | null;
  return (
    typeof v === 'object' &&
    v !== null &&
    v.live === 1 &&
    v.kind === 'tool' &&
    typeof v.callId === 'string' &&
    typeof v.tool === 'string' &&
    typeof v.step === 'number' &&
    typeof v.attempt === 'number' &&
    typeof v.first === 'number' &&
    Array.isArray(v.deltas) &&
    v.deltas.every(isToolProgressUpdate)
  );
}

/** Whether a value is a {@link ToolProgressUpdate} (as read back from a transport). */
export function isToolProgressUpdate(v: unknown): v is ToolProgressUpdate {
  const d = v as Partial<Record<string, unknown>> | null;
  return (
    typeof d === 'object' &&
    d !== null &&
    d.type === 'tool_progress' &&
    typeof d.tool === 'string' &&
    typeof d.message === 'string' &&
    (d.fraction === undefined || (typeof d.fraction === 'number' && d.fraction >= 0 && d.fraction <= 1))
  );
}
