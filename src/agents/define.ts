/**
 * Defining tools and agents. These objects live in the worker: tool code never enters the workflow,
 * which only receives the data form ({@link AgentSpec}) through the `describeAgent` activity.
 */
import { msToNumber } from '@temporalio/common';
import { DurableAgentError } from '../core/run/errors';
import type { RetrySpec } from '../core/run/spec';
import { DEFAULTS } from '../core/run/spec';
import { checkAgentConfig, checkToolConfig, inputSchemaOf } from './validate';
import { outputSchemaOf } from './output';
import { checkAgentMcp } from '../integrations/mcp/server';
import type { RetryOptions, ToolConfig, ToolInputSchema } from './tool-config';
import type { Agent, AgentConfig, AnyTool, OutputSchema, Tool } from './types';
import { checkApprovalRules } from './approval-rules';
import { checkLayers } from './layers';

export type { BudgetOptions } from './budget-options';
export type { LayerDeclaration, LayerFunction, LayerState } from './layers';
export type { RetryOptions, ToolConfig, ToolContext, ToolInputSchema } from './tool-config';
export type {
  Agent,
  AgentConfig,
  AnyAgent,
  AnyTool,
  ContextOptions,
  OutputOf,
  OutputSchema,
  Tool,
  ToolCallOf,
  ToolCallsOf,
  ToolNamesOf,
} from './types';

/**
 * Thrown by a tool to fail its call; `retryable: false` skips the remaining attempts.
 *
 * @example
 * ```ts
 * throw new ToolError(`unknown time zone "${tz}"`, { retryable: false });
 * ```
 */
export class ToolError extends DurableAgentError {
  /** Whether the call's remaining attempts may run (default true). */
  readonly retryable: boolean;
  constructor(message: string, options: { retryable?: boolean; cause?: unknown } = {}) {
    super('tool_error', message, options.cause !== undefined ? { cause: options.cause } : undefined);
    this.retryable = options.retryable ?? true;
  }
}

/**
 * Declare a tool. Its zod schema becomes the JSON Schema the model sees and validates every call.
 *
 * Approval: `needsApproval` (true or a predicate) asks a person before calls; naming `approvers` alone
 * means every call is approved by one of them, and no run policy can waive it.
 *
 * @throws {DefinitionError} for an invalid name, a missing description, an input that is not a
 * `z.object(...)`, a missing `execute`, a malformed option, or contradictory approval settings
 * (`needsApproval: false` with approvers or an approval timeout; a timeout with nothing to approve).
 */
export function defineTool<const N extends string, I extends ToolInputSchema, O>(config: ToolConfig<N, I, O>): Tool<N, I, O> {
  checkToolConfig(config);
  const inputSchema = inputSchemaOf(config.input, `tool "${config.name}"`);
  return Object.freeze({ ...config, kind: 'tool' as const, inputSchema });
}

/**
 * Declare an agent. Its tools are checked too (a tool made by hand, not by `defineTool`, must have the
 * same shape: a valid name, a description, a `z.object(...)` input and an `execute` function).
 *
 * @throws {DefinitionError} naming the agent (and tool) and the field that is wrong, and how to fix it.
 */
export function defineAgent<
  const N extends string,
  const T extends readonly AnyTool[] = readonly [],
  S extends OutputSchema | undefined = undefined,
>(config: AgentConfig<N, T, S>): Agent<N, T, S> {
  const tools = checkAgentConfig(config as AgentConfig<string, readonly AnyTool[]>) as unknown as T;
  checkAgentMcp(config.name, config.mcp);
  checkLayers(config.name, config.layers);
  checkApprovalRules(config.name, config.approvalRules);
  const outputSchema = config.output !== undefined ? outputSchemaOf(config as AgentConfig) : undefined;
  return Object.freeze({ ...config, kind: 'agent' as const, tools, ...(outputSchema ? { outputSchema } : {}) });
}

/** Resolve retry options against defaults. */
export function retrySpec(options: RetryOptions | undefined, defaults: RetrySpec): RetrySpec {
  return {
    maximumAttempts: options?.maximumAttempts ?? defaults.maximumAttempts,
    initialIntervalMs: options?.initialInterval !== undefined ? msToNumber(options.initialInterval) : defaults.initialIntervalMs,
    backoffCoefficient: options?.backoffCoefficient ?? defaults.backoffCoefficient,
    maximumIntervalMs: options?.maximumInterval !== undefined ? msToNumber(options.maximumInterval) : defaults.maximumIntervalMs,
  };
}

export { DEFAULTS };
export { MAX_TOOL_RESULT_INLINE_BYTES } from './limits';
