/** The built-in `wait` tool: an agent sleeps on a durable timer, with no worker busy, and wakes on time or on a new message. */
import type { Duration } from '@temporalio/common';
import { msToNumber } from '@temporalio/common';
import { z } from 'zod';
import { DefinitionError } from '../core/run/errors';
import type { Tool } from './define';
import { defineTool, ToolError } from './define';

/** Options of {@link waitTool}. */
export interface WaitToolOptions<N extends string = 'wait'> {
  /** The tool's name. Default `wait`. */
  name?: N;
  /** The longest one call may sleep. Default 7 days. */
  maxWait?: Duration;
  /** What the model reads about the tool. */
  description?: string;
}

const input = z.object({
  seconds: z.number().positive().optional().describe('How long to wait, in seconds.'),
  until: z.string().optional().describe('Or: the ISO 8601 time to wait until, e.g. 2026-01-31T09:00:00Z.'),
});

/**
 * A tool with which the model waits — for a duration or until a time — on a workflow timer: the run
 * sleeps without a worker, survives restarts and deploys, and wakes on time, or early when someone sends
 * it a message. The call's result says how long it slept and why it woke.
 *
 * @example
 * ```ts
 * defineAgent({ name: 'watcher', tools: [checkBuild, waitTool({ maxWait: '1d' })], … });
 * ```
 */
export function waitTool<const N extends string = 'wait'>(options: WaitToolOptions<N> = {}): Tool<N, typeof input, never> {
  const maxWaitMs = msToNumber(options.maxWait ?? '7 days');
  if (!Number.isFinite(maxWaitMs) || maxWaitMs <= 0)
    throw new DefinitionError(`waitTool: maxWait must be a positive duration (got ${String(options.maxWait)})`);
  const tool = defineTool({
    name: (options.name ?? 'wait') as N,
    description:
      options.description ??
      'Wait before going on: for a number of seconds, or until a time. A new message from the user ends the wait early. Use it to check again later instead of asking right away.',
    input,
    readOnly: true,
    execute: (): never => {
      // The workflow runs this tool itself on a durable timer; a worker never executes it.
      throw new ToolError('the wait tool runs in the workflow, not in a worker', { retryable: false });
    },
  });
  return Object.freeze({ ...tool, builtin: { kind: 'wait' as const, maxWaitMs } });
}
