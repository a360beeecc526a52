import { AnthropicProvider } from './anthropic';
import { OpenAIProvider } from './openai';
import type { ModelProvider } from './types';

export { ScriptedProvider } from './scripted';
export type { Script, ScriptedTurn, ScriptedToolCall, ScriptedFailure } from './scripted';
export { AnthropicProvider, classifyAnthropicError } from './anthropic';
export type { AnthropicProviderOptions } from './anthropic';
export { OpenAIProvider, classifyOpenAIError, PLACEHOLDER_API_KEY } from './openai';
export type { OpenAIProviderOptions, MaxTokensField } from './openai';
export { DEFAULT_PRICES, costUsd, priceFor } from './pricing';
export type { ModelPrice, PriceTable } from './pricing';
export type { ModelProvider, ModelCallContext, ProviderErrorKind, ProviderErrorOptions } from './types';
export { ProviderError } from './types';

/**
 * Providers every worker has unless replaced: `anthropic` and `openai`, configured from the worker's
 * environment (`ANTHROPIC_API_KEY`, `ANTHROPIC_BASE_URL`, `OPENAI_API_KEY`, `OPENAI_BASE_URL`) when
 * first called, so a worker starts without keys and only the calls that need a missing key fail.
 */
export function defaultProviders(): Record<string, ModelProvider> {
  return { anthropic: new AnthropicProvider(), openai: new OpenAIProvider() };
}
