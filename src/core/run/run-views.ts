/**
 * What clients are shown of runs: the views the client library builds (`listRuns`, `readRunReport`) and the
 * HTTP API answers (`GET /runs`, `/runs/:id`, `/runs/:id/report`, `/approvals`, `/me`), which the web
 * console reads. Types only, shared by the server and the browser.
 */
import type { PendingApproval } from '../approvals/approval-requests';
import type { RunSnapshot } from './contract';
import type { AgentRunResult, RunReport, RunStatus } from './result';
import type { Usage } from '../budget/usage';

/** Who a bearer token stands for (`GET /me`). */
export interface CallerView {
  /** e.g. `ops:alice`. */
  identity: string;
  /** May it decide approvals (it holds `decide` or `admin`)? */
  approve: boolean;
  /** What its token may do: `read`, `start`, `message`, `cancel`, `decide`, `waive`, `metrics`, `admin` (implies all). */
  permissions: string[];
}

/** One listed run. */
export interface ListedRun {
  workflowId: string;
  runId: string;
  agent?: string;
  /** The run's status search attribute, else its Temporal execution status (lower case). */
  status: string;
  startedAt: string;
  closedAt?: string;
  /** Steps taken: from the result of a finished run, or the snapshot of a running one a worker answers for. */
  steps?: number;
  /** Cost in USD, from a finished run's result (absent when unknown or no step had a price). */
  costUsd?: number;
  /** Steps without a known price (finished runs). */
  unpricedSteps?: number;
}

/** What `GET /runs/:id` answers. */
export interface RunView {
  workflowId: string;
  runId: string;
  /** The workflow's status in Temporal, lower case: `running`, `completed`, `failed`, `canceled`, `terminated`, … */
  status: string;
  /** The run's state (undefined when the run cannot answer, e.g. it failed before it began). */
  snapshot?: RunSnapshot;
  /** Once the run has ended: its result. */
  result?: AgentRunResult;
  /** Once the run has ended without a result (the workflow itself failed, e.g. an unknown agent): why. */
  failure?: string;
  /** Set when the snapshot is left out because no worker answered in time. */
  note?: string;
  /** Who started the run, when recorded (its memo): only they, or an `admin` token, may message or cancel it. */
  startedBy?: string;
}

/** An ended run's report, from its result. */
export interface EndedRunReport {
  ended: true;
  workflowId: string;
  runId: string;
  /** How the run ended (its result's status). */
  status: RunStatus;
  report: RunReport;
  /** Steps taken (model calls, including any the report leaves out). */
  steps: number;
  /** The final answer, when the run wrote one. */
  finalText?: string;
  startedAt: string;
  closedAt?: string;
}

/** A run that ended without a result (its workflow failed or was terminated): no report. */
export interface FailedRunReport {
  ended: true;
  workflowId: string;
  runId: string;
  /** Temporal's status of the run, lower case: `failed`, `terminated`, `timed_out`, … */
  status: string;
  /** Why there is no result. */
  failure: string;
  startedAt: string;
  closedAt?: string;
}

/** A run still running: no report yet, with what its snapshot tells (when a worker answered in time). */
export interface RunningRunReport {
  ended: false;
  workflowId: string;
  runId: string;
  /** The snapshot's status (`running`, `awaiting_approval`, …), else `running`. */
  status: string;
  startedAt: string;
  taskQueue: string;
  /** Steps taken so far (from the snapshot). */
  step?: number;
  /** Tokens used so far (from the snapshot). */
  usage?: Usage;
  snapshot?: RunSnapshot;
}

/** What `readRunReport` (the client library) finds of a run: `GET /runs/:id/report`. */
export type RunReportView = EndedRunReport | FailedRunReport | RunningRunReport;

/** One message of the context. */
export interface ContextMessage {
  role: 'user' | 'assistant' | 'tool';
  text: string;
}

/** A pending call as the inbox shows it to one caller. */
export type InboxCall = PendingApproval & {
  /** May the caller decide it (its token may approve, and the call's approvers, if any, name it)? */
  mayDecide: boolean;
};

/** A run of the inbox. */
export interface InboxRun {
  workflowId: string;
  runId: string;
  agent: string | undefined;
  /** Set for a sub-agent's run (a child workflow): the run that started it, which lists these approvals too. */
  parent?: { workflowId: string; runId: string };
  pending: InboxCall[];
  /** The last messages (at most 6, each cut to about 500 characters) that led to its pending calls. */
  context: ContextMessage[];
  /**
   * Set when the server cannot read the run (e.g. `sealed with key k2, which this process does not hold: …`):
   * `pending` and `context` are then empty; the other runs are listed as usual.
   */
  error?: string;
}

/** The body of `GET /approvals` and the data of each `inbox` event. */
export interface InboxView {
  runs: InboxRun[];
}
