/** The few lines the activities need for MCP tools: the agent's tools with MCP's, and failures as Temporal sees them. */
import { ApplicationFailure } from '@temporalio/common';
import type { Context } from '@temporalio/activity';
import type { Agent, AnyTool } from '../../agents/define';
import { keepAlive } from '../../activities/heartbeat';
import type { ToolFailureDetails } from '../../core/run/contract';
import type { McpCatalog } from './tools';
import { McpServerError } from './server';

/** Failure types of MCP servers in activity failures. */
export const MCP_UNAVAILABLE = 'McpServerUnavailable';
export const MCP_CONFIG = 'McpServerConfig';

/** An MCP server's error as an activity failure: retryable when the server may come back; other errors unchanged. */
export function mcpFailure(err: unknown, details?: ToolFailureDetails): unknown {
  if (!(err instanceof McpServerError)) return err;
  return ApplicationFailure.create({
    message: err.message,
    type: err.retryable ? MCP_UNAVAILABLE : MCP_CONFIG,
    nonRetryable: !err.retryable,
    ...(details ? { details: [details] } : {}),
  });
}

/**
 * The agent with its MCP tools after its own (listed from its servers now): the agent itself when it
 * has none, so agents without MCP are described exactly as before.
 *
 * @throws an `ApplicationFailure` for a server that cannot be reached (retryable) or is misconfigured.
 */
export async function withMcpTools(agent: Agent, catalog: McpCatalog | undefined): Promise<Agent> {
  if (!catalog || !agent.mcp?.length) return agent;
  try {
    const tools = await catalog.toolsFor(agent);
    return { ...agent, tools: [...agent.tools, ...tools] };
  } catch (err) {
    throw mcpFailure(err);
  }
}

/**
 * The MCP tool `name` of `agent` for a call (undefined: not an MCP tool of the agent). Connecting and
 * listing heartbeat through `ctx`, so a slow server start is not taken for a lost worker.
 *
 * @throws an `ApplicationFailure` (with `details`) for a server that cannot be reached (retryable) or no
 * longer lists the tool.
 */
export async function mcpToolOf(
  agent: Agent,
  name: string,
  catalog: McpCatalog | undefined,
  details: ToolFailureDetails,
  ctx?: Context,
): Promise<AnyTool | undefined> {
  if (!catalog || !agent.mcp?.length) return undefined;
  const stop = ctx ? keepAlive(ctx) : () => undefined;
  try {
    return await catalog.tool(agent, name);
  } catch (err) {
    throw mcpFailure(err, details);
  } finally {
    stop();
  }
}
