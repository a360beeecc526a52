/** The worker's side of the rules entity: make sure it exists, with the editors of the worker's trusted configuration. */
import { Client } from '@temporalio/client';
import type { PayloadCodec } from '@temporalio/common';
import type { NativeConnection } from '@temporalio/worker';
import { Runtime } from '@temporalio/worker';
import { RULES_TASK_QUEUE, RULES_WORKFLOW_ID } from '../core/approvals/rules';
import { RULES_WORKFLOW, seedEditorsSignal } from '../workflows/rules-definitions';

/** `createWorker`'s `approvalRules` option. */
export interface ApprovalRulesWorkerOptions {
  /**
   * Identities allowed to change the standing rules (e.g. `['ops:alice']`), from trusted configuration:
   * the entity is started with them when absent, and takes them when it has no editors yet.
   */
  editors?: readonly string[];
}

/**
 * Start the rules entity with `editors` when absent, or give them to it (it keeps them only while it has
 * no editors): one signal-with-start, idempotent. A failure is logged, not thrown (the worker still runs agents).
 */
export async function ensureRulesEntity(
  connection: NativeConnection,
  namespace: string,
  codec: PayloadCodec,
  editors: readonly string[],
): Promise<void> {
  const client = new Client({ connection, namespace, dataConverter: { payloadCodecs: [codec] } });
  try {
    await client.workflow.signalWithStart(RULES_WORKFLOW, {
      workflowId: RULES_WORKFLOW_ID,
      taskQueue: RULES_TASK_QUEUE,
      args: [{ editors: [...editors] }],
      signal: seedEditorsSignal,
      signalArgs: [{ editors: [...editors] }],
    });
  } catch (err) {
    Runtime.instance().logger.warn(`durable-agent: could not start the approval rules entity: ${String(err)}`);
  }
}
