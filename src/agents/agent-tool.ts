/** `agentTool`: an agent given to another agent as a tool; each call runs it as a child workflow. */
import { z } from 'zod';
import { DefinitionError } from '../core/run/errors';
import type { AnyAgent, Tool } from './define';
import { defineTool, ToolError } from './define';
import { NAME } from './validate';

/** Options of {@link agentTool}. */
export interface AgentToolOptions<N extends string> {
  /** The tool's name, as the parent's model calls it. Default: the agent's name. */
  name?: N;
  /** What the parent's model reads about the tool. Default: a sentence naming the agent. */
  description?: string;
  /**
   * Calls may run in parallel with other read-only calls of the step (several sub-agents at once).
   * Default false: one at a time, in the order the model asked.
   */
  readOnly?: boolean;
}

/** The input schema of every agent tool: `{ input: string }`. */
export type AgentToolInput = z.ZodObject<{ input: z.ZodString }>;

/** The input schema of agent and consolidate tools. */
export const agentToolInput: AgentToolInput = z.object({
  input: z.string().min(1).describe('The task for the agent, with everything it needs to know: it sees nothing else of this conversation.'),
});

/**
 * An agent as a tool of another agent. When the model calls it (`{ input: "the task" }`), the parent run
 * starts the agent as a **child workflow** (workflow id `<parent workflow id>--<call id>`) with its own
 * history, limits, events and approvals; the child's final text is the call's result (a child that ends
 * otherwise gives an error result naming its status and why). The child's usage and cost count in the
 * parent's; cancelling the parent cancels the child; the parent's run policy applies to the child too.
 * The agent needs no separate registration: a worker serving the parent serves the agents of its agent tools.
 *
 * @throws {DefinitionError} when `agent` is not an agent made by `defineAgent`, or a name is invalid.
 * @example
 * ```ts
 * const researcher = defineAgent({ name: 'researcher', model, tools: [search] });
 * const writer = defineAgent({ name: 'writer', model, tools: [agentTool(researcher, { description: 'Research a topic' })] });
 * ```
 */
export function agentTool<const N extends string = string>(
  agent: AnyAgent,
  options: AgentToolOptions<N> = {},
): Tool<N, AgentToolInput, never> {
  if (!agent || typeof agent !== 'object' || agent.kind !== 'agent' || typeof agent.name !== 'string') {
    throw new DefinitionError('agentTool(agent): agent must be an agent made by defineAgent({ name, model, ... })');
  }
  const name = (options.name ?? agent.name) as N;
  if (!NAME.test(name))
    throw new DefinitionError(`agentTool("${agent.name}"): tool name ${JSON.stringify(name)} must be 1-64 letters, digits, _ or -`);
  const tool = defineTool({
    name,
    description:
      options.description ??
      `Ask the "${agent.name}" agent to do a task. Give it the whole task as "input"; its final answer is the result.`,
    input: agentToolInput,
    ...(options.readOnly !== undefined ? { readOnly: options.readOnly } : {}),
    execute: (): never => {
      // The parent's workflow runs the agent as a child workflow; a worker never executes this tool.
      throw new ToolError(`the agent tool "${name}" runs as a child workflow, not in a worker`, { retryable: false });
    },
  });
  return Object.freeze({ ...tool, subAgent: { agent: agent.name, definition: agent } });
}
