import { AnthropicProvider } from './anthropic';
import type { ModelProvider } from './types';

export { ScriptedProvider } from './scripted';
export type { Script, ScriptedTurn, ScriptedToolCall, ScriptedFailure } from './scripted';
export { AnthropicProvider } from './anthropic';
export type { ModelProvider, ModelCallContext, ProviderErrorKind, ProviderErrorOptions } from './types';
export { ProviderError } from './types';

/** Providers every worker has unless replaced: `anthropic` (key read from the worker's environment). */
export function defaultProviders(): Record<string, ModelProvider> {
  return { anthropic: new AnthropicProvider() };
}
