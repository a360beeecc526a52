/**
 * The most recent deltas of one model-call attempt, as the Temporal-native transport carries them: in the
 * activity's heartbeat details, which Temporal keeps on the pending activity (never in history) and
 * clients read with `describe`. Bounded, so a long answer keeps only its newest part: a client that polls
 * too slowly misses deltas (it sees the gap by their numbers) and gets the step's text whole at its end.
 */
import type { ModelDelta } from '../core/stream';

/** What a model activity's heartbeat carries while it streams. */
export interface LiveDetails {
  /** Marks heartbeat details as live deltas (format version). */
  live: 1;
  step: number;
  attempt: number;
  /** Number (within the attempt) of the first delta in `deltas`. */
  first: number;
  deltas: ModelDelta[];
}

/** Default bound of the window: characters of delta text kept. */
export const LIVE_WINDOW_CHARS = 32 * 1024;

/** A bounded window over an attempt's deltas. */
export class LiveWindow {
  private readonly deltas: ModelDelta[] = [];
  private first = 0;
  private chars = 0;

  constructor(
    readonly step: number,
    readonly attempt: number,
    private readonly maxChars = LIVE_WINDOW_CHARS,
  ) {}

  /** Number the next delta will get. */
  get next(): number {
    return this.first + this.deltas.length;
  }

  /** Add a delta; the oldest ones go once the window is full (at least the newest stays). */
  push(delta: ModelDelta): number {
    this.deltas.push(delta);
    this.chars += size(delta);
    while (this.chars > this.maxChars && this.deltas.length > 1) {
      this.chars -= size(this.deltas.shift()!);
      this.first++;
    }
    return this.next - 1;
  }

  /** The heartbeat details for the window as it is. */
  details(): LiveDetails {
    return { live: 1, step: this.step, attempt: this.attempt, first: this.first, deltas: [...this.deltas] };
  }
}

function size(d: ModelDelta): number {
  return (d.type === 'tool_args' ? d.json.length : d.text.length) + 16;
}

/** Whether heartbeat details are a {@link LiveDetails} window. */
export function isLiveDetails(value: unknown): value is LiveDetails {
  const v = value as Partial<LiveDetails> | null;
  return typeof v === 'object' && v !== null && v.live === 1 && typeof v.step === 'number' && typeof v.attempt === 'number' && typeof v.first === 'number' && Array.isArray(v.deltas);
}
