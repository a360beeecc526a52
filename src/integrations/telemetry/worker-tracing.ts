/**
 * Tracing on a worker: Temporal's OpenTelemetry interceptors (client, activity; workflow ones through
 * `workflow-interceptors.ts`, with the `invoke_agent` span) with durable-agent's tracer, the sink that
 * exports workflow spans (never called on replay), and GenAI spans around the model and tool activities.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type * as InterceptorsModule from '@temporalio/interceptors-opentelemetry';
import type { Resource } from '@opentelemetry/resources';
import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { SimplePlugin } from '@temporalio/plugin';
import type { BundleOptions, ReplayWorkerOptions, WorkerOptions } from '@temporalio/worker';
import type { ClientOptions } from '@temporalio/client';
import type { AgentActivities } from '../../core/run/contract';
import type { TranscriptStore } from '../store/transcript-store';
import { withGenAiSpans } from './activity-spans';
import { dropApprovalReasons } from './approval-content';
import type { Tracing, TracingOptions } from './tracing';
import { tracingFrom } from './tracing';
import { loadPeer, PEERS } from '../optional-peer';

/** Path of durable-agent's workflow interceptors module (compiled `.js` from `dist/`, else `.ts`). */
export const WORKFLOW_INTERCEPTORS_PATH =
  ['.js', '.ts'].map((ext) => join(__dirname, `workflow-interceptors${ext}`)).find((p) => existsSync(p)) ??
  join(__dirname, 'workflow-interceptors');

/**
 * Temporal's OpenTelemetry interceptors (and the OpenTelemetry SDK under them), loaded when a worker
 * traces: a worker without tracing starts without them.
 */
function interceptors(): typeof InterceptorsModule {
  return loadPeer<typeof InterceptorsModule>(PEERS.temporalOtel);
}

/** The worker side of tracing, applied by the `durableAgents` plugin when its `tracing` option is set. */
export class WorkerTracing {
  readonly tracing: Tracing;
  private readonly plugin: SimplePlugin;

  /** @throws {DurableAgentError} code `invalid_config` when `options.spanProcessor` is missing. */
  constructor(options: TracingOptions) {
    this.tracing = tracingFrom(options);
    const tracer = { tracer: this.tracing.tracer };
    const {
      OpenTelemetryActivityInboundInterceptor,
      OpenTelemetryActivityOutboundInterceptor,
      OpenTelemetryNexusInboundInterceptor,
      OpenTelemetryNexusOutboundInterceptor,
      OpenTelemetryWorkflowClientInterceptor,
    } = interceptors();
    this.plugin = new SimplePlugin({
      name: 'durable-agent-tracing',
      clientInterceptors: { workflow: [new OpenTelemetryWorkflowClientInterceptor(tracer)] },
      workerInterceptors: {
        client: { workflow: [new OpenTelemetryWorkflowClientInterceptor(tracer)] },
        workflowModules: [WORKFLOW_INTERCEPTORS_PATH],
        activity: [
          (ctx) => ({
            inbound: new OpenTelemetryActivityInboundInterceptor(ctx, tracer),
            outbound: new OpenTelemetryActivityOutboundInterceptor(ctx),
          }),
        ],
        nexus: [
          (ctx) => ({
            inbound: new OpenTelemetryNexusInboundInterceptor(ctx, tracer),
            outbound: new OpenTelemetryNexusOutboundInterceptor(ctx),
          }),
        ],
      },
    });
  }

  /** The sink through which workflow spans leave the sandbox (Temporal does not call it on replay). */
  private withSink<O extends WorkerOptions | ReplayWorkerOptions>(options: O): O {
    return {
      ...options,
      sinks: {
        ...options.sinks,
        exporter: interceptors().makeWorkflowExporter(
          this.tracing.captureContent
            ? (this.tracing.spanProcessor as SpanProcessor)
            : dropApprovalReasons(this.tracing.spanProcessor as SpanProcessor),
          this.tracing.resource as Resource,
        ),
      },
    };
  }

  /** Interceptors and the span sink (workflow interceptor modules only when the worker bundles: give a prebuilt bundle {@link configureBundler}). */
  configureWorker(options: WorkerOptions): WorkerOptions {
    return this.plugin.configureWorker(this.withSink(options));
  }

  configureReplayWorker(options: ReplayWorkerOptions): ReplayWorkerOptions {
    return this.plugin.configureReplayWorker(this.withSink(options));
  }

  /** The workflow interceptors module (a prebuilt bundle must be built with it). */
  configureBundler(options: BundleOptions): BundleOptions {
    return this.plugin.configureBundler(options);
  }

  configureClient<O extends Omit<ClientOptions, 'plugins'>>(options: O): O {
    return this.plugin.configureClient(options as ClientOptions) as O;
  }

  /** `activities` with `chat` and `execute_tool` spans. */
  wrapActivities(activities: AgentActivities, store: TranscriptStore): AgentActivities {
    return withGenAiSpans(activities, { tracer: this.tracing.tracer, captureContent: this.tracing.captureContent, store });
  }
}
