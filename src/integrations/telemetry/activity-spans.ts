/**
 * GenAI spans around the model and tool activities: `chat <model>` for each model call and
 * `execute_tool <tool>` for each tool execution, children of the activity's span (Temporal's
 * `RunActivity`). Wraps the activity functions; the activities themselves know nothing of tracing.
 */
import type { Attributes, Span, Tracer } from '@opentelemetry/api';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type {
  AgentActivities,
  CallModelInput,
  CallModelOutput,
  RunToolInput,
  RunToolOutput,
  ToolFailureDetails,
} from '../../core/run/contract';
import type { ToolMetrics } from '../../core/tool-calls/metrics';
import type { Message } from '../../core/messages/messages';
import { shownMessages } from '../../activities/model';
import type { TranscriptStore } from '../store/transcript-store';
import { genAiMessages } from './content';
import { AGENT_ATTR, GEN_AI, OPERATION, spanName } from './gen-ai';

/** What the spans need besides the tracer. */
export interface ActivitySpanOptions {
  tracer: Tracer;
  /** Record prompts, outputs, tool arguments and results. */
  captureContent: boolean;
  /** To read the conversation a model call was sent (content capture only). */
  store: TranscriptStore;
}

/** How a tool execution ended, as `durable_agent.tool.outcome` (and the tool metrics) name it. */
export function toolOutcome(out: RunToolOutput): 'ok' | 'error' | 'blocked' | 'unknown' {
  if (out.outcomeUnknown) return 'unknown';
  if (out.hooks?.some((h) => h.action === 'blocked')) return 'blocked';
  return out.isError ? 'error' : 'ok';
}

/** `activities` with `callModel` and `runTool` wrapped in GenAI spans. */
export function withGenAiSpans(activities: AgentActivities, options: ActivitySpanOptions): AgentActivities {
  const { callModel, runTool } = activities;
  return {
    ...activities,
    callModel: (input) => chatSpan(options, input, () => callModel(input)),
    runTool: (input) => toolSpan(options, input, () => runTool(input)),
  };
}

function chatSpan(o: ActivitySpanOptions, input: CallModelInput, call: () => Promise<CallModelOutput>): Promise<CallModelOutput> {
  const attributes: Attributes = {
    [GEN_AI.operation]: OPERATION.chat,
    [GEN_AI.provider]: input.model.provider,
    [GEN_AI.system]: input.model.provider,
    [GEN_AI.requestModel]: input.model.model,
    [GEN_AI.agentName]: input.agent,
    [AGENT_ATTR.step]: input.step,
    [AGENT_ATTR.attempt]: input.attempt,
    ...(input.model.maxTokens !== undefined ? { [GEN_AI.requestMaxTokens]: input.model.maxTokens } : {}),
  };
  return o.tracer.startActiveSpan(spanName.chat(input.model.model), { kind: SpanKind.CLIENT, attributes }, async (span) => {
    try {
      const out = await call();
      span.setAttributes({
        [GEN_AI.responseModel]: out.model,
        [GEN_AI.finishReasons]: [out.stopReason],
        [GEN_AI.inputTokens]: out.usage.inputTokens,
        [GEN_AI.outputTokens]: out.usage.outputTokens,
        [AGENT_ATTR.cacheReadTokens]: out.usage.cacheReadTokens,
        ...(out.costUsd !== undefined ? { [AGENT_ATTR.costUsd]: out.costUsd } : {}),
      });
      if (o.captureContent) {
        span.setAttribute(GEN_AI.inputMessages, genAiMessages(await sentMessages(o.store, input, out)));
        span.setAttribute(GEN_AI.outputMessages, genAiMessages([out.message], out.stopReason));
      }
      return out;
    } catch (err) {
      failed(span, err);
      throw err;
    } finally {
      span.end();
    }
  });
}

/** What the model was shown: the conversation before its answer (the new head ends with it), in the call's view (summary, stubs). */
async function sentMessages(store: TranscriptStore, input: CallModelInput, out: CallModelOutput): Promise<Message[]> {
  try {
    return await shownMessages(store, (await store.load(out.head)).slice(0, -1), input.context, input.step);
  } catch {
    return input.transcript.append; // the store is unreadable now: at least what this call added
  }
}

function toolSpan(o: ActivitySpanOptions, input: RunToolInput, call: () => Promise<RunToolOutput>): Promise<RunToolOutput> {
  const attributes: Attributes = {
    [GEN_AI.operation]: OPERATION.executeTool,
    [GEN_AI.toolName]: input.tool,
    [GEN_AI.toolCallId]: input.callId,
    [GEN_AI.toolType]: 'function',
    [GEN_AI.agentName]: input.agent,
    [AGENT_ATTR.step]: input.step,
    ...(input.attempt !== undefined ? { [AGENT_ATTR.attempt]: input.attempt } : {}),
    ...(o.captureContent ? { [GEN_AI.toolArguments]: JSON.stringify(input.args) } : {}),
  };
  return o.tracer.startActiveSpan(spanName.executeTool(input.tool), { kind: SpanKind.INTERNAL, attributes }, async (span) => {
    try {
      const out = await call();
      const outcome = toolOutcome(out);
      span.setAttribute(AGENT_ATTR.toolOutcome, outcome);
      span.setAttributes(metricAttributes(out.metrics));
      if (o.captureContent) span.setAttribute(GEN_AI.toolResult, out.output.type === 'text' ? out.output.text : out.output.preview);
      if (outcome === 'error') {
        span.setAttribute(GEN_AI.errorType, 'tool_error');
        span.setStatus({ code: SpanStatusCode.ERROR, message: out.error ?? 'the tool returned an error' });
      }
      return out;
    } catch (err) {
      span.setAttribute(AGENT_ATTR.toolOutcome, 'error');
      span.setAttributes(metricAttributes(failureDetails(err)?.metrics));
      failed(span, err);
      throw err;
    } finally {
      span.end();
    }
  });
}

/** A tool's metrics as span attributes, `durable_agent.tool.metric.<name>` each (none when absent). */
export function metricAttributes(metrics: ToolMetrics | undefined): Attributes {
  const attributes: Attributes = {};
  for (const [name, value] of Object.entries(metrics ?? {})) attributes[`${AGENT_ATTR.toolMetricPrefix}${name}`] = value;
  return attributes;
}

/** The details of a failed tool attempt (its ApplicationFailure's `details[0]`), when it has them. */
function failureDetails(err: unknown): ToolFailureDetails | undefined {
  const details = (err as { details?: unknown } | null)?.details;
  const first: unknown = Array.isArray(details) ? details[0] : undefined;
  return typeof first === 'object' && first !== null ? (first as ToolFailureDetails) : undefined;
}

/** Marks `span` failed by `err`: `error.type` is the failure's type (Temporal's ApplicationFailure type, else the error's name). */
function failed(span: Span, err: unknown): void {
  const e = err as { type?: unknown; name?: unknown; message?: unknown };
  span.setAttribute(GEN_AI.errorType, typeof e?.type === 'string' && e.type ? e.type : typeof e?.name === 'string' ? e.name : 'error');
  span.setStatus({ code: SpanStatusCode.ERROR, message: typeof e?.message === 'string' ? e.message : String(err) });
}
