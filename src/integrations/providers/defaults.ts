import { AnthropicProvider } from './anthropic';
import { OpenAIProvider } from './openai';
import type { ModelProvider } from './types';

/**
 * Providers every worker has unless replaced: `anthropic` and `openai`, configured from the worker's
 * environment (`ANTHROPIC_API_KEY`, `ANTHROPIC_BASE_URL`, `OPENAI_API_KEY`, `OPENAI_BASE_URL`) when
 * first called, so a worker starts without keys and only the calls that need a missing key fail. Their
 * SDKs (optional packages) load at the first call.
 */
export function defaultProviders(): Record<string, ModelProvider> {
  return { anthropic: new AnthropicProvider(), openai: new OpenAIProvider() };
}
