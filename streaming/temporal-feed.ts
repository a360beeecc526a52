/**
 * The Temporal-native delta feed: a model activity's heartbeat details carry its newest deltas (see
 * `live-window.ts`); Temporal keeps them on the pending activity, never in history, and this feed reads
 * them with `describe`. No infrastructure beyond Temporal; each follower polls (default every 100 ms).
 */
import type { WorkflowClient } from '@temporalio/client';
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow';
import type { LiveDelta } from '../core/stream';
import { sleep } from '../client/abortable';
import { isLiveDetails } from './live-window';
import type { DeltaFeed, FollowOptions } from './transport';

/** Options of a {@link TemporalDeltaFeed}. */
export interface TemporalFeedOptions {
  /** How often to read the run's pending model call. Default 100 ms. */
  pollMs?: number;
}

/** Follows a run's live deltas through Temporal alone. */
export class TemporalDeltaFeed implements DeltaFeed {
  constructor(
    private readonly client: WorkflowClient,
    private readonly options: TemporalFeedOptions = {},
  ) {}

  /** The run's deltas from now on, until it closes or `signal` aborts. Ends quietly when the run is gone. */
  async *follow(workflowId: string, { signal }: FollowOptions = {}): AsyncGenerator<LiveDelta> {
    const handle = this.client.getHandle(workflowId);
    const pollMs = this.options.pollMs ?? 100;
    /** Next delta number expected, by step and attempt. */
    const next = new Map<string, number>();
    for (;;) {
      if (signal?.aborted) return;
      let description;
      try {
        description = await handle.describe();
      } catch {
        return;
      }
      if (description.status.name !== 'RUNNING') return;
      for (const activity of description.raw.pendingActivities ?? []) {
        if (activity.activityType?.name !== 'callModel' || !activity.heartbeatDetails?.payloads?.length) continue;
        const details: unknown = await decodeFromPayloadsAtIndex(this.client.options.loadedDataConverter, 0, activity.heartbeatDetails.payloads).catch(() => undefined);
        if (!isLiveDetails(details)) continue;
        const key = `${details.step}/${details.attempt}`;
        const end = details.first + details.deltas.length;
        for (let n = Math.max(next.get(key) ?? details.first, details.first); n < end; n++) {
          yield { workflowId, step: details.step, attempt: details.attempt, n, delta: details.deltas[n - details.first]! };
        }
        next.set(key, Math.max(next.get(key) ?? 0, end));
      }
      if (await sleep(pollMs, signal)) return;
    }
  }
}
