/**
 * Tracing on a client: Temporal's client interceptor with durable-agent's tracer, so starting a run
 * (and signals, updates, queries) opens the span the run's whole trace hangs from. No worker code.
 */
import type { WorkflowClientInterceptor } from '@temporalio/client';
import type * as ClientInterceptorsModule from '@temporalio/interceptors-opentelemetry/lib/client';
import type { TracingOptions } from './tracing';
import { tracingFrom } from './tracing';

/**
 * The client interceptors of `options` (to pass as `interceptors: { workflow: … }` of a Temporal `Client`).
 *
 * @throws {DurableAgentError} code `invalid_config` when `options.spanProcessor` is missing.
 */
export function tracingClientInterceptors(options: TracingOptions): WorkflowClientInterceptor[] {
  // Loaded here: Temporal's OpenTelemetry interceptor (and @opentelemetry/api under it) only when tracing.
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- lazy loading, typed by the module's own types
  const { OpenTelemetryWorkflowClientInterceptor } = require('@temporalio/interceptors-opentelemetry/lib/client') as typeof ClientInterceptorsModule;
  return [new OpenTelemetryWorkflowClientInterceptor({ tracer: tracingFrom(options).tracer })];
}
