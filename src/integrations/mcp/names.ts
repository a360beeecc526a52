/** The names MCP tools get in an agent: `server__tool`, within the rules of tool names. */
import { createHash } from 'node:crypto';

/** Separates a server's name from its tool's in the names the model sees. */
export const MCP_NAME_SEPARATOR = '__';
const MAX_TOOL_NAME = 64;

/**
 * The agent-side name of tool `tool` of server `server`: `server__tool`, with characters tool names do
 * not allow replaced by `_`, and a name past 64 characters cut short with a hash of the whole (so two
 * long names stay distinct). Deterministic: the worker maps names back by computing it again.
 */
export function mcpToolName(server: string, tool: string): string {
  const name = `${server}${MCP_NAME_SEPARATOR}${tool.replace(/[^a-zA-Z0-9_-]/g, '_')}`;
  if (name.length <= MAX_TOOL_NAME) return name;
  const hash = createHash('sha256').update(`${server}\0${tool}`).digest('hex').slice(0, 8);
  return `${name.slice(0, MAX_TOOL_NAME - 9)}_${hash}`;
}

/** Whether `name` may be a tool of server `server` (it has the server's prefix). */
export function hasServerPrefix(name: string, server: string): boolean {
  return name.startsWith(`${server}${MCP_NAME_SEPARATOR}`);
}
