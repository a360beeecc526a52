/**
 * The worker's connections to MCP servers: one client per server per worker process, connected on first
 * use, connected again after it died, closed by `close()`. Secrets of a server (its `env`, `headers`)
 * live here and in the server's declaration only, never in activity inputs or outputs.
 */
import { msToNumber } from '@temporalio/common';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type * as ClientModule from '@modelcontextprotocol/sdk/client/index.js';
import type * as StdioModule from '@modelcontextprotocol/sdk/client/stdio.js';
import type * as StreamableHttpModule from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult, Tool as McpToolInfo } from '@modelcontextprotocol/sdk/types.js';
import { DEFAULT_MCP_CONNECT_TIMEOUT_MS, McpServerError } from './server';
import { loadPeer, PEERS } from '../optional-peer';
import type { McpServer, McpStdioServerConfig, McpHttpServerConfig } from './server';

export type { McpToolInfo };

/*
 * The MCP SDK is loaded when a server is first connected to: a worker whose agents use no MCP server, and
 * every CLI command, start without loading it (~0.1 s).
 */
const sdk = {
  client: () => loadPeer<typeof ClientModule>(PEERS.mcp, '@modelcontextprotocol/sdk/client/index.js'),
  stdio: () => loadPeer<typeof StdioModule>(PEERS.mcp, '@modelcontextprotocol/sdk/client/stdio.js'),
  http: () => loadPeer<typeof StreamableHttpModule>(PEERS.mcp, '@modelcontextprotocol/sdk/client/streamableHttp.js'),
};

/** Bytes of a stdio server's stderr kept for error messages. */
const STDERR_TAIL_BYTES = 2048;
const CLIENT_INFO = { name: 'durable-agent', version: '0.1.0' };

/** How one call is made. */
export interface McpCallOptions {
  signal?: AbortSignal;
  /** Longest wait for the answer (the tool's attempt timeout). */
  timeoutMs: number;
}

/** The error of an answer that did not come (transport, protocol), for retries: see {@link McpServerError}. */
function messageOf(err: unknown): string {
  if (err instanceof Error) {
    const cause = (err as { cause?: unknown }).cause;
    const inner = cause instanceof Error && cause.message && !err.message.includes(cause.message) ? ` (${cause.message})` : '';
    return `${err.message || err.name}${inner}`;
  }
  return String(err);
}

/** One server's client: connected lazily, reset when its transport closes. */
class McpConnection {
  private connecting: Promise<Client> | undefined;
  private current: Client | undefined;
  private tools: Promise<McpToolInfo[]> | undefined;
  private stderrTail = '';
  private closed = false;

  constructor(readonly server: McpServer) {}

  private get connectTimeoutMs(): number {
    return this.server.connectTimeout !== undefined ? msToNumber(this.server.connectTimeout) : DEFAULT_MCP_CONNECT_TIMEOUT_MS;
  }

  /** The connected client, connecting now if there is none (or the last one died). */
  client(): Promise<Client> {
    if (this.closed)
      return Promise.reject(new McpServerError(this.server.name, 'the worker is closing; its MCP clients are closed', { retryable: true }));
    if (!this.connecting) {
      const attempt = this.connect();
      this.connecting = attempt;
      attempt.catch(() => {
        if (this.connecting === attempt) this.connecting = undefined;
      });
    }
    return this.connecting;
  }

  private transport(): Transport {
    if (this.server.transport === 'http') {
      const s = this.server as McpHttpServerConfig;
      const { StreamableHTTPClientTransport } = sdk.http();
      return new StreamableHTTPClientTransport(
        new URL(String(s.url)),
        s.headers ? { requestInit: { headers: { ...s.headers } } } : undefined,
      );
    }
    const s = this.server as McpStdioServerConfig;
    const { StdioClientTransport } = sdk.stdio();
    const transport = new StdioClientTransport({
      command: s.command,
      args: [...(s.args ?? [])],
      ...(s.env ? { env: { ...s.env } } : {}),
      ...(s.cwd ? { cwd: s.cwd } : {}),
      stderr: 'pipe',
    });
    // Keep the end of what the server writes to stderr, for the error when it fails to start or dies.
    transport.stderr?.on('data', (chunk: Buffer) => {
      this.stderrTail = (this.stderrTail + chunk.toString('utf8')).slice(-STDERR_TAIL_BYTES);
    });
    return transport;
  }

  private async connect(): Promise<Client> {
    this.stderrTail = '';
    const { Client } = sdk.client();
    const client = new Client(CLIENT_INFO, { capabilities: {} });
    const transport = this.transport();
    client.onclose = () => {
      // The server went away (exited, session ended): the next use connects again and lists tools again.
      if (this.current === client) {
        this.current = undefined;
        this.connecting = undefined;
        this.tools = undefined;
      }
    };
    client.onerror = () => undefined; // reported through the requests that fail
    try {
      await client.connect(transport, { timeout: this.connectTimeoutMs });
    } catch (err) {
      await client.close().catch(() => undefined);
      throw this.connectError(err);
    }
    this.current = client;
    return client;
  }

  /** Why the server could not be started or reached, and how to fix it. */
  private connectError(err: unknown): McpServerError {
    const name = this.server.name;
    const code = (err as { code?: unknown }).code;
    if (this.server.transport === 'stdio') {
      const s = this.server as McpStdioServerConfig;
      if (code === 'ENOENT') {
        return new McpServerError(
          name,
          `command "${s.command}" was not found: install it or fix command in mcpServer({ name: '${name}', command, args })`,
          { retryable: false, cause: err },
        );
      }
      if (code === 'EACCES')
        return new McpServerError(
          name,
          `command "${s.command}" cannot be run (permission denied): fix command in mcpServer({ name: '${name}', ... })`,
          { retryable: false, cause: err },
        );
      const stderr = this.stderrTail.trim();
      return new McpServerError(
        name,
        `the server (${[s.command, ...(s.args ?? [])].join(' ')}) did not start: ${messageOf(err)}${stderr ? `; its stderr ends with:\n${stderr}` : ''}\nCheck command, args and env in mcpServer({ name: '${name}', ... })`,
        { retryable: true, cause: err },
      );
    }
    const url = String((this.server as McpHttpServerConfig).url);
    if (err instanceof sdk.http().StreamableHTTPError && typeof code === 'number' && [401, 403, 404, 405].includes(code)) {
      const fix = code === 404 || code === 405 ? 'check url (the MCP endpoint, often ending in /mcp)' : 'check headers (credentials)';
      return new McpServerError(name, `${url} answered HTTP ${code}: ${fix} in mcpServer({ name: '${name}', url, headers })`, {
        retryable: false,
        cause: err,
      });
    }
    return new McpServerError(
      name,
      `cannot reach ${url}: ${messageOf(err)}. Is the server running? Check url in mcpServer({ name: '${name}', url })`,
      { retryable: true, cause: err },
    );
  }

  /** Every tool the server lists (all pages), read once per connection. */
  listTools(): Promise<McpToolInfo[]> {
    if (!this.tools) {
      const listing = this.readTools();
      this.tools = listing;
      listing.catch(() => {
        if (this.tools === listing) this.tools = undefined;
      });
    }
    return this.tools;
  }

  private async readTools(): Promise<McpToolInfo[]> {
    const client = await this.client();
    const tools: McpToolInfo[] = [];
    let cursor: string | undefined;
    try {
      do {
        const page = await client.listTools(cursor ? { cursor } : undefined, { timeout: this.connectTimeoutMs });
        tools.push(...page.tools);
        cursor = page.nextCursor;
      } while (cursor);
    } catch (err) {
      throw new McpServerError(this.server.name, `listing its tools failed: ${messageOf(err)}`, { retryable: true, cause: err });
    }
    return tools;
  }

  /** Call tool `name` (the server's own name). */
  async callTool(name: string, args: Record<string, unknown>, options: McpCallOptions): Promise<CallToolResult> {
    const client = await this.client();
    return (await client.callTool({ name, arguments: args }, undefined, {
      ...(options.signal ? { signal: options.signal } : {}),
      timeout: options.timeoutMs,
      maxTotalTimeout: options.timeoutMs,
      resetTimeoutOnProgress: true,
    })) as CallToolResult;
  }

  async close(): Promise<void> {
    this.closed = true;
    const current = this.connecting;
    this.connecting = undefined;
    this.current = undefined;
    this.tools = undefined;
    const client = await current?.catch(() => undefined);
    await client?.close().catch(() => undefined);
  }
}

/** The MCP clients of one worker process, one per declared server. */
export class McpClientPool {
  private readonly connections = new Map<McpServer, McpConnection>();

  /** The connection to `server` (not connected until used). */
  connection(server: McpServer): McpConnection {
    let c = this.connections.get(server);
    if (!c) {
      c = new McpConnection(server);
      this.connections.set(server, c);
    }
    return c;
  }

  /** Close every client (stdio servers are stopped). Safe to call twice. */
  async close(): Promise<void> {
    const all = [...this.connections.values()];
    this.connections.clear();
    await Promise.all(all.map((c) => c.close()));
  }
}

export type { McpConnection };
