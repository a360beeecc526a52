/** One agent run, seen from a client: its result, events, state, approvals and cancellation. */
import type { DecisionInput } from './standing-decision';
import { withStandingRule } from './standing-decision';
import { ApplicationFailure, ServiceError, WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import type { WorkflowHandle } from '@temporalio/client';
import type { ApprovalDecision, PendingApproval } from '../core/approvals/approvals';
import type { DeferReceipt, DeferRequest, DelegateReceipt, DelegateRequest, PendingApprovalsOptions } from '../core/approvals/deferrals';
import type { DecisionReceipt, RefusalDetails, RunSnapshot } from '../core/run/contract';
import type { AgentEvent, EventPage } from '../core/events/events';
import type { RecordedEvents } from '../core/events/event-log';
import { EVENT_PAGE_LIMIT, recordedPage } from '../core/events/event-log';
import type { LiveDelta, TextChunk } from '../core/events/stream';
import { TemporalDeltaFeed } from '../integrations/streaming/temporal-feed';
import type { DeltaFeed } from '../integrations/streaming/transport';
import type { StreamEvent } from './live';
import { LiveFilter, merge, TextAccumulator } from './live';
import type { EventHub, FollowedRun } from './event-hub';
import type { AgentRunResult, AnyToolCall, ToolCallShape, UnknownOutput } from '../core/run/result';
import type { BudgetRequest } from '../core/tool-calls/tool-call';
import type { agentWorkflow } from '../workflows/agent';
import type { MessageReceipt, UserMessageInput } from '../core/messages/user-messages';
import {
  approvalSignal,
  decideUpdate,
  endSignal,
  eventsQuery,
  messageSignal,
  pendingApprovalsQuery,
  deferSignal,
  deferUpdate,
  delegateSignal,
  delegateUpdate,
  sendUpdate,
  snapshotQuery,
} from '../workflows/definitions';
import { ABORTED, sleep, untilAborted } from './abortable';
import { emptyPollWait } from './poll-delay';
import type { ChildAgentEvent } from './child-events';
import { withChildEvents } from './child-events';
import { ApprovalRefusedError, MessageRefusedError, NoWorkerError, RunEndedError, RunNotFoundError, runEndedStatus } from './errors';
import { anyWorkflowPoller } from './pollers';
import { readRecordedEvents } from './recorded-events';
import type { AuditRecord } from '../core/approvals/audit';
import type { AuditOptions } from './audit';
import { readAudit } from './audit';

/** Options of {@link AgentRun.events}. */
export interface EventsOptions {
  /** The `seq` of the first event to yield (inclusive: the last `seq` you got + 1); 0, the default, is the first event. */
  from?: number;
  /** Wait between reads while the run produces nothing new. Default 200 ms. */
  pollMs?: number;
  /** Stop iterating (promptly, even mid-wait) when this aborts; the run itself goes on. */
  signal?: AbortSignal;
  /**
   * Also follow the run's sub-agents: when a `sub_agent_started` event comes, the child's events are read
   * too and yielded tagged `child: <its workflow id>` (see `ChildAgentEvent`). Default false.
   */
  children?: boolean;
}

/** Options of {@link AgentRun.stream}. */
export interface StreamOptions {
  /**
   * The `seq` of the first durable event to yield: **inclusive**, so to go on after the last event you got,
   * pass its `seq + 1` (default 0, the first). Note the difference from the HTTP API's `?after=` and
   * `Last-Event-ID` and from `durable-agent tail --after`, which take the `seq` of the last event already
   * seen and start with the next one.
   *
   * @example
   * ```ts
   * let cursor = 0;
   * for await (const e of run.stream({ after: cursor })) if ('seq' in e) cursor = e.seq + 1;
   * ```
   */
  after?: number;
  /** Stop (promptly) when this aborts; the run itself goes on. */
  signal?: AbortSignal;
  /** Where live deltas come from, for this stream: overrides the client's; `false`: durable events only. */
  deltas?: DeltaFeed | false;
  /**
   * How often to read durable events while nothing new comes (default 100 ms); also how often a feed made
   * for this stream alone reads Temporal-native deltas (a client's runs share its feed, polled every 100 ms).
   */
  pollMs?: number;
  /** Also yield the run's sub-agents' durable events, tagged `child: <workflow id>` (as `events({ children: true })`). Default false. */
  children?: boolean;
}

interface Tagged<T extends string, V> {
  tag: T;
  value: V;
}

async function* tagged<T extends string, V>(tag: T, source: AsyncIterable<V>): AsyncGenerator<Tagged<T, V>> {
  for await (const value of source) yield { tag, value };
}

// eslint-disable-next-line require-yield -- an empty source
async function* nothing<T>(): AsyncGenerator<T> {
  return;
}

/**
 * How long `decide` keeps asking when the run refuses a call it has not reached but may be about to
 * (see {@link AgentRun.decide}): past this, the refusal stands.
 */
const NOT_REACHED_RETRY_MS = 30_000;

/** For this long after a worker was seen polling a running run's task queue, its events are queried without checking again. */
const WORKER_SEEN_MS = 2_000;

/** The call state a `decide` refusal carries (runs recorded before it carry none). */
function refusedState(cause: Error): RefusalDetails['state'] | undefined {
  if (!(cause instanceof ApplicationFailure)) return undefined;
  const detail = cause.details?.[0] as Partial<RefusalDetails> | undefined;
  return detail?.state;
}

/**
 * One agent run. `C` is the shape of its tool calls (`{ tool, args }`, a union by tool name when the
 * agent is known: see `AgentClient.start`), so results, events and pending approvals narrow on `tool`;
 * `O` is the type of a successful result's `output` (from the agent's output schema).
 */
export class AgentRun<C extends ToolCallShape = AnyToolCall, out O = UnknownOutput> {
  /**
   * @param handle the run's workflow handle.
   * @param options `deltas`: where `stream()` gets live deltas (default: through Temporal; `false`: none);
   * `hub`: shares one poller of durable events among this process's readers of the run (the client's);
   * `runId`: the execution the handle is pinned to, if any.
   * @internal Runs come from an `AgentClient` (`start`, `get`).
   */
  constructor(
    readonly handle: WorkflowHandle<typeof agentWorkflow>,
    private readonly options: { deltas?: DeltaFeed | false; hub?: EventHub; runId?: string } = {},
  ) {}

  /** Which readers read the same events: the workflow id, and the execution when this run pins one. */
  get followKey(): string {
    return this.options.runId ? `${this.workflowId}/${this.options.runId}` : this.workflowId;
  }

  /** The run's workflow id. */
  get workflowId(): string {
    return this.handle.workflowId;
  }

  /**
   * Wait for the typed result. Every ending is a result, discriminated by `status` (cancellation, limits
   * and failures included: `error` says why); only a run that could not run at all throws.
   *
   * @throws {RunNotFoundError} no run has this workflow id.
   * @throws {WorkflowFailedError} (from `@temporalio/client`) the workflow itself failed or was
   * terminated, e.g. an agent name no worker knows.
   * @example
   * ```ts
   * const result = await run.result();
   * if (result.status === 'success') console.log(result.finalText);
   * else console.error(result.status, result.error.message);
   * ```
   */
  result(): Promise<AgentRunResult<C, O>> {
    return this.call(() => this.handle.result() as Promise<AgentRunResult<C, O>>);
  }

  /**
   * One page of events from `cursor` (at most `limit`). Pass the page's `next` as the next cursor. A run
   * that has ended is read from its recorded history (no worker needed); a running one by a query.
   *
   * @throws {NoWorkerError} the run is running and no worker polls its task queue to answer.
   * @throws {RunNotFoundError} no run has this workflow id.
   */
  async readEvents(cursor = 0, limit?: number): Promise<EventPage<C>> {
    let page = await this.pageOf(this.options.runId, cursor, limit);
    // A run that continued as new keeps its earlier events in its earlier executions: read them there.
    // Such an execution is closed: read from its history, or (recorded before events were) a worker
    // replays it to answer: ask for as much as a page holds.
    for (let hops = 0; page.earlier && hops < 10_000; hops++) {
      page = await this.pageOf(page.earlier.runId, cursor, Math.max(limit ?? 0, EVENT_PAGE_LIMIT));
    }
    return page;
  }

  /** When a worker was last seen polling the run's task queue while it ran (0: not yet). */
  private workerSeenAt = 0;

  /** Recorded events of closed executions, by run id (null: it recorded none); closed executions never change. */
  private readonly recorded = new Map<string, RecordedEvents[] | null>();

  /**
   * A page of execution `runId` (default: the run's latest): from the events it recorded in its history
   * when it is closed (no worker needed), else by the `events` query — which a worker must answer.
   */
  private async pageOf(runId: string | undefined, cursor: number, limit: number | undefined): Promise<EventPage<C>> {
    const handle = runId ? this.handle.client.getHandle(this.workflowId, runId) : this.handle;
    let known = runId ? this.recorded.get(runId) : undefined;
    // With a worker seen a moment ago, the run's current execution is queried at once (one call per
    // read); an earlier execution of a run that continued as new is closed: read from history first.
    const earlierExecution = runId !== this.options.runId;
    if (known === undefined && (earlierExecution || Date.now() - this.workerSeenAt > WORKER_SEEN_MS)) {
      const d = await this.call(() => handle.describe());
      if (d.status.name !== 'RUNNING') {
        known = (await readRecordedEvents(this.handle.client, this.workflowId, d.runId)) ?? null;
        this.recorded.set(d.runId, known);
      }
      if (!known) {
        if (!(await anyWorkflowPoller(this.handle.client, d.taskQueue).catch(() => true))) {
          throw new NoWorkerError(this.workflowId, d.taskQueue, { ended: d.status.name !== 'RUNNING' });
        }
        if (d.status.name === 'RUNNING') this.workerSeenAt = Date.now();
      }
    }
    if (known) return recordedPage(known, cursor, limit) as unknown as EventPage<C>;
    return this.call(() => handle.query(eventsQuery, cursor, limit) as Promise<unknown> as Promise<EventPage<C>>);
  }

  /**
   * The run's current state: status, step, usage, tools running now, calls waiting for a person.
   *
   * @throws {RunNotFoundError} no run has this workflow id.
   */
  snapshot(): Promise<RunSnapshot> {
    return this.call(() => this.handle.query(snapshotQuery));
  }

  /**
   * Tool calls waiting for a person, with their typed arguments.
   *
   * @throws {RunNotFoundError} no run has this workflow id.
   */
  pendingApprovals(options?: PendingApprovalsOptions): Promise<Array<PendingApproval<C | BudgetRequest>>> {
    // No argument unless asked: a worker older than defer takes the query without one.
    const args: [PendingApprovalsOptions?] = options?.includeDeferred ? [{ includeDeferred: true }] : [];
    return this.call(() => this.handle.query(pendingApprovalsQuery, ...args) as Promise<Array<PendingApproval<C | BudgetRequest>>>);
  }

  /**
   * Defer a waiting request ("not now") until a time: it leaves the inbox ({@link pendingApprovals},
   * `awaitingApproval()`) and returns at `until` (a durable timer). It is not a decision: the request stays
   * pending, its expiry still runs, and a decision meanwhile is taken. `by` must be allowed to decide it, and
   * `until` must be in the future and not after it expires. Needs a worker; see {@link signalDefer} otherwise.
   *
   * @throws {ApprovalRefusedError} the run refused it (the message says why).
   * @throws {RunEndedError} the run has already ended.
   * @throws {RunNotFoundError} no run has this workflow id.
   * @example
   * ```ts
   * await run.defer({ callId: 'call_1', until: new Date(Date.now() + 2 * 3600_000), by: 'ops:alice', reason: 'after the release' });
   * ```
   */
  defer(request: Omit<DeferRequest, 'until'> & { until: Date | string }): Promise<DeferReceipt> {
    const payload: DeferRequest = { path: 'sdk', ...request, until: new Date(request.until).toISOString() };
    return this.refusable(() => this.handle.executeUpdate(deferUpdate, { args: [payload] }));
  }

  /** {@link defer} fire-and-forget (a signal): accepted while no worker runs; a refusal shows as an `approval_refused` event. */
  async signalDefer(request: Omit<DeferRequest, 'until'> & { until: Date | string }): Promise<void> {
    const payload: DeferRequest = { path: 'sdk', ...request, until: new Date(request.until).toISOString() };
    await this.call(() => this.handle.signal(deferSignal, payload));
  }

  /**
   * Delegate a waiting request to someone else: `to` becomes its assignee and may decide it; its approvers
   * still may. `by` must be allowed to decide it; a request is delegated at most 5 times. Needs a worker; see
   * {@link signalDelegate} otherwise.
   *
   * @throws {ApprovalRefusedError} the run refused it (the message says why).
   * @throws {RunEndedError} the run has already ended.
   * @throws {RunNotFoundError} no run has this workflow id.
   */
  delegate(request: DelegateRequest): Promise<DelegateReceipt> {
    return this.refusable(() => this.handle.executeUpdate(delegateUpdate, { args: [{ path: 'sdk', ...request }] }));
  }

  /** {@link delegate} fire-and-forget (a signal): accepted while no worker runs; a refusal shows as an `approval_refused` event. */
  async signalDelegate(request: DelegateRequest): Promise<void> {
    await this.call(() => this.handle.signal(delegateSignal, { path: 'sdk', ...request }));
  }

  /** An update the run may refuse: its refusal becomes an {@link ApprovalRefusedError}. */
  private async refusable<T>(update: () => Promise<T>): Promise<T> {
    try {
      return await this.call(update);
    } catch (err) {
      if (err instanceof WorkflowUpdateFailedError && err.cause) throw new ApprovalRefusedError(err.cause.message, { cause: err });
      throw err;
    }
  }

  /**
   * Decide a pending approval and learn what happened (a Temporal update: validated before anything is
   * written to history). Needs a worker to be running for the run; see {@link signalDecision} otherwise.
   *
   * A call listed by {@link pendingApprovals} may not be in the run's history yet: a query can answer from
   * a workflow task still in flight, or from a worker that died before completing it. The run then
   * refuses the call as not reached; `decide` asks again (for up to 30 s) while a workflow task is in
   * flight or a query still lists the call, so such a decision is applied rather than lost.
   *
   * With `scope: 'session'` (this conversation) or `scope: 'agent'` (every run of the run's agent; `for:
   * '8h'` ends it after that long), the decision is also a standing rule: it is written to the rules entity
   * first (`by` must be one of its editors: else a `RuleChangeRefusedError`, and nothing is decided), then
   * the decision is sent naming it (`rule`), so the run applies it at once.
   *
   * @throws {ApprovalRefusedError} (code `approval_refused`) the run refused the decision: unknown or
   * already decided call, expired approval, malformed decision, approver not allowed. The message is the reason.
   * @throws `RuleChangeRefusedError` scope session/agent: the rules entity refused the rule.
   * @throws {RunEndedError} the run has already ended (its `status` says how).
   * @throws {RunNotFoundError} no run has this workflow id.
   * @example
   * ```ts
   * const [call] = await run.pendingApprovals();
   * try {
   *   await run.decide({ callId: call.callId, decision: 'approve', by: 'ops:alice', reason: 'checked' });
   * } catch (err) {
   *   if (err instanceof ApprovalRefusedError) console.warn('refused:', err.message);
   *   else throw err;
   * }
   * ```
   */
  async decide(input: DecisionInput): Promise<DecisionReceipt> {
    // Scope session/agent: the standing rule is written first (by an editor of the rules), then named.
    const decision = await withStandingRule(input, this.handle, async (callId) =>
      (await this.pendingApprovals({ includeDeferred: true })).find((p) => p.callId === callId),
    );
    const deadline = Date.now() + NOT_REACHED_RETRY_MS;
    for (let wait = 100; ; wait = Math.min(2 * wait, 1000)) {
      try {
        return await this.call(() => this.handle.executeUpdate(decideUpdate, { args: [withPath(decision)] }));
      } catch (err) {
        if (!(err instanceof WorkflowUpdateFailedError && err.cause)) throw err;
        // A call seen in a query before the run recorded it (the query was answered from a workflow task
        // still in flight, or by a worker that died before completing it): the run gets there again from
        // its history, so ask again while it may, instead of losing the decision.
        if (refusedState(err.cause) === 'not_reached' && Date.now() < deadline && (await this.mayReach(decision.callId))) {
          await sleep(wait);
          continue;
        }
        throw new ApprovalRefusedError(err.cause.message, { cause: err });
      }
    }
  }

  /**
   * The run's approval audit trail as it stands: who decided what on which call, when, through which path
   * (`sdk`, `cli`, `http`, `console`, `chat`; `temporal` for a raw signal or update; `rule`, `timeout`,
   * `policy`, `parent` for the run's own), with reason and rule. Derived from the run's events: a closed
   * run is read from its history (no worker needed), a running one by query.
   *
   * @throws {NoWorkerError} the run is running and no worker polls its task queue to answer.
   * @throws {RunNotFoundError} no run has this workflow id.
   */
  audit(options: AuditOptions = {}): Promise<AuditRecord[]> {
    const client = this.handle.client;
    const child = (workflowId: string): Promise<AuditRecord[]> =>
      new AgentRun(client.getHandle<typeof agentWorkflow>(workflowId), { deltas: false }).audit(options);
    return readAudit(
      this.workflowId,
      (cursor) => this.readEvents(cursor) as unknown as Promise<EventPage>,
      options.children ? child : undefined,
    );
  }

  /** Whether the run may still reach `callId`: a workflow task is in flight, or a query lists the call as pending. */
  private async mayReach(callId: string): Promise<boolean> {
    const described = await this.handle.describe().catch(() => undefined);
    if (described?.raw.pendingWorkflowTask) return true;
    const pending = await this.pendingApprovals().catch(() => []);
    return pending.some((p) => p.callId === callId);
  }

  /**
   * Send a decision fire-and-forget (a signal): accepted by the server even while no worker runs;
   * a decision that cannot apply shows up as an `approval_refused` event.
   *
   * @throws {RunEndedError} the run has already ended (its `status` says how).
   * @throws {RunNotFoundError} no run has this workflow id.
   */
  async signalDecision(decision: ApprovalDecision): Promise<void> {
    await this.call(() => this.handle.signal(approvalSignal, withPath(decision)));
  }

  /**
   * Request cancellation; the run ends with status `cancelled` and its partial transcript.
   *
   * @throws {RunNotFoundError} no run has this workflow id.
   */
  async cancel(): Promise<void> {
    await this.call(() => this.handle.cancel());
  }

  /**
   * Send the agent a message and wait until it is in the run's inbox (an update): the model reads it at
   * its next call — at once if a session waits, or steering the turn in progress. Needs a worker.
   *
   * @throws {MessageRefusedError} malformed (empty, over 100,000 characters), inbox full, or the run is ending.
   * @throws {RunEndedError} the run has already ended (its `status` says how).
   * @throws {RunNotFoundError} no run has this workflow id.
   * @example
   * ```ts
   * const { turn } = await run.send('And in Lyon?');
   * ```
   */
  async send(message: string | UserMessageInput): Promise<MessageReceipt> {
    try {
      return await this.call(() => this.handle.executeUpdate(sendUpdate, { args: [message] }));
    } catch (err) {
      if (err instanceof WorkflowUpdateFailedError && err.cause) throw new MessageRefusedError(err.cause.message, { cause: err });
      throw err;
    }
  }

  /**
   * Send a message fire-and-forget (a signal): accepted even while no worker runs; refusals show as `message_refused` events.
   *
   * @throws {RunEndedError} the run has already ended (its `status` says how).
   */
  async signalMessage(message: string | UserMessageInput): Promise<void> {
    await this.call(() => this.handle.signal(messageSignal, message));
  }

  /**
   * End a session once the model has answered what it was sent (a signal: accepted while no worker runs).
   * The run then returns its result; a one-shot run ends by itself and ignores this.
   *
   * @throws {RunEndedError} the run has already ended (its `status` says how).
   */
  async end(): Promise<void> {
    await this.call(() => this.handle.signal(endSignal));
  }

  /**
   * Every event from `from` on, as the run produces them, ending after `done` (or when the workflow
   * closes without one, e.g. it failed to start). Aborting `signal` ends the iteration at once, even
   * in the middle of a wait; breaking out of the loop does too. A finished run's events are read from
   * its history (no worker needed); a running run's wait for a worker while none polls its task queue.
   *
   * @throws {NoWorkerError} the run ended without recording its events in history, and no worker polls its task queue.
   * @throws {RunNotFoundError} no run has this workflow id.
   * @example
   * ```ts
   * const stop = new AbortController();
   * for await (const event of run.events({ signal: stop.signal })) {
   *   if (event.type === 'tool_call' && event.tool === 'refund') console.log('refund of', event.args.amount);
   *   if (event.type === 'approval_requested') stop.abort(); // stop watching; the run goes on
   * }
   * ```
   */
  events(options: EventsOptions & { children: true }): AsyncGenerator<AgentEvent<C> | ChildAgentEvent>;
  events(options?: EventsOptions): AsyncGenerator<AgentEvent<C>>;
  events(options: EventsOptions = {}): AsyncGenerator<AgentEvent<C> | ChildAgentEvent> {
    if (!options.children) return this.ownRunEvents(options);
    const { children: _children, ...rest } = options;
    const client = this.handle.client;
    const open = (workflowId: string) =>
      new AgentRun(client.getHandle<typeof agentWorkflow>(workflowId), { deltas: false }).events({ ...rest, from: 0, children: true });
    // The parent's events are of shape C; the merge only looks at their `type`.
    return withChildEvents(this.ownRunEvents(rest) as unknown as AsyncIterable<AgentEvent>, open) as AsyncGenerator<
      AgentEvent<C> | ChildAgentEvent
    >;
  }

  private async *ownRunEvents(options: EventsOptions): AsyncGenerator<AgentEvent<C>> {
    if (this.options.hub) {
      // The hub holds events of any call shape; this run's are of shape C.
      yield* this.options.hub.follow(this as unknown as FollowedRun, options) as unknown as AsyncGenerator<AgentEvent<C>>;
      return;
    }
    yield* this.ownEvents(options);
  }

  /** The events loop of one reader, polling on its own (`events()` shares it through the client's hub). */
  async *ownEvents(options: EventsOptions = {}): AsyncGenerator<AgentEvent<C>> {
    const { signal } = options;
    let cursor = options.from ?? 0;
    const pollMs = options.pollMs ?? 200;
    let interrupted = 0;
    let seenEvent = false;
    let emptyPolls = 0;
    for (;;) {
      if (signal?.aborted) return;
      let page: EventPage<C> | typeof ABORTED;
      try {
        page = await untilAborted(this.readEvents(cursor), signal);
        interrupted = 0;
      } catch (err) {
        if (err instanceof RunNotFoundError) throw err;
        // A running run whose worker is gone: its events come once a worker runs again.
        if (err instanceof NoWorkerError && !(await this.closed())) {
          if (await sleep(Math.max(pollMs, 1000), signal)) return;
          continue;
        }
        if (err instanceof NoWorkerError) throw err;
        if (await this.closed()) return;
        // A query in flight when its worker died comes back cancelled: ask again (another worker answers).
        if (interruptedQuery(err) && ++interrupted <= 10) {
          if (await sleep(pollMs, signal)) return;
          continue;
        }
        throw err;
      }
      if (page === ABORTED) return;
      for (const e of page.events) {
        if (signal?.aborted) return;
        seenEvent = true;
        yield e;
      }
      cursor = page.next;
      if (page.done) return;
      if (page.events.length === 0) {
        const closed = await untilAborted(this.closed(), signal);
        if (closed === ABORTED) return;
        if (closed) {
          const last = await this.readEvents(cursor);
          for (const e of last.events) yield e;
          return;
        }
        if (await sleep(emptyPollWait(pollMs, ++emptyPolls, seenEvent), signal)) return;
      }
    }
  }

  /**
   * The run as it happens: every durable event (from `after`, exactly once and in order, across worker
   * restarts and continue-as-new) merged with live deltas of the model's answer (text, thinking, tool-call
   * arguments). Deltas are live: a reader that is behind may miss some (their numbers show it) and gets
   * each finished step's text whole in its durable `text` event; deltas of an attempt that failed are
   * followed by `attempt_voided`, and of a finished step never shown. Running tools' progress comes as
   * `tool_progress` items (live too: the newest per call; none after the call's `tool_result`, none of an
   * attempt once a later one reported). Ends after `done`, or when `signal` aborts; a slow reader never
   * slows the run.
   *
   * @example
   * ```ts
   * for await (const e of run.stream()) {
   *   if (e.type === 'delta' && e.delta.type === 'text') process.stdout.write(e.delta.text);
   *   if (e.type === 'attempt_voided') console.log('\n(retrying…)');
   *   if (e.type === 'tool_progress') console.log(`\n${e.tool}: ${e.message}`);
   * }
   * ```
   */
  async *stream(options: StreamOptions = {}): AsyncGenerator<StreamEvent<C>> {
    const stop = new AbortController();
    const onAbort = () => stop.abort();
    options.signal?.addEventListener('abort', onAbort, { once: true });
    const feed =
      options.deltas ??
      this.options.deltas ??
      new TemporalDeltaFeed(this.handle.client, options.pollMs !== undefined ? { pollMs: options.pollMs } : {});
    const filter = new LiveFilter<C>();
    const durable = tagged(
      'durable' as const,
      this.events({
        from: options.after ?? 0,
        signal: stop.signal,
        pollMs: options.pollMs ?? 100,
        ...(options.children ? { children: true as const } : {}),
      }),
    );
    // Deltas stop with the run's `done`; with children, their events may still be coming then.
    const liveStop = new AbortController();
    stop.signal.addEventListener('abort', () => liveStop.abort(), { once: true });
    const live = feed
      ? tagged('live' as const, feed.follow(this.workflowId, { signal: liveStop.signal }))
      : tagged('live' as const, nothing<LiveDelta>());
    try {
      for await (const item of merge<Tagged<'durable', AgentEvent<C>> | Tagged<'live', LiveDelta>>(durable, live)) {
        if (item.tag === 'durable') {
          // A sub-agent's event goes out as it is (its deltas are not followed).
          if ('child' in item.value) {
            yield item.value as StreamEvent<C>;
            continue;
          }
          for (const e of filter.durable(item.value)) yield e;
          if (item.value.type === 'done') {
            if (!options.children) return;
            liveStop.abort();
          }
        } else {
          const e = filter.delta(item.value);
          if (e) yield e;
        }
      }
    } finally {
      stop.abort();
      options.signal?.removeEventListener('abort', onAbort);
    }
  }

  /**
   * The run's answer text as it should be shown: pieces to append, and `reset`s that replace a step's text
   * shown so far (a failed attempt's text is taken back; a reader that missed deltas gets the step whole).
   */
  async *textStream(options: StreamOptions = {}): AsyncGenerator<TextChunk> {
    const text = new TextAccumulator();
    for await (const e of this.stream(options)) yield* text.push(e);
  }

  private async closed(): Promise<boolean> {
    const d = await this.call(() => this.handle.describe());
    return d.status.name !== 'RUNNING';
  }

  /**
   * Run `op`, turning Temporal's "workflow not found" into {@link RunEndedError} when the run exists but
   * has ended (signals, updates and cancellation of a closed run), else {@link RunNotFoundError}.
   */
  private async call<T>(op: () => Promise<T>): Promise<T> {
    try {
      return await op();
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) throw await this.notFound(err);
      throw err;
    }
  }

  /** What "workflow not found" means for this run: ended (with its status), or no such run. */
  private async notFound(err: WorkflowNotFoundError): Promise<RunEndedError | RunNotFoundError> {
    const described = await this.handle.describe().catch(() => undefined);
    if (described && described.status.name !== 'RUNNING')
      return new RunEndedError(this.workflowId, runEndedStatus(described.status.name), { cause: err });
    return new RunNotFoundError(this.workflowId, { cause: err });
  }
}

/** A query the server cancelled or could not deliver (e.g. its worker was killed mid-query): worth asking again. */
function interruptedQuery(err: unknown): boolean {
  if (!(err instanceof ServiceError)) return false;
  const code = (err.cause as { code?: unknown } | undefined)?.code;
  // gRPC CANCELLED (1), DEADLINE_EXCEEDED (4), UNAVAILABLE (14)
  return code === 1 || code === 4 || code === 14;
}

/** A decision sent by this SDK says so, unless its sender named another path (the CLI, the HTTP app, the chat handler). */
function withPath(decision: ApprovalDecision): ApprovalDecision {
  return decision.path ? decision : { ...decision, path: 'sdk' };
}
