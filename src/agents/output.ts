/**
 * The output contract of an agent (`defineAgent({ output })`): checking the options, the JSON Schema the
 * model is given, and the data form recorded in the agent's spec.
 */
import { z } from 'zod';
import { DefinitionError } from '../core/run/errors';
import type { JsonObject } from '../core/messages/json';
import { DEFAULT_OUTPUT_RETRIES, FINAL_ANSWER_TOOL } from '../core/output/output';
import type { OutputSpec } from '../core/run/spec';
import type { AgentConfig } from './types';

const MODES = ['native', 'tool'];

/**
 * Check an agent's output options: `output` a `z.object(...)`, `outputRetries` a whole number from 0,
 * `outputMode` `native` or `tool`, no tool named `final_answer`, and no output option without `output`.
 *
 * @throws {DefinitionError} naming the agent and the option, and how to fix it.
 */
export function checkOutputOptions(config: AgentConfig): void {
  const where = `agent "${config.name}"`;
  if (config.output === undefined) {
    for (const key of ['outputRetries', 'outputMode'] as const) {
      if (config[key] !== undefined)
        throw new DefinitionError(`${where}: ${key} applies to a structured output; set output to a z.object(...) schema too`);
    }
    return;
  }
  if (!isZodObject(config.output)) {
    throw new DefinitionError(
      `${where}: output must be a zod object schema, e.g. output: z.object({ answer: z.string() }) (the final answer is a JSON object)`,
    );
  }
  const retries = config.outputRetries;
  if (retries !== undefined && !(Number.isInteger(retries) && retries >= 0)) {
    throw new DefinitionError(
      `${where}: outputRetries must be a whole number of at least 0 (how many times an invalid answer is fed back), got ${JSON.stringify(retries)}`,
    );
  }
  if (config.outputMode !== undefined && !MODES.includes(config.outputMode)) {
    throw new DefinitionError(`${where}: outputMode must be "native" or "tool", got ${JSON.stringify(config.outputMode)}`);
  }
  if ((config.tools ?? []).some((t) => t?.name === FINAL_ANSWER_TOOL)) {
    throw new DefinitionError(
      `${where}: a tool is named "${FINAL_ANSWER_TOOL}", the name of the tool an agent with output answers through; rename it`,
    );
  }
}

/**
 * The JSON Schema of an agent's output (what the model must write: zod's input side).
 *
 * @throws {DefinitionError} when the schema cannot be expressed as JSON Schema (e.g. a transform).
 */
export function outputSchemaOf(config: AgentConfig): JsonObject {
  try {
    const { $schema: _ignored, ...schema } = z.toJSONSchema(config.output as z.ZodObject, {
      io: 'input',
      unrepresentable: 'any',
    }) as JsonObject;
    return schema;
  } catch (err) {
    throw new DefinitionError(
      `agent "${config.name}": its output schema cannot be expressed as JSON Schema: ${err instanceof Error ? err.message : String(err)}`,
      { cause: err },
    );
  }
}

/**
 * The agent's output contract in data form (absent without `output`): its JSON Schema, the mode (the
 * agent's `outputMode`, else `native` when every model's provider supports it, else `tool`) and how
 * many times an invalid answer is fed back.
 */
export function outputSpec(
  agent: AgentConfig & { outputSchema?: JsonObject },
  supportsNative: (provider: string) => boolean,
): OutputSpec | undefined {
  if (agent.output === undefined) return undefined;
  const models = [agent.model, ...(agent.fallbackModels ?? [])];
  const mode = agent.outputMode ?? (models.every((m) => supportsNative(m.provider)) ? 'native' : 'tool');
  return { schema: agent.outputSchema ?? outputSchemaOf(agent), mode, maxRetries: agent.outputRetries ?? DEFAULT_OUTPUT_RETRIES };
}

/** A zod object schema, from this copy of zod or another (checked by its definition, not `instanceof`). */
function isZodObject(value: unknown): value is z.ZodObject {
  const def = (value as { _zod?: { def?: { type?: unknown } } } | null)?._zod?.def;
  return typeof (value as { safeParse?: unknown })?.safeParse === 'function' && def?.type === 'object';
}
