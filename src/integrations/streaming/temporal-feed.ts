/**
 * The Temporal-native delta feed: a model activity's heartbeat details carry its newest deltas (see
 * `live-window.ts`); Temporal keeps them on the pending activity, never in history, and this feed reads
 * them with `describe`; a running tool's progress updates travel the same way (`progress-window.ts`). No
 * infrastructure beyond Temporal. Followers of one run on one feed share its `describe` polls (default
 * every 100 ms), however many they are.
 */
import type { WorkflowClient } from '@temporalio/client';
// Deep import: @temporalio/common exports no public way to decode one payload through a data converter's codecs.
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow';
import type { LiveDelta } from '../../core/events/stream';
import { ABORTED, sleep, untilAborted } from '../../client/abortable';
import type { LiveDetails } from './live-window';
import { isLiveDetails } from './live-window';
import type { ToolLiveDetails } from './progress-window';
import { isToolLiveDetails } from './progress-window';
import type { DeltaFeed, FollowOptions } from './transport';

/** Options of a {@link TemporalDeltaFeed}. */
export interface TemporalFeedOptions {
  /** How often to read the run's pending model call. Default 100 ms. */
  pollMs?: number;
}

/** What one `describe` of a run showed: whether it still runs, and the live windows of its model and tool calls. */
interface Reading {
  running: boolean;
  windows: LiveDetails[];
  /** Running tool calls' progress windows (`runTool` heartbeats). */
  tools: ToolLiveDetails[];
}

/** Follows runs' live deltas through Temporal alone. */
export class TemporalDeltaFeed implements DeltaFeed {
  private readonly polls = new Map<string, SharedPoll>();

  constructor(
    private readonly client: WorkflowClient,
    private readonly options: TemporalFeedOptions = {},
  ) {}

  /** The run's deltas from now on, until it closes or `signal` aborts. Ends quietly when the run is gone. */
  async *follow(workflowId: string, { signal }: FollowOptions = {}): AsyncGenerator<LiveDelta> {
    let poll = this.polls.get(workflowId);
    if (!poll) {
      const created = new SharedPoll(
        () => this.read(workflowId),
        this.options.pollMs ?? 100,
        () => {
          if (this.polls.get(workflowId) === created) this.polls.delete(workflowId);
        },
      );
      poll = created;
      this.polls.set(workflowId, poll);
    }
    /** Next delta number expected, by step and attempt. */
    const next = new Map<string, number>();
    for await (const reading of poll.readings(signal)) {
      if (!reading.running) return;
      for (const details of reading.windows) {
        const key = `${details.step}/${details.attempt}`;
        const end = details.first + details.deltas.length;
        for (let n = Math.max(next.get(key) ?? details.first, details.first); n < end; n++) {
          yield { workflowId, step: details.step, attempt: details.attempt, n, delta: details.deltas[n - details.first]! };
        }
        next.set(key, Math.max(next.get(key) ?? 0, end));
      }
      for (const details of reading.tools) {
        const key = `tool/${details.callId}/${details.attempt}`;
        const end = details.first + details.deltas.length;
        const { step, attempt, callId } = details;
        for (let n = Math.max(next.get(key) ?? details.first, details.first); n < end; n++) {
          yield { workflowId, step, attempt, n, callId, delta: details.deltas[n - details.first]! };
        }
        next.set(key, Math.max(next.get(key) ?? 0, end));
      }
    }
  }

  /**
   * One `describe` of the run: its status, its streaming model calls' windows and its running tool calls'
   * progress windows (undefined: the run is gone).
   * @internal
   */
  async read(workflowId: string): Promise<Reading | undefined> {
    let description;
    try {
      description = await this.client.getHandle(workflowId).describe();
    } catch {
      return undefined;
    }
    const windows: LiveDetails[] = [];
    const tools: ToolLiveDetails[] = [];
    for (const activity of description.raw.pendingActivities ?? []) {
      const type = activity.activityType?.name;
      if ((type !== 'callModel' && type !== 'runTool') || !activity.heartbeatDetails?.payloads?.length) continue;
      const details: unknown = await decodeFromPayloadsAtIndex(
        this.client.options.loadedDataConverter,
        0,
        activity.heartbeatDetails.payloads,
      ).catch(() => undefined);
      if (type === 'callModel' && isLiveDetails(details)) windows.push(details);
      else if (type === 'runTool' && isToolLiveDetails(details)) tools.push(details);
    }
    return { running: description.status.name === 'RUNNING', windows, tools };
  }
}

/** One run's `describe` loop, shared by its followers: runs while anyone follows. */
class SharedPoll {
  private latest: { n: number; reading: Reading | undefined } | undefined;
  private readonly waiting = new Set<() => void>();
  private followers = 0;
  private readonly stop = new AbortController();
  private loop: Promise<void> | undefined;

  constructor(
    private readonly read: () => Promise<Reading | undefined>,
    private readonly pollMs: number,
    private readonly onIdle: () => void,
  ) {}

  /** Each new reading, from the next one on; ends when the run is gone or `signal` aborts. */
  async *readings(signal?: AbortSignal): AsyncGenerator<Reading> {
    this.followers++;
    this.loop ??= this.run();
    let seen = -1;
    try {
      for (;;) {
        if (signal?.aborted) return;
        const latest = this.latest;
        if (latest && latest.n > seen) {
          seen = latest.n;
          if (!latest.reading) return;
          yield latest.reading;
          if (!latest.reading.running) return;
          continue;
        }
        if ((await untilAborted(new Promise<void>((resolve) => this.waiting.add(resolve)), signal)) === ABORTED) return;
      }
    } finally {
      if (--this.followers === 0) {
        this.stop.abort();
        this.onIdle();
      }
    }
  }

  private async run(): Promise<void> {
    for (let n = 0; !this.stop.signal.aborted; n++) {
      const reading = await this.read();
      this.latest = { n, reading };
      const waiting = [...this.waiting];
      this.waiting.clear();
      for (const resolve of waiting) resolve();
      if (!reading || !reading.running) return;
      if (await sleep(this.pollMs, this.stop.signal)) return;
    }
  }
}
