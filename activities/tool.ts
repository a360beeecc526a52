import { Context } from '@temporalio/activity';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { z } from 'zod';
import type { RunToolInput, RunToolOutput, ToolFailureDetails } from '../core/contract';
import { preview, utf8Bytes } from '../core/json';
import type { ToolOutput } from '../core/messages';
import type { AgentRegistry } from '../agents/registry';
import { ToolError } from '../agents/define';
import type { TranscriptStore } from '../store/transcript-store';
import { errorMessage, keepAlive } from './heartbeat';

/** Render a tool's return value as the text the model reads. */
export function renderToolValue(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined) return '';
  return JSON.stringify(value, null, 2) ?? String(value);
}

/**
 * Run one tool call: validate the arguments with the tool's zod schema (invalid arguments become an
 * error result the model can correct), execute it while heartbeating, and store outputs too large for
 * history in the blob store. A throwing tool fails the attempt so Temporal's retry policy applies.
 */
export function runToolActivity(registry: AgentRegistry, store: TranscriptStore) {
  return async function runTool(input: RunToolInput): Promise<RunToolOutput> {
    const ctx = Context.current();
    const { attempt } = ctx.info;
    let tool;
    try {
      tool = registry.tool(input.agent, input.tool);
    } catch (err) {
      throw ApplicationFailure.create({ message: errorMessage(err), type: 'UnknownAgent', nonRetryable: true, details: [{ attempt, latencyMs: 0 }] });
    }
    if (!tool) {
      throw ApplicationFailure.create({
        message: `Unknown tool "${input.tool}" on this worker's agent "${input.agent}"`,
        type: 'UnknownTool',
        nonRetryable: true,
        details: [{ attempt, latencyMs: 0 } satisfies ToolFailureDetails],
      });
    }
    const parsed = tool.input.safeParse(input.args);
    if (!parsed.success) {
      const message = `Invalid arguments for tool "${tool.name}":\n${z.prettifyError(parsed.error)}`;
      return { output: { type: 'text', text: message }, isError: true, error: message, latencyMs: 0, attempt };
    }
    const info = ctx.info.workflowExecution;
    const workflowId = info?.workflowId ?? '';
    const stop = keepAlive(ctx);
    const started = Date.now();
    try {
      const value: unknown = await tool.execute(parsed.data, {
        signal: ctx.cancellationSignal,
        heartbeat: (d) => ctx.heartbeat(d),
        idempotencyKey: `${workflowId}/${input.callId}`,
        callId: input.callId,
        attempt,
        agent: input.agent,
        workflowId,
        runId: info?.runId ?? '',
        step: input.step,
      });
      const latencyMs = Date.now() - started;
      const text = renderToolValue(value);
      return { output: await toOutput(store, text, input.inlineLimitBytes), isError: false, latencyMs, attempt };
    } catch (err) {
      const latencyMs = Date.now() - started;
      if (ctx.cancellationSignal.aborted) throw new CancelledFailure('tool call cancelled', [], err as Error);
      throw ApplicationFailure.create({
        message: errorMessage(err),
        type: err instanceof Error ? err.name : 'Error',
        nonRetryable: err instanceof ToolError && !err.retryable,
        details: [{ attempt, latencyMs } satisfies ToolFailureDetails],
      });
    } finally {
      stop();
    }
  };
}

async function toOutput(store: TranscriptStore, text: string, inlineLimitBytes: number): Promise<ToolOutput> {
  const bytes = utf8Bytes(text);
  if (bytes <= inlineLimitBytes) return { type: 'text', text };
  const ref = await store.blobs.put(text);
  return { type: 'stored', ref, bytes, preview: preview(text, 500) };
}
