/** Tools used by the integration tests; they record what they did so tests can check it. */
import { z } from 'zod';
import { defineTool, ToolError } from '../../src/agents/define';
import { abortableSleep } from '../../src/integrations/providers/abortable';

/** One execution of a recording tool. */
export interface Execution {
  tool: string;
  callId: string;
  start: number;
  end: number;
  aborted: boolean;
}

/** Executions recorded by the tools below, in this process. */
export const executions: Execution[] = [];

function recorded<T>(tool: string, callId: string, fn: () => Promise<T>): Promise<T> {
  const e: Execution = { tool, callId, start: Date.now(), end: 0, aborted: false };
  executions.push(e);
  return fn().then(
    (v) => {
      e.end = Date.now();
      return v;
    },
    (err: unknown) => {
      e.end = Date.now();
      e.aborted = true;
      throw err;
    },
  );
}

export const echo = defineTool({
  name: 'echo',
  description: 'Echo the text back',
  input: z.object({ text: z.string() }),
  readOnly: true,
  execute: ({ text }) => text,
});

export const slowRead = defineTool({
  name: 'slow_read',
  description: 'Read something slowly',
  input: z.object({ key: z.string(), ms: z.number().int().min(0) }),
  readOnly: true,
  timeout: '30s',
  execute: ({ key, ms }, ctx) => recorded('slow_read', ctx.callId, () => abortableSleep(ms, ctx.signal).then(() => `value of ${key}`)),
});

export const slowWrite = defineTool({
  name: 'slow_write',
  description: 'Write something slowly',
  input: z.object({ key: z.string(), ms: z.number().int().min(0) }),
  timeout: '30s',
  execute: ({ key, ms }, ctx) => recorded('slow_write', ctx.callId, () => abortableSleep(ms, ctx.signal).then(() => `wrote ${key}`)),
});

let boomCalls = 0;
/** How many times `boom` ran. */
export const boomCount = (): number => boomCalls;

export const boom = defineTool({
  name: 'boom',
  description: 'Always fails',
  input: z.object({}),
  retry: { maximumAttempts: 2, initialInterval: '10ms' },
  execute: () => {
    boomCalls++;
    throw new Error('disk on fire');
  },
});

export const fatalBoom = defineTool({
  name: 'fatal_boom',
  description: 'Fails, and failing ends the run',
  input: z.object({}),
  retry: { maximumAttempts: 1 },
  onError: 'fail',
  execute: () => {
    throw new ToolError('payment gateway rejected the charge', { retryable: false });
  },
});

export const typed = defineTool({
  name: 'typed',
  description: 'Needs a positive integer count and a colour',
  input: z.object({ count: z.number().int().min(1), colour: z.enum(['red', 'green']) }),
  readOnly: true,
  execute: ({ count, colour }) => ({ count, colour }),
});

export const big = defineTool({
  name: 'big',
  description: 'Returns a large output',
  input: z.object({ kb: z.number().int() }),
  readOnly: true,
  execute: ({ kb }) => 'x'.repeat(kb * 1024 - 12) + 'END-OF-BLOB!',
});

export const waitForever = defineTool({
  name: 'wait_forever',
  description: 'Waits until cancelled',
  input: z.object({}),
  timeout: '60s',
  heartbeatTimeout: '2s',
  execute: (_args, ctx) => recorded('wait_forever', ctx.callId, () => abortableSleep(60_000, ctx.signal)),
});

/** Always asks a person; anyone may decide; waits forever. */
export const deploy = defineTool({
  name: 'deploy',
  description: 'Deploy a service',
  input: z.object({ service: z.string() }),
  needsApproval: true,
  execute: ({ service }) => `deployed ${service}`,
});

/**
 * A `deploy` that always asks a person and records each execution as `<workflowId>/<callId>` in `ran`:
 * for tests that count how often an approved call ran.
 */
export function recordingDeploy(): { deploy: typeof deploy; ran: string[] } {
  const ran: string[] = [];
  const tool = defineTool({
    name: 'deploy',
    description: 'Deploy a service',
    input: z.object({ service: z.string() }),
    needsApproval: true,
    execute: ({ service }, ctx) => {
      ran.push(`${ctx.workflowId}/${ctx.callId}`);
      return `deployed ${service}`;
    },
  });
  return { deploy: tool, ran };
}

export const allTools = [echo, slowRead, slowWrite, boom, fatalBoom, typed, big, waitForever];
