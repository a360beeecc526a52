/**
 * Building a Chat Completions request from a {@link ModelRequest}, for OpenAI and OpenAI-compatible
 * servers (Ollama, vLLM, llama.cpp).
 */
import type OpenAI from 'openai';
import type { Message, ToolUseBlock } from '../../core/messages/messages';
import { outputText } from '../../core/messages/messages';
import type { ModelRequest } from '../../core/output/native-output';

/** The streamed Chat Completions request the provider sends. */
export type OpenAIParams = OpenAI.Chat.ChatCompletionCreateParamsStreaming;

/** Which field carries the output token cap: OpenAI's current one, or the one local servers know. */
export type MaxTokensField = 'max_completion_tokens' | 'max_tokens';

/**
 * Our messages as Chat Completions messages. Tool results become `tool` messages, in call order, right
 * after the assistant message that made the calls; thinking is not sent back (the API has no field for
 * it). A failed tool's result is prefixed with `Error:` since the API has no error flag. A call's
 * arguments go back as the model sent them ({@link argumentsText}).
 */
export function toOpenAIMessages(system: string | undefined, messages: readonly Message[]): OpenAI.Chat.ChatCompletionMessageParam[] {
  const out: OpenAI.Chat.ChatCompletionMessageParam[] = system ? [{ role: 'system', content: system }] : [];
  for (const m of messages) {
    if (m.role === 'user') {
      const texts: string[] = [];
      for (const b of m.content) {
        if (b.type === 'text') {
          if (b.text) texts.push(b.text);
        } else {
          const text = outputText(b.output);
          out.push({ role: 'tool', tool_call_id: b.toolUseId, content: b.isError ? `Error: ${text}` : text });
        }
      }
      if (texts.length) out.push({ role: 'user', content: texts.join('\n\n') });
      continue;
    }
    const text = m.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('');
    const calls = m.content.flatMap((b): OpenAI.Chat.ChatCompletionMessageFunctionToolCall[] =>
      b.type === 'tool_use' ? [{ id: b.id, type: 'function', function: { name: b.name, arguments: argumentsText(b) } }] : [],
    );
    if (!text && calls.length === 0) continue;
    out.push({ role: 'assistant', content: text || null, ...(calls.length ? { tool_calls: calls } : {}) });
  }
  return out;
}

/**
 * A call's arguments as the model sent them: its raw text when that was not valid JSON, else the JSON of
 * the parsed value (whatever its type), so the model's own call is echoed back unaltered.
 */
export function argumentsText(call: ToolUseBlock): string {
  return call.inputError !== undefined && typeof call.input === 'string' ? call.input : JSON.stringify(call.input);
}

/**
 * Request fields an OpenAI-compatible server may need beyond what an agent's model settings say: small
 * local models (llama.cpp, Ollama) typically need temperature 0, one tool call per turn and a stop
 * sequence after a call. Set per provider, or per model id (see `OpenAIProviderOptions`).
 */
export interface OpenAIRequestOptions {
  /** Temperature when the agent's model sets none (an agent's own `temperature` wins). 0 to 2. */
  temperature?: number;
  /** `parallel_tool_calls`: false asks for at most one tool call per turn. Sent only with tools. */
  parallelToolCalls?: boolean;
  /** `stop`: sequences that end generation (left out of the answer). Non-empty strings. */
  stop?: string[];
  /** `stream_options.include_usage`: ask for the usage-only final chunk. Default true. */
  includeUsage?: boolean;
}

/** Options of {@link openAIParams}. */
export interface OpenAIParamsOptions extends OpenAIRequestOptions {
  maxTokensField: MaxTokensField;
}

/**
 * Check request options given in code; returns them unchanged.
 * @throws Error naming the bad field and what is allowed.
 */
export function validateRequestOptions(options: OpenAIRequestOptions, where: string): OpenAIRequestOptions {
  const { temperature, parallelToolCalls, stop, includeUsage } = options;
  if (temperature !== undefined && !(typeof temperature === 'number' && temperature >= 0 && temperature <= 2)) {
    throw new Error(`${where}.temperature must be a number from 0 to 2, got ${JSON.stringify(temperature)}`);
  }
  if (parallelToolCalls !== undefined && typeof parallelToolCalls !== 'boolean') {
    throw new Error(`${where}.parallelToolCalls must be true or false, got ${JSON.stringify(parallelToolCalls)}`);
  }
  if (includeUsage !== undefined && typeof includeUsage !== 'boolean') {
    throw new Error(`${where}.includeUsage must be true or false, got ${JSON.stringify(includeUsage)}`);
  }
  if (stop !== undefined && !(Array.isArray(stop) && stop.every((s) => typeof s === 'string' && s.length > 0))) {
    throw new Error(`${where}.stop must be an array of non-empty strings, e.g. ["</tool_call>"], got ${JSON.stringify(stop)}`);
  }
  return options;
}

/**
 * The streamed Chat Completions request for `request`. Asks for the usage-only final chunk unless
 * `includeUsage` is false; the agent's temperature wins over the options' default.
 */
export function openAIParams(request: ModelRequest, options: OpenAIParamsOptions): OpenAIParams {
  const temperature = request.temperature ?? options.temperature;
  const withTools = request.tools.length > 0;
  return {
    model: request.model,
    messages: toOpenAIMessages(request.system, request.messages),
    stream: true,
    ...(options.includeUsage === false ? {} : { stream_options: { include_usage: true } }),
    [options.maxTokensField]: request.maxTokens,
    ...(temperature !== undefined ? { temperature } : {}),
    ...(options.stop?.length ? { stop: [...options.stop] } : {}),
    ...(withTools && options.parallelToolCalls !== undefined ? { parallel_tool_calls: options.parallelToolCalls } : {}),
    ...(request.output ? { response_format: responseFormat(request.output) } : {}),
    ...(withTools
      ? {
          tools: request.tools.map((t): OpenAI.Chat.ChatCompletionFunctionTool => ({
            type: 'function',
            function: { name: t.name, description: t.description, parameters: t.inputSchema },
          })),
        }
      : {}),
  };
}

/**
 * Native structured output as Chat Completions' `response_format`. `strict` (OpenAI's guarantee that the
 * answer matches) only when the schema is one strict mode accepts: every object closed
 * (`additionalProperties: false`) with every property required.
 */
export function responseFormat(output: NonNullable<ModelRequest['output']>): OpenAI.ResponseFormatJSONSchema {
  return { type: 'json_schema', json_schema: { name: output.name, schema: output.schema, strict: strictCompatible(output.schema) } };
}

/** Whether OpenAI's strict mode accepts `schema`: every object schema in it closed, with all its properties required. */
export function strictCompatible(schema: unknown): boolean {
  if (Array.isArray(schema)) return schema.every(strictCompatible);
  if (schema === null || typeof schema !== 'object') return true;
  const s = schema as Record<string, unknown>;
  if (s.type === 'object' || s.properties !== undefined) {
    const props = s.properties && typeof s.properties === 'object' ? Object.keys(s.properties) : [];
    const required = Array.isArray(s.required) ? s.required : [];
    if (s.additionalProperties !== false || !props.every((p) => required.includes(p))) return false;
  }
  return Object.values(s).every(strictCompatible);
}
