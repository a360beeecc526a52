/**
 * Workflow interceptors (a `workflowModules` entry, bundled only when tracing is on, after the
 * OpenTelemetry interceptors): the `invoke_agent <agent>` span around an agent run, child of the
 * interceptor package's `RunWorkflow` span, parent of the run's activity and approval spans.
 */
import type { Attributes } from '@opentelemetry/api';
import { SpanStatusCode, trace } from '@opentelemetry/api';
import type { Next, WorkflowExecuteInput, WorkflowInboundCallsInterceptor, WorkflowInterceptors } from '@temporalio/workflow';
import { ContinueAsNew, workflowInfo } from '@temporalio/workflow';
import { AGENT_ATTR, GEN_AI, OPERATION, spanName, TRACER_NAME } from './gen-ai';

/** Workflow types that run an agent (their first argument names it). */
const AGENT_WORKFLOWS = new Set(['agentWorkflow']);

class InvokeAgentInterceptor implements WorkflowInboundCallsInterceptor {
  async execute(input: WorkflowExecuteInput, next: Next<WorkflowInboundCallsInterceptor, 'execute'>): Promise<unknown> {
    const info = workflowInfo();
    const first = input.args[0] as { agent?: unknown } | undefined;
    if (!AGENT_WORKFLOWS.has(info.workflowType) || typeof first?.agent !== 'string') return next(input);
    const agent = first.agent;
    const attributes: Attributes = { [GEN_AI.operation]: OPERATION.invokeAgent, [GEN_AI.agentName]: agent, [GEN_AI.conversationId]: info.workflowId };
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
export const interceptors = (): WorkflowInterceptors => ({ inbound: [new InvokeAgentInterceptor()] });
