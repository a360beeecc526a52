/**
 * `durable-agent/anthropic`: the Anthropic Messages API as a model provider. Needs the optional package
 * `@anthropic-ai/sdk` (`npm install @anthropic-ai/sdk`), loaded at the first model call. Agents with
 * `model: { provider: 'anthropic', … }` use the worker's built-in `anthropic` provider without importing it.
 *
 * @example
 * ```ts
 * import { createWorker } from 'durable-agent/worker';
 * import { AnthropicProvider } from 'durable-agent/anthropic';
 *
 * const worker = await createWorker({ agents: [assistant], providers: { claude: new AnthropicProvider({ promptCaching: true }) } });
 * ```
 */
export { AnthropicProvider } from '../integrations/providers/anthropic';
export type { AnthropicProviderOptions } from '../integrations/providers/anthropic';
