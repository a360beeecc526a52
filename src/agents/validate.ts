/**
 * The rules tools and agents must follow, checked wherever they enter the runtime — `defineTool`,
 * `defineAgent` and `new AgentRegistry` (which `createWorker` uses) — so a hand-made object is refused
 * with the same clear error as a bad `defineTool` call, before any run can trip over it.
 */
import type { Duration } from '@temporalio/common';
import { msToNumber } from '@temporalio/common';
import { z } from 'zod';
import { DefinitionError } from '../core/run/errors';
import type { JsonObject } from '../core/messages/json';
import type { AgentConfig, AnyAgent, AnyTool, Tool } from './types';
import type { ToolConfig, ToolInputSchema } from './tool-config';
import { NAME, describeValue, isZodSchema } from './describe-value';
import { checkOutputOptions } from './output';
import { MAX_TOOL_RESULT_INLINE_BYTES } from './limits';
import { budgetOptionsProblems } from './budget-options';
import { checkGuardrails } from './guardrails';
import { checkHooks } from './hooks';

export { NAME, describeValue } from './describe-value';

/** How to declare a tool, for error messages. */
export const DEFINE_TOOL_HINT = 'Declare tools with defineTool({ name, description, input: z.object({ ... }), execute }).';
const DEFINE_AGENT_HINT = 'Declare agents with defineAgent({ name, model, tools, ... }).';

type Fields = Record<string, unknown>;

function isPlainObject(value: unknown): value is Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `tool "x"`, `agent "a", tool "x"` or `agent "a", tools[2]`: where a problem is. */
function toolLabel(name: unknown, agent?: string, index?: number): string {
  const tool = typeof name === 'string' && name ? `tool "${name}"` : index !== undefined ? `tools[${index}]` : 'tool';
  return agent !== undefined ? `agent "${agent}", ${tool}` : tool;
}

function checkDuration(where: string, field: string, value: Duration | undefined, hint = 'e.g. "30s", "5m" or milliseconds'): void {
  if (value === undefined) return;
  let ms: number;
  try {
    ms = msToNumber(value);
  } catch {
    ms = Number.NaN;
  }
  if (!Number.isFinite(ms) || ms <= 0)
    throw new DefinitionError(
      `${where}: ${field} must be a positive duration (${hint}), got ${JSON.stringify(value) ?? describeValue(value)}`,
    );
}

function checkRetry(where: string, field: string, retry: unknown): void {
  if (retry === undefined) return;
  if (!isPlainObject(retry))
    throw new DefinitionError(`${where}: ${field} must be an object such as { maximumAttempts: 3 }, got ${describeValue(retry)}`);
  const { maximumAttempts, backoffCoefficient } = retry;
  if (maximumAttempts !== undefined && (!Number.isInteger(maximumAttempts) || (maximumAttempts as number) < 1)) {
    throw new DefinitionError(
      `${where}: ${field}.maximumAttempts must be a positive integer (attempts in all; 1 = no retry), got ${String(maximumAttempts)}`,
    );
  }
  if (backoffCoefficient !== undefined && (typeof backoffCoefficient !== 'number' || !(backoffCoefficient >= 1))) {
    throw new DefinitionError(`${where}: ${field}.backoffCoefficient must be a number of at least 1, got ${String(backoffCoefficient)}`);
  }
  checkDuration(where, `${field}.initialInterval`, retry.initialInterval as Duration | undefined);
  checkDuration(where, `${field}.maximumInterval`, retry.maximumInterval as Duration | undefined);
}

/** `escalate`: a positive `after` and a non-empty list of identities `to`. */
function checkEscalation(where: string, escalate: unknown): void {
  if (escalate === undefined) return;
  const e = escalate as { after?: unknown; to?: unknown };
  if (!e || typeof e !== 'object' || e.after === undefined)
    throw new DefinitionError(`${where}: escalate must be { after, to } (e.g. { after: '2h', to: ['ops:leads'] })`);
  checkDuration(where, 'escalate.after', e.after as Duration);
  if (!Array.isArray(e.to) || e.to.length === 0 || e.to.some((a) => typeof a !== 'string' || !a.trim()))
    throw new DefinitionError(`${where}: escalate.to must be a non-empty list of non-empty strings (e.g. ["ops:leads"])`);
}

/**
 * The approval rules: naming approvers implies approval is needed; `needsApproval: false` with any
 * approval setting is a contradiction; a timeout with nothing to approve would do nothing.
 */
function checkApproval(where: string, t: Fields): void {
  const { needsApproval, approvers, approvalTimeout, onApprovalTimeout } = t;
  if (needsApproval !== undefined && typeof needsApproval !== 'boolean' && typeof needsApproval !== 'function') {
    throw new DefinitionError(
      `${where}: needsApproval must be true, false or a predicate of the arguments, got ${describeValue(needsApproval)}`,
    );
  }
  if (approvers !== undefined) {
    if (!Array.isArray(approvers) || approvers.length === 0 || approvers.some((a) => typeof a !== 'string' || !a.trim())) {
      throw new DefinitionError(
        `${where}: approvers must be a non-empty list of non-empty strings (e.g. ["ops:alice"]); leave it out to let anyone decide`,
      );
    }
  }
  if (onApprovalTimeout !== undefined && onApprovalTimeout !== 'deny' && onApprovalTimeout !== 'fail') {
    throw new DefinitionError(
      `${where}: onApprovalTimeout must be "deny" or "fail", got ${JSON.stringify(onApprovalTimeout) ?? describeValue(onApprovalTimeout)}`,
    );
  }
  checkDuration(where, 'approvalTimeout', approvalTimeout as Duration | undefined);
  checkEscalation(where, t.escalate);
  const settings = (['approvers', 'approvalTimeout', 'onApprovalTimeout', 'escalate'] as const).filter((k) => t[k] !== undefined);
  if (needsApproval === false && settings.length) {
    throw new DefinitionError(
      `${where}: needsApproval is false but ${settings.join(', ')} ${settings.length > 1 ? 'are' : 'is'} set: ` +
        'remove needsApproval (approvers alone mean every call is approved by them) or remove the approval settings',
    );
  }
  if (needsApproval === undefined && approvers === undefined && settings.length) {
    throw new DefinitionError(
      `${where}: ${settings.join(' and ')} ${settings.length > 1 ? 'do' : 'does'} nothing without approval: ` +
        'set needsApproval (true or a predicate) or approvers, or remove it',
    );
  }
}

/**
 * Check a tool's declaration (every field). `agent` and `index` say where it was found, for messages.
 *
 * @throws {DefinitionError} naming the tool, the field and how to fix it.
 */
export function checkToolConfig(
  value: unknown,
  agent?: string,
  index?: number,
): asserts value is ToolConfig<string, ToolInputSchema, unknown> {
  if (!isPlainObject(value)) {
    throw new DefinitionError(`${toolLabel(undefined, agent, index)} is not a tool (got ${describeValue(value)}). ${DEFINE_TOOL_HINT}`);
  }
  if (value.kind === 'agent') {
    throw new DefinitionError(`${toolLabel(value.name, agent, index)} is an agent, not a tool. ${DEFINE_TOOL_HINT}`);
  }
  const { name } = value;
  if (typeof name !== 'string' || !NAME.test(name)) {
    throw new DefinitionError(
      `${agent !== undefined ? `agent "${agent}", ` : ''}tool name ${JSON.stringify(name) ?? describeValue(name)} must be 1-64 letters, digits, _ or -`,
    );
  }
  const where = toolLabel(name, agent, index);
  if (typeof value.description !== 'string' || !value.description.trim()) {
    throw new DefinitionError(`${where} needs a description (a non-empty string the model reads to decide when to call it)`);
  }
  if (!(value.input instanceof z.ZodObject)) {
    const got = describeValue(value.input);
    const otherCopy = isZodSchema(value.input) && value.input._zod.def.type === 'object';
    throw new DefinitionError(
      otherCopy
        ? `${where}: input is a zod object schema from another copy of zod; install a single zod 4 so durable-agent and your tools share it`
        : `${where}: input must be a z.object({ ... }) schema from zod, got ${got}. ${DEFINE_TOOL_HINT}`,
    );
  }
  if (typeof value.execute !== 'function') {
    throw new DefinitionError(
      `${where}: execute must be a function (args, ctx) => result, got ${describeValue(value.execute)}. ${DEFINE_TOOL_HINT}`,
    );
  }
  if (value.readOnly !== undefined && typeof value.readOnly !== 'boolean') {
    throw new DefinitionError(`${where}: readOnly must be true or false, got ${describeValue(value.readOnly)}`);
  }
  if (value.atMostOnce !== undefined && typeof value.atMostOnce !== 'boolean') {
    throw new DefinitionError(`${where}: atMostOnce must be true or false, got ${describeValue(value.atMostOnce)}`);
  }
  if (value.untrusted !== undefined && typeof value.untrusted !== 'boolean') {
    throw new DefinitionError(`${where}: untrusted must be true or false, got ${describeValue(value.untrusted)}`);
  }
  if (value.earlyStart !== undefined && typeof value.earlyStart !== 'boolean') {
    throw new DefinitionError(`${where}: earlyStart must be true or false, got ${describeValue(value.earlyStart)}`);
  }
  if (value.earlyStart === true && value.readOnly !== true) {
    throw new DefinitionError(
      `${where}: earlyStart needs readOnly: true (a call started early may run again when the model's attempt fails)`,
    );
  }
  if (value.atMostOnce === true && value.readOnly === true) {
    throw new DefinitionError(
      `${where}: a tool cannot be both readOnly and atMostOnce (a read-only call has no effect to protect); drop one`,
    );
  }
  if (value.onError !== undefined && value.onError !== 'report' && value.onError !== 'fail') {
    throw new DefinitionError(
      `${where}: onError must be "report" or "fail", got ${JSON.stringify(value.onError) ?? describeValue(value.onError)}`,
    );
  }
  checkDuration(where, 'timeout', value.timeout as Duration | undefined);
  checkDuration(where, 'heartbeatTimeout', value.heartbeatTimeout as Duration | undefined);
  checkRetry(where, 'retry', value.retry);
  checkApproval(where, value);
}

/**
 * The JSON Schema the model sees for a zod input schema (input shape: fields with defaults are optional).
 *
 * @throws {DefinitionError} when zod cannot express the schema as JSON Schema.
 */
export function inputSchemaOf(input: ToolInputSchema, where: string): JsonObject {
  try {
    const { $schema: _ignored, ...schema } = z.toJSONSchema(input, { io: 'input', unrepresentable: 'any' }) as JsonObject;
    return schema;
  } catch (err) {
    throw new DefinitionError(
      `${where}: its input schema cannot be expressed as JSON Schema: ${err instanceof Error ? err.message : String(err)}`,
      { cause: err },
    );
  }
}

/**
 * Check one tool of an agent, made by `defineTool` or by hand. A complete tool is returned as it is; one
 * made by hand without its JSON Schema (or `kind`) is returned completed, as `defineTool` would make it.
 *
 * @throws {DefinitionError} naming the agent, the tool and the field, and how to fix it.
 */
export function checkAgentTool(value: unknown, agent: string, index: number): AnyTool {
  checkToolConfig(value, agent, index);
  const tool = value as ToolConfig<string, ToolInputSchema, unknown> & { kind?: unknown; inputSchema?: unknown };
  const where = toolLabel(tool.name, agent, index);
  if (tool.inputSchema !== undefined) {
    const schema = tool.inputSchema;
    if (!isPlainObject(schema) || schema.type !== 'object') {
      throw new DefinitionError(
        `${where}: inputSchema must be the JSON Schema of an object (type "object"), got ${describeValue(schema)}. ${DEFINE_TOOL_HINT}`,
      );
    }
    if (tool.kind === 'tool') return tool as AnyTool;
  }
  const inputSchema = (tool.inputSchema as JsonObject | undefined) ?? inputSchemaOf(tool.input, where);
  return Object.freeze({ ...tool, kind: 'tool' as const, inputSchema }) as Tool;
}

function checkLimit(agent: string, field: string, value: unknown, max?: number): void {
  if (value === undefined) return;
  if (!Number.isInteger(value) || (value as number) < 1)
    throw new DefinitionError(`agent "${agent}": ${field} must be a positive integer, got ${String(value)}`);
  if (max !== undefined && (value as number) > max) {
    throw new DefinitionError(
      `agent "${agent}": ${field} must be at most ${max} (${max / 1024} KiB) so results stay well under Temporal's payload limit, got ${String(value)}; ` +
        'larger tool outputs are stored in the blob store and referenced, whatever this limit',
    );
  }
}

/**
 * Check an agent's declaration and its tools; returns the tools, completed where made by hand.
 *
 * @throws {DefinitionError} naming the agent (and tool) and the field, and how to fix it.
 */
export function checkAgentConfig(config: AgentConfig<string, readonly AnyTool[]>): AnyTool[] {
  if (!isPlainObject(config)) throw new DefinitionError(`an agent must be an object, got ${describeValue(config)}. ${DEFINE_AGENT_HINT}`);
  const { name } = config;
  if (typeof name !== 'string' || !NAME.test(name)) {
    throw new DefinitionError(`agent name ${JSON.stringify(name) ?? describeValue(name)} must be 1-64 letters, digits, _ or -`);
  }
  for (const m of [config.model, ...(Array.isArray(config.fallbackModels) ? config.fallbackModels : [])]) {
    if (!m?.provider || !m?.model)
      throw new DefinitionError(
        `agent "${name}": every model needs a provider and a model, e.g. { provider: 'anthropic', model: 'claude-sonnet-4-5' }`,
      );
  }
  if (config.tools !== undefined && !Array.isArray(config.tools)) {
    throw new DefinitionError(`agent "${name}": tools must be an array of tools, got ${describeValue(config.tools)}. ${DEFINE_TOOL_HINT}`);
  }
  const tools = (config.tools ?? []).map((t: unknown, i: number) => checkAgentTool(t, name, i));
  const seen = new Set<string>();
  for (const t of tools) {
    if (seen.has(t.name))
      throw new DefinitionError(`agent "${name}" has two tools named "${t.name}": tool names must be unique within an agent`);
    seen.add(t.name);
  }
  checkLimit(name, 'maxSteps', config.maxSteps);
  checkLimit(name, 'toolResultInlineBytes', config.toolResultInlineBytes, MAX_TOOL_RESULT_INLINE_BYTES);
  checkLimit(name, 'resultMessagesInlineBytes', config.resultMessagesInlineBytes);
  if (config.maxTokensRecoveries !== undefined && config.maxTokensRecoveries !== 0)
    checkLimit(name, 'maxTokensRecoveries', config.maxTokensRecoveries);
  checkLimit(name, 'continueAsNewAfterEvents', config.continueAsNewAfterEvents);
  checkLimit(name, 'recoveryMaxTokens', config.recoveryMaxTokens);
  if (config.recoveryMaxTokens !== undefined && !config.maxTokensRecoveries) {
    throw new DefinitionError(
      `agent "${name}": recoveryMaxTokens raises the output limit after a cut-off answer is continued; set maxTokensRecoveries too (how many times to continue)`,
    );
  }
  if (config.earlyToolStarts !== undefined && typeof config.earlyToolStarts !== 'boolean') {
    throw new DefinitionError(`agent "${name}": earlyToolStarts must be true or false, got ${describeValue(config.earlyToolStarts)}`);
  }
  if (config.onBudgetExhausted !== undefined && config.onBudgetExhausted !== 'end' && config.onBudgetExhausted !== 'ask') {
    throw new DefinitionError(`agent "${name}": onBudgetExhausted must be "end" or "ask", got ${JSON.stringify(config.onBudgetExhausted)}`);
  }
  if (config.continueAsNewAfterEvents !== undefined && config.continueAsNewAfterEvents < 50) {
    throw new DefinitionError(
      `agent "${name}": continueAsNewAfterEvents must be at least 50 (a step takes about 12 events), got ${config.continueAsNewAfterEvents}`,
    );
  }
  checkRetry(`agent "${name}"`, 'modelRetry', config.modelRetry);
  checkDuration(`agent "${name}"`, 'modelTimeout', config.modelTimeout);
  checkDuration(`agent "${name}"`, 'modelHeartbeatTimeout', config.modelHeartbeatTimeout);
  const budget = budgetOptionsProblems(config.budget, `agent "${name}": budget`);
  if (budget.length) throw new DefinitionError(budget.join('; '));
  const context = contextOptionsProblems(config.context, `agent "${name}": context`);
  if (context.length) throw new DefinitionError(context.join('; '));
  checkGuardrails(name, config.guardrails);
  checkHooks(name, config.hooks);
  checkOutputOptions(config);
  return tools;
}

const CONTEXT_KEYS = ['windowTokens', 'compactAt', 'keepRecentTokens', 'keepToolResults', 'summarize', 'summaryModel', 'summaryPrompt'];

/** What is wrong with an agent's context options, one message per problem starting with `where`; empty when fine. */
export function contextOptionsProblems(value: unknown, where: string): string[] {
  if (value === undefined) return [];
  if (!isPlainObject(value))
    return [`${where} must be an object such as { windowTokens: 128000, compactAt: 0.8 }, got ${describeValue(value)}`];
  const problems: string[] = [];
  for (const key of Object.keys(value)) {
    if (!CONTEXT_KEYS.includes(key)) problems.push(`${where} has an unknown option "${key}" (known: ${CONTEXT_KEYS.join(', ')})`);
  }
  const positiveInt = (key: string, min = 1) => {
    const v = value[key];
    if (v !== undefined && !(Number.isInteger(v) && (v as number) >= min))
      problems.push(`${where}.${key} must be an integer of at least ${min}, got ${JSON.stringify(v) ?? describeValue(v)}`);
  };
  positiveInt('windowTokens', 256);
  positiveInt('keepRecentTokens');
  positiveInt('keepToolResults', 0);
  const at = value.compactAt;
  if (at !== undefined && !(typeof at === 'number' && at > 0 && at <= 1))
    problems.push(
      `${where}.compactAt must be a fraction of the window in (0, 1], e.g. 0.8, got ${JSON.stringify(at) ?? describeValue(at)}`,
    );
  if (value.summarize !== undefined && typeof value.summarize !== 'boolean')
    problems.push(`${where}.summarize must be true or false, got ${describeValue(value.summarize)}`);
  const model = value.summaryModel as { provider?: unknown; model?: unknown } | undefined;
  if (
    model !== undefined &&
    !(isPlainObject(model) && typeof model.provider === 'string' && model.provider && typeof model.model === 'string' && model.model)
  ) {
    problems.push(`${where}.summaryModel needs a provider and a model, e.g. { provider: 'anthropic', model: 'claude-haiku-4-5' }`);
  }
  if (value.summaryPrompt !== undefined && !(typeof value.summaryPrompt === 'string' && value.summaryPrompt.trim()))
    problems.push(`${where}.summaryPrompt must be a non-empty string`);
  const window = value.windowTokens;
  const keep = value.keepRecentTokens;
  if (
    problems.length === 0 &&
    typeof window === 'number' &&
    typeof keep === 'number' &&
    keep >= window * ((at as number | undefined) ?? 0.8)
  ) {
    problems.push(
      `${where}.keepRecentTokens (${keep}) must be less than compactAt × windowTokens (${Math.floor(window * ((at as number | undefined) ?? 0.8))}): compaction must leave room to summarise`,
    );
  }
  return problems;
}

/**
 * Check the `index`th agent given to a worker: an agent made by `defineAgent` (or an object of the same
 * shape). Returns the agent, with hand-made tools completed (a new object only if one was).
 *
 * @throws {DefinitionError} naming the agent and what is wrong, and how to fix it.
 */
export function checkWorkerAgent(value: unknown, index: number): AnyAgent {
  if (!isPlainObject(value) || value.kind !== 'agent') {
    throw new DefinitionError(`agents[${index}] is not an agent (got ${describeValue(value)}). ${DEFINE_AGENT_HINT}`);
  }
  const agent = value as unknown as AnyAgent;
  const tools = checkAgentConfig(agent);
  const given: readonly unknown[] = agent.tools ?? [];
  const same = Array.isArray(agent.tools) && tools.length === given.length && tools.every((t, i) => t === given[i]);
  return same ? agent : Object.freeze({ ...agent, tools });
}
