/**
 * The live side of one tool-call attempt: `ctx.progress(…)` updates, throttled to a few per second, go to
 * the heartbeat window (Temporal-native transport) and to the worker's publisher (e.g. Redis); the tool's
 * own `ctx.heartbeat(details)` rides along in the same heartbeat, so the runtime's keep-alive beats never
 * overwrite either. Nothing here reaches workflow history.
 */
import type { Context } from '@temporalio/activity';
import type { ToolProgressUpdate } from '../core/events/stream';
import { ProgressWindow } from '../integrations/streaming/progress-window';
import type { LiveOptions } from './model';
import type { RedactorSource } from './redaction';
import type { ToolProgress } from '../core/tool-calls/progress';

/** Shortest interval (ms) between two progress updates of one call that reach clients; the newest waits out the rest. */
export const PROGRESS_INTERVAL_MS = 250;

/** Which call this is. */
export interface ToolLiveCall {
  step: number;
  attempt: number;
  callId: string;
  tool: string;
}

/** One attempt's progress and heartbeat details (see the module's description). */
export class ToolLive {
  private readonly window: ProgressWindow | undefined;
  private readonly workflowId: string;
  private user: unknown;
  private n = 0;
  private last = -Infinity;
  private pending: ToolProgressUpdate | undefined;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly ctx: Pick<Context, 'info' | 'heartbeat'>,
    private readonly call: ToolLiveCall,
    private readonly live: LiveOptions,
    private readonly redact: RedactorSource,
    private readonly intervalMs = PROGRESS_INTERVAL_MS,
  ) {
    this.window = live.heartbeat ? new ProgressWindow(call.step, call.attempt, call.callId, call.tool) : undefined;
    this.workflowId = ctx.info.workflowExecution?.workflowId ?? '';
  }

  /** The heartbeat details now: the progress window with the tool's own details, or just those. */
  readonly details = (): unknown => (this.window && this.n > 0 ? this.window.details(this.user) : this.user);

  /** The tool's `ctx.heartbeat(details)`: kept (redacted) for every later beat, and sent now. */
  readonly heartbeat = (details?: unknown): void => {
    if (details !== undefined) this.user = this.redact().value(details);
    this.ctx.heartbeat(this.details());
  };

  /**
   * The tool's `ctx.progress(p)`, as the attempt's notes kept it (bounded: `boundProgress`): redacted and
   * sent at once, unless the last one went less than the interval ago; then the newest waits out the rest.
   */
  readonly progress = (p: ToolProgress): void => {
    if (this.stopped || (!this.window && !this.live.publisher)) return;
    const { message, fraction, data } = this.redact().value(p);
    this.pending = {
      type: 'tool_progress',
      tool: this.call.tool,
      message,
      ...(fraction !== undefined ? { fraction } : {}),
      ...(data !== undefined ? { data } : {}),
    };
    const wait = this.last + this.intervalMs - Date.now();
    if (wait <= 0) this.send();
    else this.timer ??= setTimeout(() => this.send(), wait);
  };

  /** The attempt is over: nothing more is sent. */
  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private send(): void {
    this.timer = undefined;
    const update = this.pending;
    this.pending = undefined;
    if (!update || this.stopped) return;
    this.last = Date.now();
    const n = this.n++;
    this.window?.push(update);
    const { step, attempt, callId } = this.call;
    this.live.publisher?.publish({ workflowId: this.workflowId, step, attempt, n, callId, delta: update });
    if (this.window) this.ctx.heartbeat(this.details());
  }
}
