/**
 * Workflow code of the refund example (see `refund-workflow.ts`): your own order workflow, in which an
 * agent is one step. It asks the `refund-drafter` agent for a refund proposal, waits for a person to
 * review it (a signal), then pays with its own activity. Bundled by the worker beside the agent
 * workflows (the `durableAgents` plugin does that).
 */
import { condition, defineQuery, defineSignal, proxyActivities, setHandler } from '@temporalio/workflow';
import { startAgent } from '../src/entry/workflow'; // in your project: 'durable-agent/workflow'
import type { RefundActivities, refundDrafter } from './refund-workflow'; // types only: no tool code in workflows

/** A refund asked for by a customer. */
export interface RefundRequest {
  orderId: string;
  reason: string;
}

/** A person's review of the agent's proposal. */
export interface RefundReview {
  approve: boolean;
  by: string;
}

/** Where the refund stands (the `refundState` query). */
export interface RefundState {
  stage: 'drafting' | 'awaiting_review' | 'paying' | 'done';
  /** The agent run's workflow id: follow it, decide its approvals (`AgentClient.get(agentRun)`). */
  agentRun?: string;
  proposal?: { amount: number; note: string };
}

/** How the refund ended. */
export type RefundOutcome =
  | { status: 'paid'; amount: number; paymentId: string; approvedBy: string; agentRun: string }
  | { status: 'rejected'; rejectedBy: string; agentRun: string }
  | { status: 'no_proposal'; reason: string; agentRun: string };

export const reviewSignal = defineSignal<[RefundReview]>('review');
export const refundStateQuery = defineQuery<RefundState>('refundState');

const { payRefund } = proxyActivities<RefundActivities>({ startToCloseTimeout: '30s', retry: { maximumAttempts: 5 } });

/** The order's refund: an agent drafts it, a person reviews it, the workflow pays it. */
export async function refundWorkflow(request: RefundRequest): Promise<RefundOutcome> {
  const state: RefundState = { stage: 'drafting' };
  let review: RefundReview | undefined;
  setHandler(reviewSignal, (r) => {
    review ??= r; // the first review counts
  });
  setHandler(refundStateQuery, () => state);

  // 1. The agent drafts the refund: a child workflow, typed by the agent (its output schema).
  const agent = await startAgent<typeof refundDrafter>('refund-drafter', {
    input: `Draft a refund for order ${request.orderId}: ${request.reason}`,
  });
  state.agentRun = agent.workflowId;
  const draft = await agent.result();
  if (draft.status !== 'success') return { status: 'no_proposal', reason: draft.error.message, agentRun: agent.workflowId };
  state.proposal = draft.output;
  state.stage = 'awaiting_review';

  // 2. A person reviews it: the workflow waits durably (no worker busy) for the signal.
  await condition(() => review !== undefined);
  const decided = review as RefundReview;
  if (!decided.approve) {
    state.stage = 'done';
    return { status: 'rejected', rejectedBy: decided.by, agentRun: agent.workflowId };
  }

  // 3. Your own activity pays it (idempotent on the order id).
  state.stage = 'paying';
  const paymentId = await payRefund({ orderId: request.orderId, amount: draft.output.amount });
  state.stage = 'done';
  return { status: 'paid', amount: draft.output.amount, paymentId, approvedBy: decided.by, agentRun: agent.workflowId };
}
