/**
 * `durable-agent/mcp`: tools from MCP servers (stdio or streamable HTTP). Needs the optional package
 * `@modelcontextprotocol/sdk` (`npm install @modelcontextprotocol/sdk`), loaded when a worker first
 * connects to a server: defining agents with `mcp` needs no SDK.
 *
 * @example
 * ```ts
 * import { defineAgent } from 'durable-agent';
 * import { mcpServer, mcpTools } from 'durable-agent/mcp';
 *
 * const files = mcpServer({ name: 'files', command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '.'] });
 * export const reader = defineAgent({ name: 'reader', model: { provider: 'anthropic', model: 'claude-sonnet-5-5' }, mcp: [mcpTools(files, { defaults: { needsApproval: true } })] });
 * ```
 */
export { mcpServer, mcpTools, McpServerError } from '../integrations/mcp/server';
export type {
  McpHttpServerConfig,
  McpServer,
  McpServerConfig,
  McpSource,
  McpStdioServerConfig,
  McpToolOptions,
  McpToolset,
  McpToolsetOptions,
} from '../integrations/mcp/server';
