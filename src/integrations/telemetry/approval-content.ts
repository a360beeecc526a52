/**
 * The reason people gave for an approval decision is content: workflow code (which does not know the
 * worker's `captureContent`) puts it on the approval span's events, and the worker drops it on the way
 * out unless content is captured.
 */
import type { Context } from '@opentelemetry/api';
import type { ReadableSpan, Span, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { AGENT_ATTR } from './gen-ai';

/** `span` without the approval reason on its events (the same span when none has one). */
export function withoutApprovalReason(span: ReadableSpan): ReadableSpan {
  if (!span.events.some((e) => e.attributes?.[AGENT_ATTR.approvalReason] !== undefined)) return span;
  const events = span.events.map((e) => {
    if (e.attributes?.[AGENT_ATTR.approvalReason] === undefined) return e;
    const { [AGENT_ATTR.approvalReason]: _reason, ...attributes } = e.attributes;
    return { ...e, attributes };
  });
  return Object.assign(Object.create(Object.getPrototypeOf(span) as object) as ReadableSpan, span, { events });
}

/** `processor`, given spans without approval reasons (for workflow spans when content is not captured). */
export function dropApprovalReasons(processor: SpanProcessor): SpanProcessor {
  return {
    onStart: (span: Span, context: Context) => processor.onStart(span, context),
    onEnd: (span: ReadableSpan) => processor.onEnd(withoutApprovalReason(span)),
    forceFlush: () => processor.forceFlush(),
    shutdown: () => processor.shutdown(),
  };
}
