/**
 * `durable-agent/workflow`: agents inside your own Temporal workflows. Workflow-safe: import it from
 * workflow code (it loads only `@temporalio/workflow` and durable-agent's deterministic modules). The
 * worker running those workflows needs the `durableAgents` plugin (`durable-agent/worker`).
 *
 * @example
 * ```ts
 * import { runAgent } from 'durable-agent/workflow';
 * import type { support } from './agents'; // type only: agent definitions hold tool code
 *
 * export async function orderWorkflow(orderId: string) {
 *   const result = await runAgent<typeof support>('support', { input: `Draft a refund for order ${orderId}` });
 *   return result.status === 'success' ? result.finalText : undefined;
 * }
 * ```
 *
 * @module durable-agent/workflow
 */
export { runAgent, startAgent } from '../workflows/run-agent';
export type { AgentChild, AgentResultOf, RunAgentOptions } from '../workflows/run-agent';
export type { ApprovalWaiver } from '../core/approvals/run-policy';
export { consolidate } from '../workflows/consolidate';
export type {
  ConsolidateAgentOption,
  ConsolidateAggregateOption,
  ConsolidateFailure,
  ConsolidateOptions,
  ConsolidateResult,
  ConsolidateSuccess,
  WorkflowAggregateFn,
} from '../workflows/consolidate';
export type { ConsolidatedChild, ConsolidatedFailure, ConsolidatedRun, ChildErrorPolicy } from '../core/sub-agents/consolidate';
/**
 * The agent workflows, for a workflows file bundled without the plugin: `export { agentWorkflow,
 * chainWorkflow, consolidateWorkflow, deliverNotifications } from 'durable-agent/workflow'`
 * (`deliverNotifications` sends the approval notifications a run left undelivered when it closed;
 * `approvalRulesWorkflow` is the namespace's standing approval rules, on the queue `durable-agent.rules`).
 */
export { agentWorkflow, approvalRulesWorkflow, chainWorkflow, consolidateWorkflow, deliverNotifications } from '../workflows';
export type { DeliverNotificationsInput, DeliverNotificationsResult } from '../workflows/notify';
export type { ConsolidateWorkflowInput } from '../core/sub-agents/consolidate';
export type { ChainWorkflowInput } from '../core/sub-agents/sub-agent';
