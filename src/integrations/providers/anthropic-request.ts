/**
 * Building a Messages API request from a {@link ModelRequest}: our messages in the API's shape, and
 * prompt-cache breakpoints on the stable prefix (tools, system) and on the conversation tail.
 */
import type Anthropic from '@anthropic-ai/sdk';
import { isJsonObject } from '../../core/tool-calls/call-input';
import type { Message } from '../../core/messages/messages';
import { outputText } from '../../core/messages/messages';
import type { ModelRequest } from '../../core/output/native-output';
import { ProviderError } from './types';

/** The streamed Messages API request the provider sends. */
export type AnthropicParams = Anthropic.MessageCreateParamsStreaming;

const EPHEMERAL: Anthropic.CacheControlEphemeral = { type: 'ephemeral' };

/**
 * Our messages in the Messages API's shape. Tool results are sent as text blocks in call order; empty
 * text blocks and unsigned thinking (reasoning text from another provider, which Anthropic cannot
 * verify) are left out, and so is an assistant message left with nothing.
 */
export function toAnthropicMessages(messages: readonly Message[]): Anthropic.MessageParam[] {
  const out: Anthropic.MessageParam[] = [];
  for (const m of messages) {
    if (m.role === 'user') {
      const content = m.content.flatMap((b): Anthropic.ContentBlockParam[] => {
        if (b.type === 'text') return b.text ? [{ type: 'text', text: b.text }] : [];
        const text = outputText(b.output);
        return [
          {
            type: 'tool_result',
            tool_use_id: b.toolUseId,
            ...(text ? { content: [{ type: 'text' as const, text }] } : {}),
            ...(b.isError ? { is_error: true } : {}),
          },
        ];
      });
      if (content.length) out.push({ role: 'user', content });
      continue;
    }
    const content = m.content.flatMap((b): Anthropic.ContentBlockParam[] => {
      switch (b.type) {
        case 'text':
          return b.text ? [{ type: 'text', text: b.text }] : [];
        case 'thinking':
          return b.signature ? [{ type: 'thinking', thinking: b.thinking, signature: b.signature }] : [];
        case 'redacted_thinking':
          return [{ type: 'redacted_thinking', data: b.data }];
        case 'tool_use':
          // The API takes only an object. A call whose input was not one (never run, answered with an
          // error quoting what the model sent) goes back with `{}`; the transcript keeps it unaltered.
          return [{ type: 'tool_use', id: b.id, name: b.name, input: isJsonObject(b.input) ? b.input : {} }];
      }
    });
    if (content.length) out.push({ role: 'assistant', content });
  }
  return out;
}

/**
 * Mark the conversation tail for caching: the last block of the last user message (written to the
 * cache by this call) and of the user message before it (the previous call's tail, read back from the
 * cache). With the system and tools breakpoints that makes four, the API's maximum.
 */
export function markCacheTail(messages: Anthropic.MessageParam[]): Anthropic.MessageParam[] {
  let marked = 0;
  const out = [...messages];
  for (let i = out.length - 1; i >= 0 && marked < 2; i--) {
    const m = out[i] as Anthropic.MessageParam;
    if (m.role !== 'user' || typeof m.content === 'string' || m.content.length === 0) continue;
    const blocks = [...m.content];
    const last = blocks[blocks.length - 1] as Anthropic.ContentBlockParam;
    if (last.type !== 'text' && last.type !== 'tool_result') continue;
    blocks[blocks.length - 1] = { ...last, cache_control: EPHEMERAL };
    out[i] = { ...m, content: blocks };
    marked++;
  }
  return out;
}

/**
 * The request's system blocks: one block with the system text, or with prompt layers one block per part,
 * the breakpoint on the stable part (base text and stable layers) and the dynamic layers after it, so a
 * changed dynamic layer keeps the tools and stable system prefix cached. (The cache prefix runs tools,
 * system, then messages: a changed dynamic layer still invalidates the cached conversation after it.)
 */
export function systemField(request: ModelRequest, cache: boolean): { system?: Anthropic.TextBlockParam[] } {
  const parts = request.systemParts ?? (request.system ? [{ text: request.system, cacheBreakpoint: true as const }] : []);
  if (parts.length === 0) return {};
  return {
    system: parts.map((p) => ({ type: 'text', text: p.text, ...(cache && p.cacheBreakpoint ? { cache_control: EPHEMERAL } : {}) })),
  };
}

/** Options of {@link anthropicParams}. */
export interface AnthropicParamsOptions {
  /** Put cache breakpoints on tools, system and the conversation tail. */
  promptCaching: boolean;
}

/** The streamed Messages API request for `request`. */
export function anthropicParams(request: ModelRequest, options: AnthropicParamsOptions): AnthropicParams {
  const cache = options.promptCaching;
  const messages = toAnthropicMessages(request.messages);
  const thinking = request.thinking;
  if (thinking && !(thinking.budgetTokens < request.maxTokens)) {
    throw new ProviderError(
      `Anthropic thinking budget (${thinking.budgetTokens} tokens) must be less than maxTokens (${request.maxTokens}): raise the model's maxTokens or lower thinking.budgetTokens`,
      { kind: 'invalid_request', retryable: false, type: 'invalid_request_error' },
    );
  }
  const tools = request.tools.map((t, i): Anthropic.Tool => ({
    name: t.name,
    description: t.description,
    input_schema: t.inputSchema as Anthropic.Tool.InputSchema,
    ...(cache && i === request.tools.length - 1 ? { cache_control: EPHEMERAL } : {}),
  }));
  return {
    model: request.model,
    max_tokens: request.maxTokens,
    messages: cache ? markCacheTail(messages) : messages,
    stream: true,
    ...systemField(request, cache),
    ...(thinking ? { thinking: { type: 'enabled', budget_tokens: thinking.budgetTokens } } : {}),
    // The API accepts no temperature but the default while thinking.
    ...(request.temperature !== undefined && !thinking ? { temperature: request.temperature } : {}),
    ...(tools.length ? { tools } : {}),
  };
}
