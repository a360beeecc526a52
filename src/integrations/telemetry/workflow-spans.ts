/**
 * Approvals as spans and metrics, from workflow code (workflow-safe: only `@opentelemetry/api` and the
 * workflow's `metricMeter`). Without durable-agent's tracing option, the OpenTelemetry API has no tracer
 * provider in the sandbox and the spans are no-ops; with it, spans leave the workflow through the
 * interceptor package's sink, which Temporal does not call on replay. Workflow metrics are dropped on
 * replay too: neither is ever emitted twice, and neither writes anything to history.
 */
import type { Context } from '@opentelemetry/api';
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
}

/** How an approval closed. */
export type ApprovalClose = 'approve' | 'deny' | 'skip' | 'expired' | 'withdrawn';

/** An approval opened: counts it and remembers where (in the trace) and when it was asked. */
export function approvalOpened(agent: string, tool: string, callId: string, requestedAt: number): ApprovalTrace {
  metricMeter.createCounter(METRIC.approvalsRequested, 'approvals', 'Tool calls that asked a person').add(1, { agent, tool });
  return { agent, tool, callId, requestedAt, parent: context.active() };
}

/**
 * An approval closed (decided, expired or withdrawn): one span `approval <tool>` from the request to now
 * (its duration is the wait), and the metrics of its close and wait.
 */
export function approvalClosed(t: ApprovalTrace, how: ApprovalClose, by?: string): void {
  const now = Date.now();
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
      },
    },
    t.parent,
  );
  if (how === 'expired') span.setStatus({ code: SpanStatusCode.ERROR, message: 'approval expired' });
  span.end(now);
}
