/**
 * Building the call options of an AI SDK language model (`LanguageModelV4CallOptions` of
 * `@ai-sdk/provider@4`) from a {@link ModelRequest}: the system prompt, the conversation as a prompt,
 * the tools as function tools, the token cap and temperature.
 *
 * The prompt uses only the parts whose shape is the same in the v2, v3 and v4 specifications (system
 * text, user text, assistant text, reasoning and tool calls, tool results as `text`/`error-text`; no
 * files, whose data V4 tags differently), so one prompt serves models of every specification. The call
 * options of V2 and V3 are V4's without `reasoning` (see `ai-sdk.ts`, which drops it for them).
 */
import type {
  JSONSchema7,
  LanguageModelV4CallOptions,
  LanguageModelV4FunctionTool,
  LanguageModelV4Message,
  LanguageModelV4Prompt,
  LanguageModelV4ToolResultPart,
} from '@ai-sdk/provider' with { 'resolution-mode': 'import' };
import type { AssistantContent, Message, UserContent } from '../../core/messages/messages';
import { outputText } from '../../core/messages/messages';
import type { ModelRequest, SystemPart } from '../../core/output/native-output';

/**
 * Call settings an AI SDK user may pass with every call of a model (the call options the runtime does not
 * own): provider options (e.g. `{ anthropic: { thinking: … } }`), headers, stop sequences, sampling, and
 * V4's `reasoning` effort (`'low'`, `'high'`…: sent to models of the v4 specification only, the earlier
 * ones have no such option). The runtime owns the prompt, the tools, the token cap and the abort signal;
 * an agent's own `temperature` wins over the one given here.
 */
export type AiSdkCallSettings = Pick<
  LanguageModelV4CallOptions,
  | 'temperature'
  | 'topP'
  | 'topK'
  | 'stopSequences'
  | 'presencePenalty'
  | 'frequencyPenalty'
  | 'seed'
  | 'headers'
  | 'providerOptions'
  | 'reasoning'
>;

/**
 * Our conversation as a prompt (valid in the v2, v3 and v4 specifications alike). A user message becomes a `tool` message with its tool results (in
 * call order, right after the assistant message that made the calls) and a `user` message with its text.
 * A failed tool's result is sent as `error-text`. Thinking becomes a reasoning part (an Anthropic
 * signature or redacted thinking goes back through `providerOptions.anthropic`, as `@ai-sdk/anthropic`
 * expects). A call whose arguments were not valid JSON is echoed with its raw text as `input`. A layered
 * system prompt (`systemParts`) becomes one system message per part, the stable one marked for Anthropic's cache.
 */
export function toAiSdkPrompt(
  system: string | undefined,
  messages: readonly Message[],
  systemParts?: readonly SystemPart[],
): LanguageModelV4Prompt {
  const prompt: LanguageModelV4Prompt = systemParts?.length
    ? systemParts.map((p) => ({
        role: 'system' as const,
        content: p.text,
        // The stable prefix of a layered prompt ends here (providers without cache markers ignore it).
        ...(p.cacheBreakpoint ? { providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } } } : {}),
      }))
    : system
      ? [{ role: 'system', content: system }]
      : [];
  // Tool results name their tool (in every specification): the name comes from the call they answer.
  const toolNames = new Map<string, string>();
  for (const m of messages) {
    if (m.role === 'assistant') {
      for (const b of m.content) if (b.type === 'tool_use') toolNames.set(b.id, b.name);
      const content = m.content.flatMap(assistantPart);
      if (content.length) prompt.push({ role: 'assistant', content });
      continue;
    }
    prompt.push(...userMessages(m.content, toolNames));
  }
  return prompt;
}

function userMessages(content: readonly UserContent[], toolNames: ReadonlyMap<string, string>): LanguageModelV4Message[] {
  const results: LanguageModelV4ToolResultPart[] = [];
  const texts: Array<{ type: 'text'; text: string }> = [];
  for (const b of content) {
    if (b.type === 'text') {
      if (b.text) texts.push({ type: 'text', text: b.text });
      continue;
    }
    const value = outputText(b.output);
    results.push({
      type: 'tool-result',
      toolCallId: b.toolUseId,
      toolName: toolNames.get(b.toolUseId) ?? '',
      output: b.isError ? { type: 'error-text', value } : { type: 'text', value },
    });
  }
  const out: LanguageModelV4Message[] = [];
  if (results.length) out.push({ role: 'tool', content: results });
  if (texts.length) out.push({ role: 'user', content: texts });
  return out;
}

type AssistantPart = Extract<LanguageModelV4Message, { role: 'assistant' }>['content'][number];

function assistantPart(b: AssistantContent): AssistantPart[] {
  switch (b.type) {
    case 'text':
      return b.text ? [{ type: 'text', text: b.text }] : [];
    case 'thinking':
      if (!b.thinking && !b.signature) return [];
      return [
        { type: 'reasoning', text: b.thinking, ...(b.signature ? { providerOptions: { anthropic: { signature: b.signature } } } : {}) },
      ];
    case 'redacted_thinking':
      return [{ type: 'reasoning', text: '', providerOptions: { anthropic: { redactedData: b.data } } }];
    case 'tool_use':
      // As the model sent it: the parsed value, or the raw text when it was not valid JSON.
      return [{ type: 'tool-call', toolCallId: b.id, toolName: b.name, input: b.input }];
  }
}

/** Our tools as function tools. */
export function toAiSdkTools(tools: ModelRequest['tools']): LanguageModelV4FunctionTool[] {
  return tools.map((t) => ({ type: 'function', name: t.name, description: t.description, inputSchema: t.inputSchema as JSONSchema7 }));
}

/**
 * The call options for `request`: the settings given with the provider, then the prompt, tools (`auto`
 * choice), `maxOutputTokens` and the agent's temperature, and the abort signal.
 */
export function aiSdkCallOptions(request: ModelRequest, signal: AbortSignal, settings: AiSdkCallSettings = {}): LanguageModelV4CallOptions {
  const temperature = request.temperature ?? settings.temperature;
  return {
    ...settings,
    prompt: toAiSdkPrompt(request.system, request.messages, request.systemParts),
    maxOutputTokens: request.maxTokens,
    ...(temperature !== undefined ? { temperature } : {}),
    ...(request.tools.length ? { tools: toAiSdkTools(request.tools), toolChoice: { type: 'auto' } } : {}),
    abortSignal: signal,
  };
}
