/** Whether a worker serves a task queue, asked of the server through the client alone. */
import type { WorkflowClient } from '@temporalio/client';
import { temporal } from '@temporalio/proto';

/** What {@link anyWorkflowPoller} needs of a client: a `Client` and a `WorkflowClient` both have it. */
export type PollerClient = Pick<WorkflowClient, 'workflowService'> & { options: { namespace: string } };

/** Does some worker poll `taskQueue` for workflow tasks? */
export async function anyWorkflowPoller(client: PollerClient, taskQueue: string): Promise<boolean> {
  const response = await client.workflowService.describeTaskQueue({
    namespace: client.options.namespace,
    taskQueue: { name: taskQueue, kind: temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
    taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
  });
  return response.pollers.length > 0;
}
