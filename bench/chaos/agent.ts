/**
 * The chaos campaign's scripted agent (bench/chaos.ts, test/restart/chaos.test.ts, the fleet test).
 *
 * Each run follows a script picked by its prompt (`chaos run <n>`): parallel read-only lookups, a serial
 * at-most-once `transfer`, `deploy` calls a person approves (or denies), a `nap` that sleeps, then an
 * answer. Model calls and tools write timestamped lines to a log file per run, shared by every worker
 * process (`<epoch ms> <pid> <kind> <id>`), so the campaign can tell which worker ran what, count the
 * executions of each call and time how long an interrupted step took to run again.
 */
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Context } from '@temporalio/activity';
import { z } from 'zod';
import type { Agent, ToolContext } from '../../src/agents/define';
import { defineAgent, defineTool } from '../../src/agents/define';
import type { ModelRequest, ModelResponse } from '../../src/core/output/native-output';
import { abortableSleep } from '../../src/integrations/providers/abortable';
import type { ScriptedTurn } from '../../src/integrations/providers/scripted';
import { ScriptedProvider } from '../../src/integrations/providers/scripted';
import type { ModelCallContext, ModelProvider } from '../../src/integrations/providers/types';

/** Name of the agent (and of its scripted model). */
export const CHAOS_AGENT = 'chaos_agent';
/** The tool that must never run twice. */
export const AT_MOST_ONCE_TOOL = 'transfer';
/** Who approves deployments in the campaign. */
export const CHAOS_APPROVER = 'ops:chaos';

/** Kinds of log lines: a model call started/ended (`id` = `s<step>`), a tool execution started/ended (`id` = call id). */
export type LogKind = 'mstart' | 'mdone' | 'start' | 'done';

/** One line of a run's log. */
export interface LogLine {
  at: number;
  pid: number;
  kind: LogKind;
  id: string;
  /** The tool, for `start`/`done` lines. */
  tool?: string;
}

/** The log file of run `workflowId` under `dir`. */
export function runLogFile(dir: string, workflowId: string): string {
  return join(dir, `${workflowId}.log`);
}

/** The lines of a run's log (empty when nothing ran yet). */
export function readRunLog(dir: string, workflowId: string): LogLine[] {
  const file = runLogFile(dir, workflowId);
  if (!existsSync(file)) return [];
  const lines: LogLine[] = [];
  for (const text of readFileSync(file, 'utf8').split('\n')) {
    const [at, pid, kind, id, tool] = text.split(' ');
    // A line cut by a kill -9 mid-write has fewer fields: skip it.
    if (!at || !pid || !kind || !id) continue;
    lines.push({ at: Number(at), pid: Number(pid), kind: kind as LogKind, id, ...(tool ? { tool } : {}) });
  }
  return lines;
}

function log(dir: string, workflowId: string, kind: LogKind, id: string, tool?: string): void {
  appendFileSync(runLogFile(dir, workflowId), `${Date.now()} ${process.pid} ${kind} ${id}${tool ? ` ${tool}` : ''}\n`);
}

/** The prompt of run number `n`: the script is chosen by it. */
export function chaosPrompt(n: number): string {
  return `chaos run ${n}`;
}

/** The run number a prompt names. */
function runNumber(request: ModelRequest): number {
  const first = request.messages[0];
  const text = first && first.role === 'user' ? first.content.map((b) => (b.type === 'text' ? b.text : '')).join('') : '';
  const n = /chaos run (\d+)/.exec(text)?.[1];
  if (n === undefined) throw new Error(`the chaos agent's prompt must be "chaos run <n>", got ${JSON.stringify(text.slice(0, 80))}`);
  return Number(n);
}

/** A small deterministic generator (mulberry32), so run `n` always gets the same script. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The script of run `n`: six model calls, five of them asking for tools. */
export function chaosScript(n: number): ScriptedTurn[] {
  const r = random(n * 7919 + 17);
  const between = (lo: number, hi: number) => Math.round(lo + r() * (hi - lo));
  const delay = () => between(300, 900);
  const reads = between(2, 4);
  return [
    {
      text: `Looking up ${reads} keys.`,
      toolCalls: Array.from({ length: reads }, (_, i) => ({ name: 'lookup', args: { key: `k${n}-${i}`, ms: between(200, 900) } })),
      delayMs: delay(),
    },
    {
      text: 'Transferring the first amount.',
      toolCalls: [{ name: AT_MOST_ONCE_TOOL, args: { ref: `t${n}-1`, amount: between(1, 500), ms: between(200, 600) } }],
      delayMs: delay(),
    },
    {
      text: 'Deploying the API, then reading its state.',
      toolCalls: [
        { name: 'deploy', args: { service: 'api', ms: between(100, 400) } },
        { name: 'lookup', args: { key: `api-${n}`, ms: between(100, 400) } },
      ],
      delayMs: delay(),
    },
    {
      text: 'Waiting a little, then the second transfer.',
      toolCalls: [
        { name: 'nap', args: { ms: between(1000, 2500) } },
        { name: AT_MOST_ONCE_TOOL, args: { ref: `t${n}-2`, amount: between(1, 500), ms: between(200, 600) } },
      ],
      delayMs: delay(),
    },
    {
      text: 'Deploying the web front.',
      toolCalls: [{ name: 'deploy', args: { service: 'web', ms: between(100, 400) } }],
      delayMs: delay(),
    },
    { text: `Run ${n} done: looked up, transferred twice, deployed.`, stream: { chunks: 8, intervalMs: between(50, 120) } },
  ];
}

/** How the person decides a pending approval of run `n`: the same in the baseline and under chaos. */
export function chaosDecision(n: number, callId: string): { decision: 'approve' | 'deny'; by: 'signal' | 'update' } {
  const h = [...`${n}/${callId}`].reduce((acc, c) => (acc * 31 + c.charCodeAt(0)) >>> 0, 7);
  return { decision: h % 5 === 0 ? 'deny' : 'approve', by: h % 2 === 0 ? 'signal' : 'update' };
}

/** The chaos agent's tools; they log to run files under `logDir`. */
export function chaosTools(logDir: string) {
  async function logged<T>(ctx: ToolContext, tool: string, ms: number, value: T): Promise<T> {
    log(logDir, ctx.workflowId, 'start', ctx.callId, tool);
    await abortableSleep(ms, ctx.signal);
    log(logDir, ctx.workflowId, 'done', ctx.callId, tool);
    return value;
  }
  const lookup = defineTool({
    name: 'lookup',
    description: 'Read a value by key; takes `ms` milliseconds',
    input: z.object({ key: z.string(), ms: z.number().int().min(0) }),
    readOnly: true,
    execute: ({ key, ms }, ctx) => logged(ctx, 'lookup', ms, `value of ${key}`),
  });
  const transfer = defineTool({
    name: AT_MOST_ONCE_TOOL,
    description: 'Transfer an amount; must never run twice',
    input: z.object({ ref: z.string(), amount: z.number().int(), ms: z.number().int().min(0) }),
    atMostOnce: true,
    execute: ({ ref, amount, ms }, ctx) => logged(ctx, AT_MOST_ONCE_TOOL, ms, `transferred ${amount} (${ref})`),
  });
  const deploy = defineTool({
    name: 'deploy',
    description: 'Deploy a service, once a person approves',
    input: z.object({ service: z.string(), ms: z.number().int().min(0) }),
    needsApproval: true,
    execute: ({ service, ms }, ctx) => logged(ctx, 'deploy', ms, `deployed ${service}`),
  });
  const nap = defineTool({
    name: 'nap',
    description: 'Sleep `ms` milliseconds',
    input: z.object({ ms: z.number().int().min(0) }),
    execute: ({ ms }, ctx) => logged(ctx, 'nap', ms, `slept ${ms} ms`),
  });
  return [lookup, transfer, deploy, nap] as const;
}

/** A provider that logs each model call of an agent step (start and end) to the run's file. */
class LoggedProvider implements ModelProvider {
  constructor(
    private readonly inner: ModelProvider,
    private readonly logDir: string,
  ) {}

  async generate(request: ModelRequest, ctx: ModelCallContext): Promise<ModelResponse> {
    const workflowId = Context.current().info.workflowExecution?.workflowId ?? 'unknown-run';
    const id = `s${ctx.step}`;
    log(this.logDir, workflowId, 'mstart', id);
    const response = await this.inner.generate(request, ctx);
    log(this.logDir, workflowId, 'mdone', id);
    return response;
  }
}

/** The chaos agent and the (logging) scripted model serving it, for a worker whose run logs go to `logDir`. */
export function chaosAgent(logDir: string): { agent: Agent; provider: ModelProvider } {
  const scripted = new ScriptedProvider({
    [CHAOS_AGENT]: (request) => {
      const script = chaosScript(runNumber(request));
      const step = request.messages.filter((m) => m.role === 'assistant').length;
      const turn = script[step];
      if (!turn) throw new Error(`chaos script of run ${runNumber(request)} has no step ${step + 1}`);
      return turn;
    },
  });
  const agent = defineAgent({
    name: CHAOS_AGENT,
    model: { provider: 'scripted', model: CHAOS_AGENT },
    tools: chaosTools(logDir),
    maxSteps: 20,
  });
  return { agent, provider: new LoggedProvider(scripted, logDir) };
}
