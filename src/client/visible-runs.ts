/**
 * Runs as visibility lists them, read without decoding their memos: the SDK's `workflow.list()` decodes
 * every run's memo with the client's codec, so one run whose memo is sealed with a key this process does
 * not hold would fail the whole listing.
 */
import type { Client } from '@temporalio/client';
import type { TypedSearchAttributes } from '@temporalio/common';
import { optionalTsToDate, tsToDate } from '@temporalio/common';
import { temporal as proto } from '@temporalio/proto';
// Deep import: @temporalio/common's root does not export decoding typed search attributes from their payloads.
import { decodeTypedSearchAttributes } from '@temporalio/common/lib/converter/payload-search-attributes';

/** One listed run: what visibility says of it, no memo. */
export interface VisibleRun {
  workflowId: string;
  runId: string;
  typedSearchAttributes: TypedSearchAttributes;
  /** Set for a child workflow. */
  parentExecution?: { workflowId: string; runId: string };
  /** The server's execution status: `RUNNING`, `COMPLETED`, `FAILED`, `CANCELLED`, `TERMINATED`, `CONTINUED_AS_NEW`, `TIMED_OUT`. */
  status: string;
  startTime: Date;
  closeTime?: Date;
  taskQueue: string;
}

/** `WORKFLOW_EXECUTION_STATUS_RUNNING` → `RUNNING`. */
function statusName(status: proto.api.enums.v1.WorkflowExecutionStatus | null | undefined): string {
  const name = proto.api.enums.v1.WorkflowExecutionStatus[status ?? 0] ?? 'UNSPECIFIED';
  return name.replace(/^WORKFLOW_EXECUTION_STATUS_/, '');
}

/** Every run of the client's namespace matching the visibility `query`, page by page. */
export async function* visibleRuns(temporal: Client, query: string): AsyncGenerator<VisibleRun> {
  let nextPageToken: Uint8Array = Buffer.alloc(0);
  for (;;) {
    const page = await temporal.workflowService.listWorkflowExecutions({ namespace: temporal.options.namespace, query, nextPageToken });
    for (const raw of page.executions) {
      const parent = raw.parentExecution;
      yield {
        workflowId: raw.execution?.workflowId ?? '',
        runId: raw.execution?.runId ?? '',
        typedSearchAttributes: decodeTypedSearchAttributes(raw.searchAttributes?.indexedFields),
        status: statusName(raw.status),
        startTime: tsToDate(raw.startTime!),
        ...(raw.closeTime ? { closeTime: optionalTsToDate(raw.closeTime) } : {}),
        taskQueue: raw.taskQueue ?? '',
        ...(parent ? { parentExecution: { workflowId: parent.workflowId ?? '', runId: parent.runId ?? '' } } : {}),
      };
    }
    if (!page.nextPageToken?.length) return;
    nextPageToken = page.nextPageToken;
  }
}
