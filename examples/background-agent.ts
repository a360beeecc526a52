/**
 * A long background agent with budgets: it reads a manual page by page (40 tool steps), continues as
 * new on its own as its history grows, and when its token budget is spent it pauses for a person, who
 * extends the budget; then it finishes. Nobody waits on it in between.
 *
 *   npx tsx examples/background-agent.ts   # TEMPORAL_ADDRESS, else localhost:7233, else an embedded dev server
 *
 * The model is a scripted stand-in (not an LLM) that reports 1,050 tokens a step, so the budget runs
 * out at a known point; a real model reports its own usage, and the cost budget counts priced models.
 */
import { z } from 'zod';
import { defineAgent, defineTool } from '../src/entry/index'; // in your project: 'durable-agent'
import type { AgentClient } from '../src/entry/client'; // 'durable-agent/client'
import type { AgentRunResult, ModelRequest, ScriptedTurn } from '../src/entry/worker'; // 'durable-agent/worker'
import { ScriptedProvider } from '../src/entry/worker';
import { runExample } from './run-example';

/** Pages in the manual. */
export const PAGES = 40;

const readPage = defineTool({
  name: 'read_page',
  description: 'One page of the manual',
  input: z.object({ page: z.number().int().min(1) }),
  readOnly: true,
  execute: ({ page }) => `Page ${page}: ${'lorem ipsum '.repeat(100)}`,
});

/** The scripted model: reads the next page each step, then sums up. */
function readerModel(request: ModelRequest): ScriptedTurn {
  const read = request.messages.filter((m) => m.role === 'assistant').length;
  const usage = { inputTokens: 1_000, outputTokens: 50 };
  if (read < PAGES) return { toolCalls: [{ name: 'read_page', args: { page: read + 1 } }], usage };
  return { text: `Read all ${PAGES} pages of the manual.`, usage };
}

export const reader = defineAgent({
  name: 'example-reader',
  model: { provider: 'scripted', model: 'example-reader' },
  system: 'Read the manual and sum it up.',
  tools: [readPage],
  maxSteps: 1_000,
  budget: {
    maxTokens: 20_000, // input + output + cache tokens of every call
    maxCostUsd: 5, // US dollars, as the price table prices each call
    timeout: '2h', // wall clock from the start: a durable timer, survives worker restarts
    maxTurns: 20, // user turns, for runs started as sessions
  },
  onBudgetExhausted: 'ask', // a spent budget pauses the run for a person instead of ending it
  continueAsNewAfterEvents: 100, // a fresh history every ~8 steps, to show it (default 5,000 events)
});

/** Worker side: the agents and the providers they call. */
export const agents = [reader];
export const providers = { scripted: new ScriptedProvider({ 'example-reader': readerModel }) };

/** What the example saw: the result, the extensions granted and the executions the run went through. */
export interface BackgroundOutcome {
  result: AgentRunResult;
  extensions: number;
  executions: number;
}

/** Client side: start the run, then act as the person on call who answers its budget requests. */
export async function main(
  client: AgentClient,
  log: (line: string) => void = console.log,
  workflowId = `manual-reader-${Date.now()}`,
): Promise<BackgroundOutcome> {
  const run = await client.start(reader, { input: 'Read the whole manual.', workflowId });
  let extensions = 0;
  let executions = 1;
  for await (const event of run.events()) {
    if (event.type === 'continued_as_new') executions++; // same workflow id, same event stream: nothing else changes
    if (event.type === 'approval_requested' && event.callId.startsWith('budget_')) {
      log(`paused at step ${event.step}: ${JSON.stringify(event.args)}`);
      // Any client can decide: `durable-agent approve <workflowId> <callId>`, a signal, or this update.
      await run.decide({ callId: event.callId, decision: 'approve', by: 'ops:alice', extendBy: 30_000 });
      extensions++;
    }
  }
  const result = await run.result(); // the result of the whole chain of executions
  log(
    `${result.status} after ${result.steps} steps, ${result.usage.inputTokens + result.usage.outputTokens} tokens, ${executions} executions`,
  );
  return { result, extensions, executions };
}

if (require.main === module) void runExample({ agents, providers, main: (client, log) => main(client, log) });
