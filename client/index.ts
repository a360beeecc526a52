import { randomUUID } from 'node:crypto';
import { Client, Connection, WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import type { WorkflowHandle } from '@temporalio/client';
import { AGENT_WORKFLOW, DEFAULT_TASK_QUEUE } from '../core/contract';
import type { AgentWorkflowInput, RunSnapshot } from '../core/contract';
import type { AgentEvent, EventPage } from '../core/events';
import type { AgentRunResult } from '../core/result';
import type { agentWorkflow } from '../workflows/agent';
import type { ApprovalDecision, PendingApproval, RunPolicy } from '../core/approvals';
import type { DecisionReceipt } from '../core/contract';
import { approvalSignal, decideUpdate, eventsQuery, pendingApprovalsQuery, snapshotQuery } from '../workflows/definitions';
import { AGENT_NAME, AWAITING_APPROVAL_QUERY } from '../workflows/search-attributes';

/** Options of {@link AgentClient.connect}. */
export interface AgentClientOptions {
  /** An existing Temporal client. */
  client?: Client;
  /** Default `TEMPORAL_ADDRESS` or `localhost:7233`. */
  address?: string;
  namespace?: string;
  /** Task queue of the agent workers. Default `durable-agent`. */
  taskQueue?: string;
}

/** Options of one run. */
export interface StartOptions {
  /** The user's request. */
  input: string;
  /** Default `<agent>-<uuid>`. */
  workflowId?: string;
  /** Lower the agent's step cap for this run. */
  maxSteps?: number;
  /** Run-level approval policy by tool name (`*` for the rest): `allow`, `ask` or `deny`. */
  policy?: RunPolicy;
}

/** A run waiting for people, as visibility and its `pendingApprovals` query report it. */
export interface AwaitingRun {
  workflowId: string;
  runId: string;
  agent: string | undefined;
  pending: PendingApproval[];
}

/** Starts and finds agent runs. */
export class AgentClient {
  constructor(
    readonly temporal: Client,
    readonly taskQueue: string = DEFAULT_TASK_QUEUE,
  ) {}

  /** Connect to Temporal. */
  static async connect(options: AgentClientOptions = {}): Promise<AgentClient> {
    if (options.client) return new AgentClient(options.client, options.taskQueue);
    const connection = await Connection.connect({ address: options.address ?? process.env.TEMPORAL_ADDRESS ?? 'localhost:7233' });
    const client = new Client({ connection, ...(options.namespace ? { namespace: options.namespace } : {}) });
    return new AgentClient(client, options.taskQueue);
  }

  /** Start a run of `agent`. */
  async start(agent: string, options: StartOptions): Promise<AgentRun> {
    const input: AgentWorkflowInput = {
      agent,
      prompt: options.input,
      ...(options.maxSteps !== undefined ? { maxSteps: options.maxSteps } : {}),
      ...(options.policy ? { policy: options.policy } : {}),
    };
    const handle = await this.temporal.workflow.start<typeof agentWorkflow>(AGENT_WORKFLOW, {
      taskQueue: this.taskQueue,
      workflowId: options.workflowId ?? `${agent}-${randomUUID()}`,
      args: [input],
    });
    return new AgentRun(handle);
  }

  /**
   * Every run waiting for a person, found by search attribute (`DurableAgentAwaitingApproval = true`),
   * with its pending approvals read from the run itself (visibility lags by a moment; the query does not).
   */
  async awaitingApproval(): Promise<AwaitingRun[]> {
    const runs: AwaitingRun[] = [];
    for await (const w of this.temporal.workflow.list({ query: AWAITING_APPROVAL_QUERY })) {
      const run = this.get(w.workflowId, w.runId);
      let pending: PendingApproval[];
      try {
        pending = await run.pendingApprovals();
      } catch {
        continue; // closed or unreadable since visibility was written
      }
      if (pending.length) runs.push({ workflowId: w.workflowId, runId: w.runId, agent: w.typedSearchAttributes.get(AGENT_NAME), pending });
    }
    return runs;
  }

  /** A handle on an existing run. */
  get(workflowId: string, runId?: string): AgentRun {
    return new AgentRun(this.temporal.workflow.getHandle<typeof agentWorkflow>(workflowId, runId));
  }
}

/** A decision the run refused (the reason is the message). */
export class ApprovalRefusedError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ApprovalRefusedError';
  }
}

/** One agent run. */
export class AgentRun {
  constructor(readonly handle: WorkflowHandle<typeof agentWorkflow>) {}

  get workflowId(): string {
    return this.handle.workflowId;
  }

  /** Wait for the typed result (every ending, cancellation included, is a result; a run that fails to start throws). */
  result(): Promise<AgentRunResult> {
    return this.handle.result();
  }

  /** One page of events from `cursor`. */
  readEvents(cursor = 0, limit?: number): Promise<EventPage> {
    return this.handle.query(eventsQuery, cursor, limit);
  }

  /** The run's current state. */
  snapshot(): Promise<RunSnapshot> {
    return this.handle.query(snapshotQuery);
  }

  /** Tool calls waiting for a person. */
  pendingApprovals(): Promise<PendingApproval[]> {
    return this.handle.query(pendingApprovalsQuery);
  }

  /**
   * Decide a pending approval and learn what happened (an update). Rejected with the reason, and nothing
   * written to history, for an unknown or already decided call, an expired approval, a malformed
   * decision or an approver who is not allowed.
   */
  async decide(decision: ApprovalDecision): Promise<DecisionReceipt> {
    try {
      return await this.handle.executeUpdate(decideUpdate, { args: [decision] });
    } catch (err) {
      if (err instanceof WorkflowUpdateFailedError && err.cause) throw new ApprovalRefusedError(err.cause.message, { cause: err });
      throw err;
    }
  }

  /** Send a decision fire-and-forget (a signal): accepted even while no worker runs; refusals show as `approval_refused` events. */
  async signalDecision(decision: ApprovalDecision): Promise<void> {
    await this.handle.signal(approvalSignal, decision);
  }

  /** Request cancellation; the run ends with status `cancelled` and its partial transcript. */
  async cancel(): Promise<void> {
    await this.handle.cancel();
  }

  /**
   * Every event from `from` on, as the run produces them, ending after `done` (or when the workflow
   * closes without one, e.g. it failed to start).
   */
  async *events(options: { from?: number; pollMs?: number; signal?: AbortSignal } = {}): AsyncGenerator<AgentEvent> {
    let cursor = options.from ?? 0;
    const pollMs = options.pollMs ?? 200;
    for (;;) {
      if (options.signal?.aborted) return;
      let page: EventPage;
      try {
        page = await this.readEvents(cursor);
      } catch (err) {
        if (err instanceof WorkflowNotFoundError) throw err;
        if (await this.closed()) return;
        throw err;
      }
      for (const e of page.events) yield e;
      cursor = page.next;
      if (page.done) return;
      if (page.events.length === 0) {
        if (await this.closed()) {
          const last = await this.readEvents(cursor);
          for (const e of last.events) yield e;
          return;
        }
        await new Promise((r) => setTimeout(r, pollMs));
      }
    }
  }

  private async closed(): Promise<boolean> {
    const d = await this.handle.describe();
    return d.status.name !== 'RUNNING';
  }
}
