/**
 * The workflow interceptors of a traced worker (its `workflowModules` entry, bundled only when tracing is
 * on): Temporal's OpenTelemetry interceptors (the `RunWorkflow` and `HandleSignal` spans, the context
 * carried to activities, child workflows and continue-as-new, the sink that exports workflow spans), then
 * the `invoke_agent <agent>` span around an agent run, child of `RunWorkflow` and parent of the run's
 * activity and approval spans.
 *
 * Updates and queries are not traced: Temporal's interceptor for them is an `async` pass-through even
 * where it does not trace, which moves an update's completion after commands it preceded in a history
 * recorded without tracing (a session's `send`), so turning tracing on would break those runs' replay.
 */
import type { Attributes } from '@opentelemetry/api';
import { SpanStatusCode, trace } from '@opentelemetry/api';
// Deep import: the package's root also loads its client and worker modules, which cannot enter the workflow sandbox.
import {
  OpenTelemetryInboundInterceptor,
  OpenTelemetryInternalsInterceptor,
  OpenTelemetryOutboundInterceptor,
} from '@temporalio/interceptors-opentelemetry/lib/workflow';
import type { Next, SignalInput, WorkflowExecuteInput, WorkflowInboundCallsInterceptor, WorkflowInterceptors } from '@temporalio/workflow';
import { ContinueAsNew, workflowInfo } from '@temporalio/workflow';
import { AGENT_ATTR, GEN_AI, OPERATION, spanName, TRACER_NAME } from './gen-ai';

/** Temporal's inbound interceptor for the run and signals only (see the module's comment). */
class RunAndSignalSpans implements WorkflowInboundCallsInterceptor {
  private readonly temporal = new OpenTelemetryInboundInterceptor();

  execute(input: WorkflowExecuteInput, next: Next<WorkflowInboundCallsInterceptor, 'execute'>): Promise<unknown> {
    return this.temporal.execute(input, next);
  }

  handleSignal(input: SignalInput, next: Next<WorkflowInboundCallsInterceptor, 'handleSignal'>): Promise<void> {
    return this.temporal.handleSignal(input, next);
  }
}

/** Workflow types that run an agent (their first argument names it). */
const AGENT_WORKFLOWS = new Set(['agentWorkflow']);

class InvokeAgentInterceptor implements WorkflowInboundCallsInterceptor {
  async execute(input: WorkflowExecuteInput, next: Next<WorkflowInboundCallsInterceptor, 'execute'>): Promise<unknown> {
    const info = workflowInfo();
    const first = input.args[0] as { agent?: unknown } | undefined;
    if (!AGENT_WORKFLOWS.has(info.workflowType) || typeof first?.agent !== 'string') return next(input);
    const agent = first.agent;
    const attributes: Attributes = {
      [GEN_AI.operation]: OPERATION.invokeAgent,
      [GEN_AI.agentName]: agent,
      [GEN_AI.conversationId]: info.workflowId,
    };
    return trace.getTracer(TRACER_NAME).startActiveSpan(spanName.invokeAgent(agent), { attributes }, async (span) => {
      try {
        const result = await next(input);
        const r = result as { status?: unknown; usage?: { inputTokens?: unknown; outputTokens?: unknown } } | undefined;
        if (typeof r?.status === 'string') span.setAttribute(AGENT_ATTR.runStatus, r.status);
        if (typeof r?.usage?.inputTokens === 'number') span.setAttribute(GEN_AI.inputTokens, r.usage.inputTokens);
        if (typeof r?.usage?.outputTokens === 'number') span.setAttribute(GEN_AI.outputTokens, r.usage.outputTokens);
        return result;
      } catch (err) {
        if (!(err instanceof ContinueAsNew)) {
          span.setAttribute(GEN_AI.errorType, err instanceof Error ? err.name : 'error');
          span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
        }
        throw err;
      } finally {
        span.end();
      }
    });
  }
}

/** The interceptors Temporal calls for each workflow (the module's required export). */
export const interceptors = (): WorkflowInterceptors => ({
  inbound: [new RunAndSignalSpans(), new InvokeAgentInterceptor()],
  outbound: [new OpenTelemetryOutboundInterceptor()],
  internals: [new OpenTelemetryInternalsInterceptor()],
});
