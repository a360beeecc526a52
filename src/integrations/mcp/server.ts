/**
 * Declaring MCP servers and which of their tools an agent gets. Pure data and checks: no connection is
 * made here (the worker connects, see `client-pool.ts`), so agent definitions stay importable anywhere.
 */
import type { Duration } from '@temporalio/common';
import { msToNumber } from '@temporalio/common';
import { DefinitionError, DurableAgentError } from '../../core/run/errors';
import type { JsonObject } from '../../core/messages/json';
import type { ToolConfig, ToolInputSchema } from '../../agents/tool-config';
import { describeValue } from '../../agents/describe-value';

/** Names of MCP servers: the prefix of their tools' names (`server__tool`). */
export const MCP_SERVER_NAME = /^[a-zA-Z0-9-]+(?:_[a-zA-Z0-9-]+)*$/;
/** Longest server name, so `server__tool` keeps room for the tool within 64 characters. */
export const MCP_SERVER_NAME_MAX = 32;
/** Default time to start or reach a server and read its tool list. */
export const DEFAULT_MCP_CONNECT_TIMEOUT_MS = 20_000;

interface McpServerCommon {
  /**
   * 1–32 letters, digits, `-` and single `_` (no `__`): the prefix of the server's tool names, so tool
   * `read_file` of server `fs` is `fs__read_file` for the model, approvals and run policies.
   */
  name: string;
  /** How long starting (or reaching) the server and reading its tool list may take. Default 20 s. */
  connectTimeout?: Duration;
}

/** A server the worker starts as a child process and talks to over stdin/stdout. */
export interface McpStdioServerConfig extends McpServerCommon {
  /** The program to run (found on `PATH`), e.g. `npx` or `node`. */
  command: string;
  args?: readonly string[];
  /**
   * Environment of the server, over a safe default (`PATH`, `HOME`, …; not the worker's whole
   * environment). May hold secrets: it stays in the worker, never in history.
   */
  env?: Readonly<Record<string, string>>;
  /** Working directory of the server. Default: the worker's. */
  cwd?: string;
}

/** A server reached over MCP's Streamable HTTP transport. */
export interface McpHttpServerConfig extends McpServerCommon {
  /** The server's MCP endpoint, e.g. `https://mcp.example.com/mcp`. */
  url: string | URL;
  /** Sent with every request (e.g. `Authorization`). May hold secrets: they stay in the worker, never in history. */
  headers?: Readonly<Record<string, string>>;
}

/** How an MCP server is reached: a command (stdio) or a URL (Streamable HTTP). */
export type McpServerConfig = McpStdioServerConfig | McpHttpServerConfig;

/** A declared MCP server (see {@link mcpServer}). Give it to an agent with `mcp: [server]` or `mcp: [mcpTools(server, …)]`. */
export type McpServer = Readonly<McpServerConfig> & {
  readonly kind: 'mcp_server';
  readonly transport: 'stdio' | 'http';
};

/**
 * Per-tool settings of MCP tools: the same as {@link ToolConfig}'s (see there), except that an approval
 * predicate receives the arguments as JSON.
 */
export type McpToolOptions = Pick<
  ToolConfig<string, ToolInputSchema, unknown>,
  'readOnly' | 'atMostOnce' | 'timeout' | 'heartbeatTimeout' | 'retry' | 'onError' | 'approvers' | 'approvalTimeout' | 'onApprovalTimeout'
> & {
  /** Ask a person before each call: `true`, or a predicate of the arguments (runs in the worker, answer recorded). */
  needsApproval?: boolean | ((args: JsonObject) => boolean | Promise<boolean>);
};

/** Which tools of a server an agent gets, and their settings. Tool names here are the server's own (`read_file`, not `fs__read_file`). */
export interface McpToolsetOptions {
  /** Only these tools. Default: every tool the server lists. */
  include?: readonly string[];
  /** Not these tools. */
  exclude?: readonly string[];
  /** Settings of every tool of the server (default: not read-only, no approval, the usual timeout and retries). */
  defaults?: McpToolOptions;
  /** Settings of single tools, over `defaults`, by the server's tool name. */
  tools?: Readonly<Record<string, McpToolOptions>>;
}

/** A server's tools as an agent gets them (see {@link mcpTools}). */
export interface McpToolset extends McpToolsetOptions {
  readonly kind: 'mcp_tools';
  readonly server: McpServer;
}

/** What an agent's `mcp` list holds: servers (all their tools, default settings) or toolsets. */
export type McpSource = McpServer | McpToolset;

/**
 * A server, a bad configuration of it or one that cannot be reached (code `invalid_config`). `retryable`:
 * the server may come back (unreachable, failed to start in time); otherwise the configuration must be fixed.
 */
export class McpServerError extends DurableAgentError {
  readonly server: string;
  readonly retryable: boolean;
  constructor(server: string, message: string, options: { retryable: boolean; cause?: unknown }) {
    super('invalid_config', `MCP server "${server}": ${message}`, options.cause !== undefined ? { cause: options.cause } : undefined);
    this.server = server;
    this.retryable = options.retryable;
  }
}

type Fields = Record<string, unknown>;
const isObject = (v: unknown): v is Fields => typeof v === 'object' && v !== null && !Array.isArray(v);
const isStringRecord = (v: unknown): boolean => isObject(v) && Object.values(v).every((x) => typeof x === 'string');

const STDIO_KEYS = ['name', 'command', 'args', 'env', 'cwd', 'connectTimeout'];
const HTTP_KEYS = ['name', 'url', 'headers', 'connectTimeout'];

/**
 * Declare an MCP server whose tools agents may use. The worker connects on first use (one client per
 * server per worker process), reconnects when it died, and closes it in `worker.close()`.
 *
 * @throws {DefinitionError} for a bad name, neither or both of `command` and `url`, a malformed URL, or
 * an unknown option.
 * @example
 * ```ts
 * const fs = mcpServer({ name: 'fs', command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/srv/data'] });
 * const docs = mcpServer({ name: 'docs', url: 'https://mcp.example.com/mcp', headers: { Authorization: `Bearer ${process.env.DOCS_TOKEN}` } });
 * ```
 */
export function mcpServer(config: McpServerConfig): McpServer {
  if (!isObject(config))
    throw new DefinitionError(
      `mcpServer needs an object such as { name: 'fs', command: 'npx', args: [...] } or { name: 'docs', url: 'https://…/mcp' }, got ${describeValue(config)}`,
    );
  const { name } = config;
  if (typeof name !== 'string' || !MCP_SERVER_NAME.test(name) || name.length > MCP_SERVER_NAME_MAX) {
    throw new DefinitionError(
      `mcpServer: name ${JSON.stringify(name) ?? describeValue(name)} must be 1-${MCP_SERVER_NAME_MAX} letters, digits, - or single _ (no "__": it separates server and tool in "server__tool")`,
    );
  }
  const where = `mcpServer "${name}"`;
  const c = config as Fields;
  const hasCommand = c.command !== undefined;
  const hasUrl = c.url !== undefined;
  if (hasCommand === hasUrl)
    throw new DefinitionError(
      `${where}: give either command (a server started over stdio) or url (a Streamable HTTP server), not ${hasCommand ? 'both' : 'neither'}`,
    );
  const known = hasCommand ? STDIO_KEYS : HTTP_KEYS;
  for (const key of Object.keys(c)) {
    if (!known.includes(key))
      throw new DefinitionError(
        `${where}: unknown option "${key}" for a ${hasCommand ? 'stdio' : 'Streamable HTTP'} server (known: ${known.join(', ')})`,
      );
  }
  checkConnectTimeout(where, c.connectTimeout);
  if (hasCommand) {
    if (typeof c.command !== 'string' || !c.command.trim())
      throw new DefinitionError(
        `${where}: command must be a non-empty string (the program to run, e.g. "npx"), got ${describeValue(c.command)}`,
      );
    if (c.args !== undefined && !(Array.isArray(c.args) && c.args.every((a) => typeof a === 'string')))
      throw new DefinitionError(`${where}: args must be a list of strings`);
    if (c.env !== undefined && !isStringRecord(c.env)) throw new DefinitionError(`${where}: env must map variable names to strings`);
    if (c.cwd !== undefined && (typeof c.cwd !== 'string' || !c.cwd)) throw new DefinitionError(`${where}: cwd must be a non-empty string`);
    return Object.freeze({
      ...(config as McpStdioServerConfig),
      args: Object.freeze([...((c.args as string[] | undefined) ?? [])]),
      kind: 'mcp_server' as const,
      transport: 'stdio' as const,
    });
  }
  let url: URL;
  try {
    url = new URL(String(c.url));
  } catch {
    throw new DefinitionError(`${where}: url must be an http(s) URL such as "http://localhost:3001/mcp", got ${describeValue(c.url)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new DefinitionError(`${where}: url must use http or https, got "${url.protocol}"`);
  if (c.headers !== undefined && !isStringRecord(c.headers))
    throw new DefinitionError(`${where}: headers must map header names to strings`);
  return Object.freeze({ ...(config as McpHttpServerConfig), url: url.href, kind: 'mcp_server' as const, transport: 'http' as const });
}

function checkConnectTimeout(where: string, value: unknown): void {
  if (value === undefined) return;
  let ms: number;
  try {
    ms = msToNumber(value as Duration);
  } catch {
    ms = Number.NaN;
  }
  if (!Number.isFinite(ms) || ms <= 0)
    throw new DefinitionError(
      `${where}: connectTimeout must be a positive duration (e.g. "30s" or milliseconds), got ${describeValue(value)}`,
    );
}

const TOOLSET_KEYS = ['include', 'exclude', 'defaults', 'tools'];
const TOOL_OPTION_KEYS = [
  'readOnly',
  'atMostOnce',
  'timeout',
  'heartbeatTimeout',
  'retry',
  'onError',
  'needsApproval',
  'approvers',
  'approvalTimeout',
  'onApprovalTimeout',
];

/**
 * The tools of `server` an agent gets, with their settings. Settings are checked when the run starts
 * against the server's tool list: naming a tool the server does not list is an error (a typo must not
 * silently drop an approval).
 *
 * @throws {DefinitionError} for an unknown option or malformed lists.
 * @example
 * ```ts
 * defineAgent({
 *   name: 'ops', model,
 *   mcp: [mcpTools(fs, { exclude: ['move_file'], defaults: { readOnly: true }, tools: { write_file: { readOnly: false, needsApproval: true } } })],
 * });
 * ```
 */
export function mcpTools(server: McpServer, options: McpToolsetOptions = {}): McpToolset {
  if (!isObject(server) || server.kind !== 'mcp_server')
    throw new DefinitionError(`mcpTools: the first argument must be a server made by mcpServer(...), got ${describeValue(server)}`);
  const where = `mcpTools(${server.name})`;
  if (!isObject(options)) throw new DefinitionError(`${where}: options must be an object, got ${describeValue(options)}`);
  for (const key of Object.keys(options)) {
    if (!TOOLSET_KEYS.includes(key)) throw new DefinitionError(`${where}: unknown option "${key}" (known: ${TOOLSET_KEYS.join(', ')})`);
  }
  for (const key of ['include', 'exclude'] as const) {
    const list = options[key];
    if (list !== undefined && !(Array.isArray(list) && list.every((t) => typeof t === 'string' && t)))
      throw new DefinitionError(`${where}: ${key} must be a list of the server's tool names`);
  }
  checkToolOptionKeys(`${where}: defaults`, options.defaults);
  if (options.tools !== undefined) {
    if (!isObject(options.tools)) throw new DefinitionError(`${where}: tools must map the server's tool names to settings`);
    for (const [tool, o] of Object.entries(options.tools)) checkToolOptionKeys(`${where}: tools.${tool}`, o);
  }
  return Object.freeze({ ...options, kind: 'mcp_tools' as const, server });
}

function checkToolOptionKeys(where: string, value: unknown): void {
  if (value === undefined) return;
  if (!isObject(value)) throw new DefinitionError(`${where} must be an object of tool settings, got ${describeValue(value)}`);
  for (const key of Object.keys(value)) {
    if (!TOOL_OPTION_KEYS.includes(key))
      throw new DefinitionError(`${where}: unknown setting "${key}" (known: ${TOOL_OPTION_KEYS.join(', ')})`);
  }
}

/** The toolset of a source: a server alone means all its tools with default settings. */
export function toolsetOf(source: McpSource): McpToolset {
  return source.kind === 'mcp_tools' ? source : { kind: 'mcp_tools', server: source };
}

/**
 * Check an agent's `mcp` list: servers or toolsets, server names unique.
 *
 * @throws {DefinitionError} naming the agent and the entry.
 */
export function checkAgentMcp(agent: string, mcp: unknown): void {
  if (mcp === undefined) return;
  if (!Array.isArray(mcp))
    throw new DefinitionError(
      `agent "${agent}": mcp must be a list of servers (mcpServer(...)) or toolsets (mcpTools(server, ...)), got ${describeValue(mcp)}`,
    );
  const names = new Set<string>();
  mcp.forEach((s: unknown, i) => {
    const kind = isObject(s) ? s.kind : undefined;
    const server = kind === 'mcp_server' ? s : kind === 'mcp_tools' ? (s as Fields).server : undefined;
    if (!isObject(server) || server.kind !== 'mcp_server' || typeof server.name !== 'string') {
      throw new DefinitionError(
        `agent "${agent}": mcp[${i}] is not an MCP server or toolset (got ${describeValue(s)}); use mcpServer({ ... }) or mcpTools(server, { ... })`,
      );
    }
    if (names.has(server.name))
      throw new DefinitionError(
        `agent "${agent}": two MCP servers named "${server.name}": server names are tool-name prefixes and must be unique within an agent`,
      );
    names.add(server.name);
  });
}
