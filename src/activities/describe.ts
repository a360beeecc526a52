import { createHash } from 'node:crypto';
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { RuleSet } from '../core/approvals/rules';
import { RULES_MEMO_KEY, RULES_WORKFLOW_ID } from '../core/approvals/rules';
import { asRuleSet } from '../core/approvals/standing-rules';
import { definitionHashInput } from '../core/run/definition';
import type { DescribeAgentInput } from '../core/run/contract';
import type { AgentSpec } from '../core/run/spec';
import type { AgentRegistry } from '../agents/registry';
import { agentSpec, promptSpec, toolSpec } from '../agents/registry';
import type { Agent } from '../agents/define';
import { subAgentsOf } from '../agents/sub-agents';
import type { TranscriptStore } from '../integrations/store/transcript-store';
import type { ContextWindowTable } from '../integrations/providers/context-windows';
import { outputSpec } from '../agents/output';
import type { ProviderRegistry } from './model';
import { withStore } from './storage';
import type { McpCatalog } from '../integrations/mcp/tools';
import { withMcpTools } from '../integrations/mcp/activity';

/**
 * The tools of every agent `agent` reaches through agent tools (as the worker serves them, MCP tools
 * listed now), for checking a run policy that its children get too.
 */
async function subAgentTools(
  registry: AgentRegistry,
  agent: Agent,
  mcp: McpCatalog | undefined,
): Promise<NonNullable<AgentSpec['subAgentTools']>> {
  const found: NonNullable<AgentSpec['subAgentTools']> = [];
  for (const sub of subAgentsOf([agent])) {
    const served = await withMcpTools(registry.get(sub.name), mcp);
    for (const tool of served.tools) {
      const { name, approval } = toolSpec(tool);
      found.push({ agent: served.name, name, ...(approval ? { approval } : {}) });
    }
  }
  return found;
}

/**
 * The namespace's standing rule set, as its rules entity publishes it in its memo (read with the
 * activity's client: no rules worker needed). No entity, or no set published yet: none (undefined).
 */
export async function readStandingRules(): Promise<RuleSet | undefined> {
  let client;
  try {
    client = Context.current().client;
  } catch {
    return undefined;
  }
  try {
    const described = await client.workflow.getHandle(RULES_WORKFLOW_ID).describe();
    const set = asRuleSet(described.memo?.[RULES_MEMO_KEY]);
    return set && set.version > 0 ? set : undefined;
  } catch (err) {
    // No rules entity in the namespace (yet): no standing rules.
    if ((err as Error)?.name === 'WorkflowNotFoundError') return undefined;
    throw err;
  }
}

/**
 * Resolve an agent into the data the workflow runs on; the prompt and tool schemas are stored as one blob.
 * The spec carries the hash of the whole definition (prompt included), which the run records in its memo.
 */
export function describeAgentActivity(
  registry: AgentRegistry,
  store: TranscriptStore,
  searchAttributes: boolean,
  windows?: ContextWindowTable,
  mcp?: McpCatalog,
  providers?: ProviderRegistry,
) {
  return async function describeAgent(input: DescribeAgentInput): Promise<AgentSpec> {
    let agent;
    try {
      agent = registry.get(input.agent);
    } catch (err) {
      throw ApplicationFailure.nonRetryable((err as Error).message, 'UnknownAgent');
    }
    // Tools of MCP servers are listed now and recorded with the rest: replay never asks the servers.
    agent = await withMcpTools(agent, mcp);
    const prompt = promptSpec(agent);
    const promptRef = await withStore("store the agent's prompt", () => store.putJson(prompt));
    const output = outputSpec(agent, (name) => providers?.get(name)?.nativeOutput === true);
    const spec: AgentSpec = { ...agentSpec(agent, promptRef, searchAttributes, windows), ...(output ? { output } : {}) };
    const standingRules = await readStandingRules();
    const hashed = {
      ...spec,
      definitionHash: createHash('sha256').update(definitionHashInput(spec, prompt)).digest('hex'),
      ...(standingRules ? { standingRules } : {}),
    };
    return input.subAgentTools ? { ...hashed, subAgentTools: await subAgentTools(registry, agent, mcp) } : hashed;
  };
}
