/**
 * Tracing on a client: Temporal's client interceptor with durable-agent's tracer, so starting a run
 * (and signals, updates, queries) opens the span the run's whole trace hangs from. No worker code.
 */
import type { WorkflowClientInterceptor } from '@temporalio/client';
// Deep import: the types of the lazily loaded `lib/client` below (see there why not the package's root).
import type * as ClientInterceptorsModule from '@temporalio/interceptors-opentelemetry/lib/client';
import type { TracingOptions } from './tracing';
import { tracingFrom } from './tracing';
import { loadPeer, PEERS } from '../optional-peer';

/**
 * The client interceptors of `options` (to pass as `interceptors: { workflow: … }` of a Temporal `Client`).
 *
 * @throws {DurableAgentError} code `invalid_config` when `options.spanProcessor` is missing.
 */
export function tracingClientInterceptors(options: TracingOptions): WorkflowClientInterceptor[] {
  // Loaded here: Temporal's OpenTelemetry interceptor (and @opentelemetry/api under it) only when tracing.
  // Deep import, no public equivalent: the package's root also loads its workflow-sandbox runtime patch and worker interceptors.
  const { OpenTelemetryWorkflowClientInterceptor } = loadPeer<typeof ClientInterceptorsModule>(
    PEERS.temporalOtel,
    '@temporalio/interceptors-opentelemetry/lib/client',
  );
  return [new OpenTelemetryWorkflowClientInterceptor({ tracer: tracingFrom(options).tracer })];
}
