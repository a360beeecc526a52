/**
 * Search attributes an agent run keeps up to date, so `temporal workflow list --query '…'` (and our
 * `durable-agent approvals`) finds every run waiting for a person. Workers register them on start.
 */
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/** The agent's name. */
export const AGENT_NAME = defineSearchAttributeKey('DurableAgentName', SearchAttributeType.KEYWORD);
/** `running`, `awaiting_approval`, or how the run ended (`success`, `max_steps`, …). */
export const RUN_STATUS = defineSearchAttributeKey('DurableAgentStatus', SearchAttributeType.KEYWORD);
/** True while at least one tool call waits for a person. */
export const AWAITING_APPROVAL = defineSearchAttributeKey('DurableAgentAwaitingApproval', SearchAttributeType.BOOL);
/** How many tool calls wait for a person. */
export const PENDING_APPROVALS = defineSearchAttributeKey('DurableAgentPendingApprovals', SearchAttributeType.INT);

/** Who decided a call of the run: each identity as `auditIdentityKey(by)` (a hash: values are plain text on the server); at most 50. */
export const APPROVAL_BY = defineSearchAttributeKey('DurableAgentApprovalBy', SearchAttributeType.KEYWORD_LIST);
/** The standing rules (ids; not run-scope rules, whose ids count per run) that decided a call of the run; at most 50. */
export const APPROVAL_RULES = defineSearchAttributeKey('DurableAgentApprovalRules', SearchAttributeType.KEYWORD_LIST);
/** How many values `DurableAgentApprovalBy` and `DurableAgentApprovalRules` keep each (later ones are not added). */
export const MAX_AUDIT_KEYWORDS = 50;

/** Every search attribute durable-agent uses. */
export const SEARCH_ATTRIBUTE_KEYS = [AGENT_NAME, RUN_STATUS, AWAITING_APPROVAL, PENDING_APPROVALS, APPROVAL_BY, APPROVAL_RULES];

/** The visibility query that finds runs waiting for a person. */
export const AWAITING_APPROVAL_QUERY = `${AWAITING_APPROVAL.name} = true`;
