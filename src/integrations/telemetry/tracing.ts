/**
 * The tracing option of workers and clients: where spans go (a span processor: batch to an OTLP
 * collector in production, simple to an in-memory exporter in tests), the resource describing the
 * process, and whether prompts and outputs are recorded.
 */
import type { Tracer } from '@opentelemetry/api';
import type * as ResourcesModule from '@opentelemetry/resources';
import type { Resource } from '@opentelemetry/resources';
import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';
import type * as TraceNodeModule from '@opentelemetry/sdk-trace-node';
import { DurableAgentError } from '../../core/run/errors';
import { loadPeer, PEERS } from '../optional-peer';
import { TRACER_NAME } from './gen-ai';

/**
 * An OpenTelemetry span processor: a `SpanProcessor` of `@opentelemetry/sdk-trace-base` (such as
 * `BatchSpanProcessor`). Written out here so that durable-agent's declarations name no optional package.
 */
export interface SpanProcessorLike {
  /** Called when a span starts (the SDK's `onStart`). */
  onStart(span: never, parentContext: never): void;
  /** Called when a span ends (the SDK's `onEnd`). */
  onEnd(span: never): void;
  /** Exports what is buffered. */
  forceFlush(): Promise<void>;
  /** Flushes and stops the processor. */
  shutdown(): Promise<void>;
}

/** An OpenTelemetry resource (a `Resource` of `@opentelemetry/resources`), written out for the same reason. */
export interface ResourceLike {
  readonly attributes: object;
}

/** Options of durable-agent's OpenTelemetry tracing (`createWorker({ tracing })`, `AgentClient.connect({ tracing })`, the plugins). */
export interface TracingOptions {
  /**
   * Where finished spans go, e.g. `new BatchSpanProcessor(new OTLPTraceExporter())` (endpoint from
   * `OTEL_EXPORTER_OTLP_ENDPOINT`). Workflow spans reach it through a Temporal sink, on the worker.
   */
  spanProcessor: SpanProcessorLike;
  /** Describes this process (`service.name`…). Default: a resource with `service.name` `durable-agent`. */
  resource?: ResourceLike;
  /**
   * Record prompts and outputs on `chat` spans (`gen_ai.input.messages`, `gen_ai.output.messages`) and
   * tool arguments and results on `execute_tool` spans. Default false: they may hold personal data.
   */
  captureContent?: boolean;
}

/** Tracing made ready: the tracer of durable-agent's and Temporal's spans, and the settings. */
export interface Tracing {
  readonly tracer: Tracer;
  readonly spanProcessor: SpanProcessorLike;
  readonly resource: ResourceLike;
  readonly captureContent: boolean;
  /** Flush and stop the span processor. */
  shutdown(): Promise<void>;
}

const made = new WeakMap<TracingOptions, Tracing>();

/**
 * The tracer provider for `options` (one per options object: a worker and a client given the same
 * object share it). It registers itself as the process's global tracer provider, with the
 * AsyncLocalStorage context manager and W3C trace-context propagation, unless the process registered
 * its own OpenTelemetry SDK first (then that context manager and propagator carry the trace).
 *
 * @throws {DurableAgentError} code `invalid_config` when `spanProcessor` is missing.
 */
export function tracingFrom(options: TracingOptions): Tracing {
  const known = made.get(options);
  if (known) return known;
  if (!options || typeof options.spanProcessor?.onEnd !== 'function') {
    throw new DurableAgentError(
      'invalid_config',
      'durable-agent: tracing needs a spanProcessor, e.g. { spanProcessor: new BatchSpanProcessor(new OTLPTraceExporter()) }',
    );
  }
  // Loaded here, not on import: a client without tracing does not load the OpenTelemetry SDK.
  const { NodeTracerProvider } = loadPeer<typeof TraceNodeModule>(PEERS.otelTraceNode);
  const { Resource: ResourceImpl } = loadPeer<typeof ResourcesModule>(PEERS.otelResources);
  const resource = options.resource ?? new ResourceImpl({ 'service.name': 'durable-agent' });
  // The SDK's own types: TracingOptions describes them structurally (see SpanProcessorLike).
  const provider = new NodeTracerProvider({ resource: resource as Resource, spanProcessors: [options.spanProcessor as SpanProcessor] });
  provider.register(); // a no-op for each global the process registered already
  const tracing: Tracing = {
    tracer: provider.getTracer(TRACER_NAME),
    spanProcessor: options.spanProcessor,
    resource,
    captureContent: options.captureContent === true,
    shutdown: () => provider.shutdown(),
  };
  made.set(options, tracing);
  return tracing;
}
