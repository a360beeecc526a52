/**
 * The most recent deltas of one model-call attempt, as the Temporal-native transport carries them: in the
 * activity's heartbeat details, which Temporal keeps on the pending activity (never in history) and
 * clients read with `describe`. Bounded, so a long answer keeps only its newest part: a client that polls
 * too slowly misses deltas (it sees the gap by their numbers) and gets the step's text whole at its end.
 * The bound is in bytes of JSON, so heartbeat details stay far below Temporal's 2 MB payload limit
 * whatever a provider streams: a single delta larger than the window is not carried at all (a gap, like
 * a missed delta), and the answer itself meets the answer guard (`MODEL_OUTPUT_LIMIT_BYTES`) as it would
 * without streaming.
 */
import { jsonBytes } from '../../core/messages/json';
import type { ModelDelta } from '../../core/events/stream';

/** What a model activity's heartbeat carries while it streams (`T`: a tool's progress updates, see `progress-window.ts`). */
export interface LiveDetails<T = ModelDelta> {
  /** Marks heartbeat details as live deltas (format version). */
  live: 1;
  step: number;
  attempt: number;
  /** Number (within the attempt) of the first delta in `deltas`. */
  first: number;
  deltas: T[];
}

/** Default bound of the window: bytes of the kept deltas' JSON. */
export const LIVE_WINDOW_BYTES = 32 * 1024;

/** A bounded window over an attempt's deltas (or, with `T`, any JSON items numbered the same way). */
export class LiveWindow<T = ModelDelta> {
  private readonly deltas: T[] = [];
  private readonly sizes: number[] = [];
  private first = 0;
  private bytes = 0;

  constructor(
    readonly step: number,
    readonly attempt: number,
    private readonly maxBytes = LIVE_WINDOW_BYTES,
  ) {}

  /** Number the next delta will get. */
  get next(): number {
    return this.first + this.deltas.length;
  }

  /**
   * Add a delta; the oldest ones go once the window is full. A delta larger than the whole window
   * empties it and is not kept either: readers see a gap in the numbers. Returns the delta's number.
   */
  push(delta: T): number {
    const n = this.next;
    const size = jsonBytes(delta) + 1;
    if (size > this.maxBytes) {
      this.first = n + 1;
      this.deltas.length = 0;
      this.sizes.length = 0;
      this.bytes = 0;
      return n;
    }
    this.deltas.push(delta);
    this.sizes.push(size);
    this.bytes += size;
    while (this.bytes > this.maxBytes) {
      this.bytes -= this.sizes.shift()!;
      this.deltas.shift();
      this.first++;
    }
    return n;
  }

  /** The heartbeat details for the window as it is. */
  details(): LiveDetails<T> {
    return { live: 1, step: this.step, attempt: this.attempt, first: this.first, deltas: [...this.deltas] };
  }
}

/** Whether heartbeat details are a {@link LiveDetails} window. */
export function isLiveDetails(value: unknown): value is LiveDetails {
  const v = value as Partial<LiveDetails> | null;
  return (
    typeof v === 'object' &&
    v !== null &&
    v.live === 1 &&
    typeof v.step === 'number' &&
    typeof v.attempt === 'number' &&
    typeof v.first === 'number' &&
    Array.isArray(v.deltas)
  );
}
