/**
 * `durable-agent/otel`: OpenTelemetry tracing of runs, model calls, tool calls and approvals (GenAI
 * semantic conventions), given to `createWorker({ tracing })` and `AgentClient.connect({ tracing })`.
 * Needs the optional packages `@opentelemetry/sdk-trace-node`, `@opentelemetry/resources` and
 * `@temporalio/interceptors-opentelemetry` (and `@opentelemetry/exporter-trace-otlp-http` for
 * {@link tracingFromEnv}), loaded when a process first traces.
 *
 * @example
 * ```ts
 * import { createWorker } from 'durable-agent/worker';
 * import { tracingFromEnv } from 'durable-agent/otel';
 *
 * const tracing = tracingFromEnv(); // OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_SERVICE_NAME, …; undefined when unset
 * const worker = await createWorker({ agents: [assistant], ...(tracing ? { tracing: tracing.options } : {}) });
 * ```
 */
export type { ResourceLike, SpanProcessorLike, TracingOptions } from '../integrations/telemetry/tracing';
export { tracingFromEnv, tracingSettingsFromEnv } from '../integrations/telemetry/env';
export type { EnvTracing, EnvTracingSettings } from '../integrations/telemetry/env';
// The tracer a process traces with and the client interceptors over it (the SDK loads only when called).
export { tracingClientInterceptors } from '../integrations/telemetry/client-tracing';
export { tracingFrom } from '../integrations/telemetry/tracing';
export type { Tracing } from '../integrations/telemetry/tracing';
