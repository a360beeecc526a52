/**
 * The agents the benchmark runs, on the scripted (zero-latency) model: every step asks for the same
 * read-only tool call, and the step after the last tool step answers.
 */
import { z } from 'zod';
import type { Agent, ContextOptions } from '../src/agents/define';
import { defineAgent, defineTool } from '../src/agents/define';
import { ScriptedProvider } from '../src/integrations/providers/scripted';
import type { Script } from '../src/integrations/providers/scripted';
import { pageText } from './page-text';

/** Agent for the throughput runs: one trivial tool call per step. */
export const STEP_AGENT = 'bench_step';
/** Agent for the long run: the tool returns a sizable text every step, so the conversation grows. */
export const LONG_AGENT = 'bench_long';

/** Trivial read-only tool: returns a short string at once. */
const lookup = defineTool({
  name: 'lookup',
  description: 'Look up a key (read-only, instant)',
  input: z.object({ key: z.string() }),
  readOnly: true,
  execute: ({ key }) => `value of ${key}`,
});

/** A read-only tool returning `bytes` bytes of text, different every step. */
function pageTool(bytes: number) {
  return defineTool({
    name: 'read_page',
    description: 'Read a page of a document (read-only, instant)',
    input: z.object({ doc: z.string() }),
    readOnly: true,
    execute: ({ doc }, ctx) => pageText(doc, ctx.step, bytes),
  });
}

/** Ask for `call` on steps 1..toolSteps, answer on the step after. */
function repeatCall(toolSteps: number, call: { name: string; args: { [key: string]: string } }): Script {
  return (_request, ctx) =>
    ctx.step <= toolSteps ? { toolCalls: [{ name: call.name, args: call.args }] } : { text: `done after ${toolSteps} tool steps` };
}

/** Sizes of the benchmark's agents. */
export interface BenchAgentOptions {
  /** Tool steps of a throughput run. */
  steps: number;
  /** Tool steps of the long run. */
  longSteps: number;
  /** Bytes each long-run tool call returns. */
  longBytes: number;
  /** How the long agent's context is kept within its window (default: the agent's defaults). */
  longContext?: ContextOptions;
}

/** The benchmark's agents and the scripted provider serving them. */
export function benchAgents(options: BenchAgentOptions): { agents: Agent[]; provider: ScriptedProvider } {
  const provider = new ScriptedProvider({
    [STEP_AGENT]: repeatCall(options.steps, { name: 'lookup', args: { key: 'k' } }),
    [LONG_AGENT]: repeatCall(options.longSteps, { name: 'read_page', args: { doc: 'manual' } }),
  });
  const agents = [
    defineAgent({ name: STEP_AGENT, model: { provider: 'scripted', model: STEP_AGENT }, tools: [lookup], maxSteps: options.steps + 1 }),
    defineAgent({
      name: LONG_AGENT,
      model: { provider: 'scripted', model: LONG_AGENT },
      tools: [pageTool(options.longBytes)],
      maxSteps: options.longSteps + 1,
      ...(options.longContext ? { context: options.longContext } : {}),
    }),
  ];
  return { agents, provider };
}
