/**
 * Tracing on a worker: Temporal's OpenTelemetry plugin (client, workflow and activity interceptors, the
 * sink that exports workflow spans) with durable-agent's tracer, plus durable-agent's workflow
 * interceptors (the `invoke_agent` span) and GenAI spans around the model and tool activities.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { OpenTelemetryPlugin } from '@temporalio/interceptors-opentelemetry';
import { SimplePlugin } from '@temporalio/plugin';
import type { BundleOptions, ReplayWorkerOptions, WorkerOptions } from '@temporalio/worker';
import type { ClientOptions } from '@temporalio/client';
import type { AgentActivities } from '../core/contract';
import type { TranscriptStore } from '../store/transcript-store';
import { withGenAiSpans } from './activity-spans';
import type { Tracing, TracingOptions } from './tracing';
import { tracingFrom } from './tracing';

/** Path of durable-agent's workflow interceptors module (compiled `.js` from `dist/`, else `.ts`). */
export const WORKFLOW_INTERCEPTORS_PATH = ['.js', '.ts'].map((ext) => join(__dirname, `workflow-interceptors${ext}`)).find((p) => existsSync(p)) ?? join(__dirname, 'workflow-interceptors');

/** The worker side of tracing, applied by the `durableAgents` plugin when its `tracing` option is set. */
export class WorkerTracing {
  readonly tracing: Tracing;
  private readonly temporal: OpenTelemetryPlugin;
  private readonly agentModules: SimplePlugin;

  /** @throws {DurableAgentError} code `invalid_config` when `options.spanProcessor` is missing. */
  constructor(options: TracingOptions) {
    this.tracing = tracingFrom(options);
    this.temporal = new OpenTelemetryPlugin({ spanProcessor: this.tracing.spanProcessor, resource: this.tracing.resource, tracer: this.tracing.tracer });
    this.agentModules = new SimplePlugin({ name: 'durable-agent-tracing', workerInterceptors: { workflowModules: [WORKFLOW_INTERCEPTORS_PATH] } });
  }

  /** Interceptors and the span sink (workflow interceptor modules only when the worker bundles: give a prebuilt bundle {@link configureBundler}). */
  configureWorker(options: WorkerOptions): WorkerOptions {
    return this.agentModules.configureWorker(this.temporal.configureWorker(options));
  }

  configureReplayWorker(options: ReplayWorkerOptions): ReplayWorkerOptions {
    return this.agentModules.configureReplayWorker(this.temporal.configureReplayWorker(options));
  }

  /** The workflow interceptor modules: Temporal's, then durable-agent's (its span is a child of Temporal's `RunWorkflow`). */
  configureBundler(options: BundleOptions): BundleOptions {
    return this.agentModules.configureBundler(this.temporal.configureBundler(options));
  }

  configureClient<O extends Omit<ClientOptions, 'plugins'>>(options: O): O {
    return this.temporal.configureClient(options as ClientOptions) as O;
  }

  /** `activities` with `chat` and `execute_tool` spans. */
  wrapActivities(activities: AgentActivities, store: TranscriptStore): AgentActivities {
    return withGenAiSpans(activities, { tracer: this.tracing.tracer, captureContent: this.tracing.captureContent, store });
  }
}
