/**
 * MCP tools as the worker's ordinary tools: listed from the agent's servers when a run starts (the
 * `describeAgent` activity records them in the run's spec), and found again by name when a call runs.
 */
import { msToNumber } from '@temporalio/common';
import { Context } from '@temporalio/activity';
import { z } from 'zod';
import type { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv-provider.js';
import type * as AjvProviderModule from '@modelcontextprotocol/sdk/validation/ajv-provider.js';
import type * as McpTypesModule from '@modelcontextprotocol/sdk/types.js';
import type { JsonObject } from '../../core/messages/json';
import { DEFAULTS } from '../../core/run/spec';
import { DefinitionError } from '../../core/run/errors';
import type { Agent, AnyTool, ToolContext } from '../../agents/define';
import { ToolError } from '../../agents/define';
import { checkAgentTool } from '../../agents/validate';
import type { McpClientPool, McpConnection, McpToolInfo } from './client-pool';
import { mcpToolName, hasServerPrefix } from './names';
import { resultText } from './results';
import type { McpSource, McpToolOptions, McpToolset } from './server';
import { McpServerError, toolsetOf } from './server';
import { loadPeer, PEERS } from '../optional-peer';

/*
 * The MCP SDK's types (zod schemas) and ajv are loaded when an agent's MCP tools are first listed or a
 * call fails: a worker whose agents use no MCP server starts without them.
 */
const mcpTypes = () => loadPeer<typeof McpTypesModule>(PEERS.mcp, '@modelcontextprotocol/sdk/types.js');
const ajvProvider = () => loadPeer<typeof AjvProviderModule>(PEERS.mcp, '@modelcontextprotocol/sdk/validation/ajv-provider.js');

/** Whether `err` is an MCP error that retrying cannot fix: the server refused the request itself. */
function isFinal(err: unknown): boolean {
  const { ErrorCode, McpError } = mcpTypes();
  return (
    err instanceof McpError &&
    [ErrorCode.InvalidParams, ErrorCode.MethodNotFound, ErrorCode.InvalidRequest, ErrorCode.ParseError].includes(err.code)
  );
}

/** The tools' input schema: the server's JSON Schema, without `$schema` (which providers and ajv need not see). */
function inputSchemaOf(info: McpToolInfo): JsonObject {
  const { $schema: _ignored, ...schema } = info.inputSchema as JsonObject;
  return { ...schema, type: 'object' };
}

/**
 * A zod schema that checks arguments against the server's JSON Schema (ajv, as the MCP SDK does), so a
 * malformed call is an error result the model can correct before anything reaches the server. A schema
 * ajv cannot compile is left to the server to check.
 */
function validatingInput(schema: JsonObject, validator: AjvJsonSchemaValidator): z.ZodObject {
  let check: ((value: unknown) => { valid: boolean; errorMessage?: string | undefined }) | undefined;
  try {
    check = validator.getValidator(schema as never);
  } catch {
    check = undefined;
  }
  return z
    .object({})
    .catchall(z.unknown())
    .superRefine((value, ctx) => {
      const r = check?.(value);
      if (r && !r.valid)
        ctx.addIssue({ code: 'custom', message: (r.errorMessage ?? 'does not match the schema').replace(/^data\b/, 'arguments') });
    });
}

/** The attempt's timeout: the one recorded for the call, else the tool's own. */
function attemptTimeoutMs(fallback: number): number {
  try {
    return Context.current().info.startToCloseTimeoutMs || fallback;
  } catch {
    return fallback;
  }
}

/** A failed call (no answer, or the server refused the request) as a tool failure: retried unless retrying cannot help. */
function callError(server: string, tool: string, err: unknown): ToolError {
  const message = err instanceof Error ? err.message : String(err);
  const final = isFinal(err);
  return new ToolError(`MCP server "${server}", tool "${tool}": ${message}`, { retryable: !final, cause: err });
}

/** The worker's MCP tools, per agent. */
export class McpCatalog {
  private validatorInstance: AjvJsonSchemaValidator | undefined;
  /** Tools built from one listing (a listing lasts as long as its connection). */
  private readonly built = new WeakMap<McpToolInfo[], Map<McpToolset, AnyTool[]>>();

  constructor(private readonly pool: McpClientPool) {}

  /** The ajv validator of the servers' input schemas, made on first use. */
  private validator(): AjvJsonSchemaValidator {
    this.validatorInstance ??= new (ajvProvider().AjvJsonSchemaValidator)();
    return this.validatorInstance;
  }

  /**
   * Every MCP tool of `agent`, listed from its servers now (connecting to them). Names collide neither
   * with the agent's own tools nor with each other.
   *
   * @throws {McpServerError} a server that cannot be started or reached (`retryable`), or a configuration
   * to fix: a tool option naming a tool the server does not list, a name collision, invalid settings.
   */
  async toolsFor(agent: Agent): Promise<AnyTool[]> {
    const sources = (agent.mcp ?? []) as readonly McpSource[];
    if (!sources.length) return [];
    const sets = await Promise.all(sources.map((s) => this.toolset(agent, toolsetOf(s))));
    const names = new Map<string, string>(agent.tools.map((t) => [t.name, 'a tool of the agent']));
    sources.forEach((source, i) => {
      const set = toolsetOf(source);
      for (const tool of sets[i] ?? []) {
        const taken = names.get(tool.name);
        if (taken) {
          throw new McpServerError(
            set.server.name,
            `its tool "${tool.name}" has the name of ${taken} "${agent.name}": rename that tool, or leave this one out with mcpTools(server, { exclude: [...] })`,
            { retryable: false },
          );
        }
        names.set(tool.name, `a tool of MCP server "${set.server.name}" in agent`);
      }
    });
    return sets.flat();
  }

  /**
   * The MCP tool called `name` (`server__tool`) of `agent`; undefined when no server of the agent has
   * that prefix.
   *
   * @throws {McpServerError} the server cannot be reached (`retryable`), or no longer lists the tool.
   */
  async tool(agent: Agent, name: string): Promise<AnyTool | undefined> {
    const source = ((agent.mcp ?? []) as readonly McpSource[]).map(toolsetOf).find((s) => hasServerPrefix(name, s.server.name));
    if (!source) return undefined;
    const tool = (await this.toolset(agent, source)).find((t) => t.name === name);
    if (!tool)
      throw new McpServerError(source.server.name, `it no longer lists a tool "${name}" (its tools changed since the run started)`, {
        retryable: false,
      });
    return tool;
  }

  /** The tools of one toolset, built once per listing. */
  private async toolset(agent: Agent, set: McpToolset): Promise<AnyTool[]> {
    const connection = this.pool.connection(set.server);
    const listing = await connection.listTools();
    let byToolset = this.built.get(listing);
    if (!byToolset) {
      byToolset = new Map();
      this.built.set(listing, byToolset);
    }
    let tools = byToolset.get(set);
    if (!tools) {
      tools = this.build(agent, set, listing, connection);
      byToolset.set(set, tools);
    }
    return tools;
  }

  private build(agent: Agent, set: McpToolset, listing: McpToolInfo[], connection: McpConnection): AnyTool[] {
    const server = set.server.name;
    const listed = new Set(listing.map((t) => t.name));
    const unknown = [...(set.include ?? []), ...(set.exclude ?? []), ...Object.keys(set.tools ?? {})].filter((n) => !listed.has(n));
    if (unknown.length) {
      throw new McpServerError(
        server,
        `mcpTools names ${unknown.map((n) => `"${n}"`).join(', ')}, which the server does not list (it lists: ${[...listed].join(', ') || 'no tools'}); use the server's own tool names`,
        { retryable: false },
      );
    }
    const chosen = listing.filter((t) => (set.include ? set.include.includes(t.name) : true) && !(set.exclude ?? []).includes(t.name));
    const seen = new Map<string, string>();
    return chosen.map((info, i) => {
      const name = mcpToolName(server, info.name);
      const other = seen.get(name);
      if (other !== undefined)
        throw new McpServerError(
          server,
          `its tools "${other}" and "${info.name}" both become "${name}": leave one out with mcpTools(server, { exclude: [...] })`,
          { retryable: false },
        );
      seen.set(name, info.name);
      const options: McpToolOptions = { ...set.defaults, ...set.tools?.[info.name] };
      const timeoutMs = options.timeout !== undefined ? msToNumber(options.timeout) : DEFAULTS.toolTimeoutMs;
      const inputSchema = inputSchemaOf(info);
      const config = {
        ...options,
        kind: 'tool' as const,
        name,
        description: info.description?.trim() || info.title?.trim() || `Tool "${info.name}" of MCP server "${server}"`,
        input: validatingInput(inputSchema, this.validator()),
        inputSchema,
        execute: async (args: Record<string, unknown>, ctx: ToolContext) => {
          let result;
          try {
            result = await connection.callTool(info.name, args, { signal: ctx.signal, timeoutMs: attemptTimeoutMs(timeoutMs) });
          } catch (err) {
            throw callError(server, info.name, err);
          }
          const text = resultText(result);
          // The tool ran and reported an error: the model reads it; running it again would not help.
          if (result.isError) throw new ToolError(text || `the tool reported an error without a message`, { retryable: false });
          return text;
        },
      };
      try {
        return checkAgentTool(config, agent.name, i);
      } catch (err) {
        if (err instanceof DefinitionError)
          throw new McpServerError(server, `settings of tool "${info.name}": ${err.message}`, { retryable: false, cause: err });
        throw err;
      }
    });
  }
}
