import { randomUUID } from 'node:crypto';
import { Client, Connection, WorkflowNotFoundError } from '@temporalio/client';
import type { WorkflowHandle } from '@temporalio/client';
import { AGENT_WORKFLOW, DEFAULT_TASK_QUEUE } from '../core/contract';
import type { AgentWorkflowInput, RunSnapshot } from '../core/contract';
import type { AgentEvent, EventPage } from '../core/events';
import type { AgentRunResult } from '../core/result';
import type { agentWorkflow } from '../workflows/agent';
import { eventsQuery, snapshotQuery } from '../workflows/definitions';

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
    };
    const handle = await this.temporal.workflow.start<typeof agentWorkflow>(AGENT_WORKFLOW, {
      taskQueue: this.taskQueue,
      workflowId: options.workflowId ?? `${agent}-${randomUUID()}`,
      args: [input],
    });
    return new AgentRun(handle);
  }

  /** A handle on an existing run. */
  get(workflowId: string, runId?: string): AgentRun {
    return new AgentRun(this.temporal.workflow.getHandle<typeof agentWorkflow>(workflowId, runId));
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
