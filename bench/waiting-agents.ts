/**
 * The agent of `bench/waiting-runs.ts`: it reads `steps` pages (a conversation of 2 + 2 × steps
 * messages), then asks for a tool that needs a person's approval and waits. Once approved, the tool
 * reports when it ran; the step after answers.
 */
import { z } from 'zod';
import type { Agent } from '../src/agents/define';
import { defineAgent, defineTool } from '../src/agents/define';
import { ScriptedProvider } from '../src/integrations/providers/scripted';
import { pageText } from './page-text';

/** Name of the waiting agent. */
export const WAITING_AGENT = 'bench_waiting';
/** Call id of the call every run waits on (ids are unique within a run). */
export const APPROVAL_CALL = 'approval';

/** The agent and its scripted model: `steps` page reads of `bytes` each, then the approval. */
export function waitingAgent(
  steps: number,
  bytes: number,
  hooks: { asked: () => void; executed: (workflowId: string) => void },
): { agent: Agent; provider: ScriptedProvider } {
  const readPage = defineTool({
    name: 'read_page',
    description: 'Read a page (read-only, instant)',
    input: z.object({ doc: z.string() }),
    readOnly: true,
    execute: ({ doc }, ctx) => pageText(doc, ctx.step, bytes),
  });
  const publish = defineTool({
    name: 'publish',
    description: 'Publish the summary (a person approves it first)',
    input: z.object({ doc: z.string() }),
    needsApproval: true,
    execute: (_args, ctx) => {
      hooks.executed(ctx.workflowId);
      return 'published';
    },
  });
  const provider = new ScriptedProvider({
    [WAITING_AGENT]: (_request, ctx) =>
      ctx.step <= steps
        ? { toolCalls: [{ name: 'read_page', args: { doc: 'manual' } }] }
        : ctx.step === steps + 1
          ? (hooks.asked(), { toolCalls: [{ name: 'publish', args: { doc: 'manual' }, id: APPROVAL_CALL }] })
          : { text: 'published' },
  });
  const agent = defineAgent({
    name: WAITING_AGENT,
    model: { provider: 'scripted', model: WAITING_AGENT },
    tools: [readPage, publish],
    maxSteps: steps + 2,
  });
  return { agent, provider };
}
