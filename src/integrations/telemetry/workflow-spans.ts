/**
 * Approvals as spans and metrics, from workflow code (workflow-safe: only `@opentelemetry/api` and the
 * workflow's `metricMeter`). Without durable-agent's tracing option, the OpenTelemetry API has no tracer
 * provider in the sandbox and the spans are no-ops; with it, spans leave the workflow through the
 * interceptor package's sink, which Temporal does not call on replay. Workflow metrics are dropped on
 * replay too: neither is ever emitted twice, and neither writes anything to history.
 */
import type { Attributes, Context } from '@opentelemetry/api';
import { context, SpanStatusCode, trace } from '@opentelemetry/api';
import { metricMeter } from '@temporalio/workflow';
import { AGENT_ATTR, GEN_AI, METRIC, spanName, TRACER_NAME } from './gen-ai';

/** What the workflow keeps of an open approval for its span and metrics. */
export interface ApprovalTrace {
  readonly agent: string;
  readonly tool: string;
  readonly callId: string;
  /** Workflow time of the request (ms). */
  readonly requestedAt: number;
  /** The trace context where the call asked (the run's span), parent of the approval span. */
  readonly parent: Context;
  /** What happened while it waited, added to the span as its events when it closes. */
  readonly events: ApprovalSpanEvent[];
}

/** The names of the approval span's events. */
export type ApprovalSpanEventName =
  | 'approval.requested'
  | 'approval.deferred'
  | 'approval.returned'
  | 'approval.escalated'
  | 'approval.delegated'
  | 'approval.decided'
  | 'approval.expired'
  | 'approval.withdrawn';

/** One event of an approval span: its name, workflow time (ms) and attributes. */
export interface ApprovalSpanEvent {
  readonly name: ApprovalSpanEventName;
  readonly time: number;
  readonly attributes: Attributes;
}

/** Who, how and which rule, as an approval span event names them (the reason is content: the worker drops it unless content is captured). */
export interface ApprovalEventDetail {
  by?: string;
  reason?: string;
  path?: string;
  rule?: { id: string; version?: number };
  /** Escalated, delegated: who may decide now. */
  to?: readonly string[];
  /** Deferred: the ISO time it returns. */
  until?: string;
}

function detailAttributes(d: ApprovalEventDetail): Attributes {
  return {
    ...(d.by !== undefined ? { [AGENT_ATTR.approvalBy]: d.by } : {}),
    ...(d.path !== undefined ? { [AGENT_ATTR.approvalPath]: d.path } : {}),
    ...(d.rule ? { [AGENT_ATTR.approvalRuleId]: d.rule.id } : {}),
    ...(d.rule?.version !== undefined ? { [AGENT_ATTR.approvalRuleVersion]: d.rule.version } : {}),
    ...(d.to ? { [AGENT_ATTR.approvalTo]: [...d.to] } : {}),
    ...(d.until !== undefined ? { [AGENT_ATTR.approvalUntil]: d.until } : {}),
    ...(d.reason !== undefined ? { [AGENT_ATTR.approvalReason]: d.reason } : {}),
  };
}

function pathAndRule(d: ApprovalEventDetail): Pick<ApprovalEventDetail, 'path' | 'rule'> {
  return { ...(d.path !== undefined ? { path: d.path } : {}), ...(d.rule ? { rule: d.rule } : {}) };
}

/** Note `name` on the approval's span (added when the span ends, at workflow time now). */
export function approvalEvent(t: ApprovalTrace, name: ApprovalSpanEventName, detail: ApprovalEventDetail = {}): void {
  t.events.push({ name, time: Date.now(), attributes: detailAttributes(detail) });
}

/** How an approval closed. */
export type ApprovalClose = 'approve' | 'deny' | 'skip' | 'expired' | 'withdrawn';

/** An approval opened: counts it and remembers where (in the trace) and when it was asked. */
export function approvalOpened(agent: string, tool: string, callId: string, requestedAt: number): ApprovalTrace {
  metricMeter.createCounter(METRIC.approvalsRequested, 'approvals', 'Tool calls that asked a person').add(1, { agent, tool });
  return {
    agent,
    tool,
    callId,
    requestedAt,
    parent: context.active(),
    events: [{ name: 'approval.requested', time: requestedAt, attributes: {} }],
  };
}

/**
 * An approval closed (decided, expired or withdrawn): one span `approval <tool>` from the request to now
 * (its duration is the wait), and the metrics of its close and wait.
 */
export function approvalClosed(t: ApprovalTrace, how: ApprovalClose, by?: string, detail: Omit<ApprovalEventDetail, 'by'> = {}): void {
  const now = Date.now();
  const closing: ApprovalSpanEventName =
    how === 'expired' ? 'approval.expired' : how === 'withdrawn' ? 'approval.withdrawn' : 'approval.decided';
  approvalEvent(t, closing, { ...(by !== undefined ? { by } : {}), ...(how === 'expired' ? { path: 'timeout' } : {}), ...detail });
  const waitMs = Math.max(0, now - t.requestedAt);
  const tags = { agent: t.agent, tool: t.tool, decision: how };
  metricMeter.createCounter(METRIC.approvalsClosed, 'approvals', 'Approvals decided, expired or withdrawn').add(1, tags);
  metricMeter.createHistogram(METRIC.approvalWait, 'int', 'ms', 'How long tool calls waited for a person').record(waitMs, tags);
  const span = trace.getTracer(TRACER_NAME).startSpan(
    spanName.approval(t.tool),
    {
      startTime: t.requestedAt,
      attributes: {
        [GEN_AI.agentName]: t.agent,
        [GEN_AI.toolName]: t.tool,
        [GEN_AI.toolCallId]: t.callId,
        [AGENT_ATTR.approvalDecision]: how,
        [AGENT_ATTR.approvalWaitMs]: waitMs,
        ...(by !== undefined ? { [AGENT_ATTR.approvalBy]: by } : {}),
        ...detailAttributes({ ...(how === 'expired' ? { path: 'timeout' } : {}), ...pathAndRule(detail) }),
      },
    },
    t.parent,
  );
  for (const e of t.events) span.addEvent(e.name, e.attributes, e.time);
  if (how === 'expired') span.setStatus({ code: SpanStatusCode.ERROR, message: 'approval expired' });
  span.end(now);
}

/**
 * A call the run policy or a rule allowed or denied with nobody asked: a zero-length span `approval <tool>`
 * with its decision (`allow`/`deny`), path and rule, and one `approval.decided` event.
 */
export function approvalAuto(
  agent: string,
  tool: string,
  callId: string,
  decision: 'allow' | 'deny',
  detail: Pick<ApprovalEventDetail, 'by' | 'path' | 'rule'>,
): void {
  const now = Date.now();
  const attributes = detailAttributes(detail);
  const span = trace.getTracer(TRACER_NAME).startSpan(spanName.approval(tool), {
    startTime: now,
    attributes: {
      [GEN_AI.agentName]: agent,
      [GEN_AI.toolName]: tool,
      [GEN_AI.toolCallId]: callId,
      [AGENT_ATTR.approvalDecision]: decision,
      [AGENT_ATTR.approvalWaitMs]: 0,
      ...attributes,
    },
  });
  span.addEvent('approval.decided', attributes, now);
  span.end(now);
}

/** A notification (webhook) could not be delivered after its retries: counted by agent, target (its name) and kind. */
export function notificationFailed(agent: string, target: string, kind: string): void {
  metricMeter
    .createCounter(METRIC.notificationsFailed, 'notifications', 'Approval notifications not delivered after their retries')
    .add(1, { agent, target, kind });
}
