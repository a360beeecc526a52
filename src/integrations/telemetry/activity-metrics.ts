/**
 * Agent metrics from the model and tool activities, through the activity's Temporal metric meter (the
 * worker's runtime exports them beside Temporal's own, e.g. on its Prometheus endpoint; a no-op when the
 * runtime exports no metrics). Wraps the activity functions.
 */
import { Context } from '@temporalio/activity';
import type { MetricMeter } from '@temporalio/common';
import type { AgentActivities, CallModelOutput, RunToolInput } from '../../core/run/contract';
import { toolOutcome } from './activity-spans';
import { METRIC } from './gen-ai';

/** `activities` with `callModel` and `runTool` recording the agent metrics. */
export function withAgentMetrics(activities: AgentActivities): AgentActivities {
  const { callModel, runTool } = activities;
  return {
    ...activities,
    callModel: async (input) => {
      const out = await callModel(input);
      modelCallMetrics(Context.current().metricMeter, input.agent, out);
      return out;
    },
    runTool: async (input) => {
      const started = Date.now();
      try {
        const out = await runTool(input);
        toolMetrics(Context.current().metricMeter, input, toolOutcome(out), out.latencyMs);
        return out;
      } catch (err) {
        toolMetrics(Context.current().metricMeter, input, 'error', Date.now() - started);
        throw err;
      }
    },
  };
}

/** Tokens by direction, the call's cost, one step, the call's latency. */
function modelCallMetrics(meter: MetricMeter, agent: string, out: CallModelOutput): void {
  const tags = { agent, provider: out.provider, model: out.model };
  const tokens = meter.createCounter(
    METRIC.tokens,
    'tokens',
    'Tokens of model calls, by direction (input, output, cache_read, cache_write)',
  );
  const { inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens } = out.usage;
  for (const [direction, n] of [
    ['input', inputTokens],
    ['output', outputTokens],
    ['cache_read', cacheReadTokens],
    ['cache_write', cacheWriteTokens],
  ] as const) {
    if (n > 0) tokens.add(n, { ...tags, direction });
  }
  if (out.costUsd !== undefined)
    meter
      .createHistogram(METRIC.costUsd, 'float', 'usd', 'Cost of each model call in USD (the sum is the spend)')
      .record(out.costUsd, tags);
  meter.createCounter(METRIC.steps, 'steps', 'Model calls that answered (one per step)').add(1, tags);
  meter.createHistogram(METRIC.modelLatency, 'int', 'ms', 'Latency of model calls').record(Math.round(out.latencyMs), tags);
}

function toolMetrics(meter: MetricMeter, input: RunToolInput, outcome: string, latencyMs: number): void {
  meter
    .createHistogram(METRIC.toolLatency, 'int', 'ms', 'Latency of tool executions, by tool and outcome')
    .record(Math.round(latencyMs), { agent: input.agent, tool: input.tool, outcome });
}
