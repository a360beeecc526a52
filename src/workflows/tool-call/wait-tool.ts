/**
 * Spoke of the tool call: the built-in `wait` tool, a durable timer in the workflow (no activity, no
 * worker busy), ended early by a message people send.
 */
import { condition } from '@temporalio/workflow';
import { waitDuration, waitResultText } from '../../core/loop/wait';
import type { ToolOutcome } from '../../core/tool-calls/outcomes';
import { errorOutcome } from '../../core/tool-calls/outcomes';
import type { PlannedCall } from '../../core/tool-calls/plan';
import type { ToolCallContext } from './context';

/** Run a `wait` call: bad arguments are an error result, like any tool's. */
export async function waitCall(ctx: Pick<ToolCallContext, 'messageWaiting'>, call: PlannedCall, maxWaitMs: number): Promise<ToolOutcome> {
  const started = Date.now();
  const asked = waitDuration(call.args, started, maxWaitMs);
  if ('error' in asked)
    return errorOutcome(call.callId, call.tool.name, `Invalid arguments for tool "${call.tool.name}": ${asked.error}. Nothing was waited.`);
  const woken = await condition(ctx.messageWaiting, asked.ms);
  const slept = Date.now() - started;
  return {
    callId: call.callId,
    tool: call.tool.name,
    output: { type: 'text', text: waitResultText(asked.ms, slept, woken) },
    isError: false,
    latencyMs: slept,
    attempts: 1,
  };
}
