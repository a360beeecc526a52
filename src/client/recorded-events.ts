/**
 * A closed execution's events as it recorded them in its history (the inputs of its `recordEvents`
 * activities), read through the client alone: no worker needed.
 */
import type { WorkflowClient } from '@temporalio/client';
// Deep import: @temporalio/common exports no public way to decode one payload through a data converter's codecs.
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow';
import type { RecordedEvents } from '../core/events/event-log';

/** The `recordEvents` chunks of execution `runId` of `workflowId`, in order; undefined when it recorded none (runs recorded before, or that did not end by themselves). */
export async function readRecordedEvents(client: WorkflowClient, workflowId: string, runId: string): Promise<RecordedEvents[] | undefined> {
  const history = await client.getHandle(workflowId, runId).fetchHistory();
  const converter = client.options.loadedDataConverter;
  const chunks: RecordedEvents[] = [];
  for (const event of history.events ?? []) {
    const scheduled = event.activityTaskScheduledEventAttributes;
    if (scheduled?.activityType?.name !== 'recordEvents' || !scheduled.input?.payloads?.length) continue;
    const chunk = await decodeFromPayloadsAtIndex<RecordedEvents>(converter, 0, scheduled.input.payloads);
    if (chunk && Array.isArray(chunk.events)) chunks.push(chunk);
  }
  return chunks.length ? chunks.sort((a, b) => a.first - b.first) : undefined;
}
