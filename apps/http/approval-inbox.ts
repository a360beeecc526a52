/**
 * The approval inbox of the HTTP API (`GET /approvals`, `GET /approvals/events`): every run waiting for a
 * person with its pending calls, the conversation that led to them, and whether the caller may decide
 * each. One {@link InboxPoller} per API reads it every 300 ms while someone watches, for all watchers.
 */
import type { AgentClient, AwaitingRun } from '../../src/entry/client';
import type { PendingApproval } from '../../src/entry/client';
import type { ContextMessage } from './approval-context';
import { approvalContext } from './approval-context';
import type { Caller } from './auth';
import { holds } from './permissions';
import type { InboxCall, InboxRun, InboxView } from '../../src/entry/client';

export type { InboxCall, InboxRun, InboxView };

/** A run of the inbox before it is shown to a caller. */
export type AwaitingRunWithContext = AwaitingRun & { context: ContextMessage[] };

/** May `caller` decide `call`? Its approvers may, and once it escalated or was delegated, the escalation group and the assignee. */
export function mayDecide(caller: Caller, call: Pick<PendingApproval, 'approvers' | 'escalated' | 'assignee'>): boolean {
  const me = caller.identity;
  const named = !call.approvers?.length || call.approvers.includes(me) || call.escalated?.to.includes(me) === true || call.assignee === me;
  return holds(caller, 'decide') && named;
}

/** The inbox as `caller` sees it. */
export function inboxFor(runs: readonly AwaitingRunWithContext[], caller: Caller): InboxView {
  return { runs: runs.map((r) => ({ ...r, pending: r.pending.map((p) => ({ ...p, mayDecide: mayDecide(caller, p) })) })) };
}

/** Reads the inbox, keeping each run's context while its pending calls stay the same. */
export class ApprovalInbox {
  private contexts = new Map<string, Promise<ContextMessage[]>>();

  constructor(private readonly client: AgentClient) {}

  /** Every run waiting for a person, with the context of its pending calls (deferred ones too with `includeDeferred`). */
  async read(options: { includeDeferred?: boolean } = {}): Promise<AwaitingRunWithContext[]> {
    const runs = await this.client.awaitingApproval(options.includeDeferred ? { includeDeferred: true } : {});
    const kept = new Map<string, Promise<ContextMessage[]>>();
    const withContext = await Promise.all(
      runs.map(async (r) => {
        if (r.error !== undefined) return { ...r, context: [] };
        const callIds = r.pending.map((p) => p.callId);
        const key = `${r.workflowId}/${r.runId}/${callIds.join(',')}`;
        const context = this.contexts.get(key) ?? approvalContext(this.client.get(r.workflowId, r.runId), callIds);
        kept.set(key, context);
        return { ...r, context: await context };
      }),
    );
    // The live inbox's cache follows the live inbox only (a read with deferred calls uses it, keeps nothing).
    if (!options.includeDeferred) this.contexts = kept;
    return withContext;
  }
}

/** How often the inbox is read while someone watches. */
export const INBOX_POLL_MS = 300;

/** A watcher of the inbox: called with each new inbox (and with the failure of a read). */
export type InboxListener = (runs: readonly AwaitingRunWithContext[]) => void;

/**
 * One poller of the inbox for every watcher: it reads every {@link INBOX_POLL_MS} while at least one
 * watcher is subscribed, tells them when the inbox changed (its JSON differs), and stops when none is left.
 * A failing read is reported once (until a read succeeds again); the watchers keep the last inbox.
 */
export class InboxPoller {
  private readonly listeners = new Set<InboxListener>();
  private latest: { json: string; runs: AwaitingRunWithContext[] } | undefined;
  private timer: NodeJS.Timeout | undefined;
  private polling = false;
  /** The last failure reported, so that a server down for a while is reported once, not every poll. */
  private lastFailure: string | undefined;

  constructor(
    private readonly inbox: ApprovalInbox,
    private readonly onError: (err: unknown) => void,
    private readonly intervalMs = INBOX_POLL_MS,
  ) {}

  /** Watchers now. */
  get watchers(): number {
    return this.listeners.size;
  }

  /** Is the poller running? */
  get running(): boolean {
    return this.timer !== undefined || this.polling;
  }

  /**
   * Watch the inbox: `listener` gets the current inbox at once (after a first read if there is none yet),
   * then each change. Returns what ends the watch.
   */
  subscribe(listener: InboxListener): () => void {
    this.listeners.add(listener);
    if (this.latest) listener(this.latest.runs);
    if (!this.running) void this.poll();
    return () => {
      this.listeners.delete(listener);
      if (!this.listeners.size) {
        clearTimeout(this.timer);
        this.timer = undefined;
        this.latest = undefined;
      }
    };
  }

  private async poll(): Promise<void> {
    this.timer = undefined;
    this.polling = true;
    try {
      const runs = await this.inbox.read();
      this.lastFailure = undefined;
      const json = JSON.stringify(runs);
      if (this.listeners.size && json !== this.latest?.json) {
        this.latest = { json, runs };
        for (const listener of [...this.listeners]) listener(runs);
      }
    } catch (err) {
      const failure = err instanceof Error ? err.message : String(err);
      if (failure !== this.lastFailure) this.onError(err);
      this.lastFailure = failure;
    } finally {
      this.polling = false;
    }
    if (this.listeners.size) {
      this.timer = setTimeout(() => void this.poll(), this.intervalMs);
      this.timer.unref();
    }
  }
}
