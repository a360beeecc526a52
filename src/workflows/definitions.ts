/** Signals, updates and queries of the agent workflow, shared by the workflow and clients. */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { ApprovalDecision, PendingApproval } from '../core/approvals/approvals';
import type { RuleSet } from '../core/approvals/rules';
import type { DeferReceipt, DeferRequest, DelegateReceipt, DelegateRequest, PendingApprovalsOptions } from '../core/approvals/deferrals';

export type { PendingApprovalsOptions } from '../core/approvals/deferrals';
import type { DecisionReceipt, RunSnapshot } from '../core/run/contract';
import type { EventPage } from '../core/events/events';
import type { MessageReceipt, UserMessageInput } from '../core/messages/user-messages';

/** Events from a cursor: `events(cursor, limit?)`. */
export const eventsQuery = defineQuery<EventPage, [number, number?]>('events');

/** The run's current state. */
export const snapshotQuery = defineQuery<RunSnapshot>('snapshot');

/** Tool calls waiting for a person (deferred ones only with `{ includeDeferred: true }`). */
export const pendingApprovalsQuery = defineQuery<PendingApproval[], [PendingApprovalsOptions?]>('pendingApprovals');

/** Defer a waiting request until a time, fire-and-forget (accepted while no worker runs; refusals are `approval_refused` events). */
export const deferSignal = defineSignal<[DeferRequest]>('defer');

/** Defer a waiting request until a time; refused (nothing written) if it cannot apply. */
export const deferUpdate = defineUpdate<DeferReceipt, [DeferRequest]>('defer');

/** Delegate a waiting request, fire-and-forget (accepted while no worker runs; refusals are `approval_refused` events). */
export const delegateSignal = defineSignal<[DelegateRequest]>('delegate');

/** Delegate a waiting request; refused (nothing written) if it cannot apply. */
export const delegateUpdate = defineUpdate<DelegateReceipt, [DelegateRequest]>('delegate');

/**
 * Decide a pending approval, fire-and-forget: `{ callId, decision: 'approve' | 'deny' | 'skip', by, reason?, scope? }`.
 * Accepted by the server even while no worker runs. A decision that cannot apply is recorded as an
 * `approval_refused` event.
 */
export const approvalSignal = defineSignal<[ApprovalDecision]>('approval');

/** Decide a pending approval and learn what happened; refused (nothing written to history) if it cannot apply. */
export const decideUpdate = defineUpdate<DecisionReceipt, [ApprovalDecision]>('decide');

/**
 * A message for the agent, fire-and-forget: `{ text, by? }` (or just the text). Accepted by the server
 * even while no worker runs; the model reads it at its next call. One that cannot be taken (malformed,
 * inbox full, run ending) is recorded as a `message_refused` event.
 */
export const messageSignal = defineSignal<[UserMessageInput | string]>('message');

/** A message for the agent, validated: returns once it is in the run's inbox; refused (nothing written) when malformed or the run is ending. */
export const sendUpdate = defineUpdate<MessageReceipt, [UserMessageInput | string]>('send');

/** End a session once the model has answered what it has been sent (a one-shot run ends by itself). */
export const endSignal = defineSignal<[{ by?: string; reason?: string }?]>('end');

/** A newer set of standing rules (sent by the rules entity after each change); the run ignores versions it has seen. */
export const rulesChangedSignal = defineSignal<[RuleSet]>('rulesChanged');
