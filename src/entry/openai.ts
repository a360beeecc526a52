/**
 * `durable-agent/openai`: OpenAI-compatible Chat Completions as a model provider (OpenAI, and Ollama, vLLM,
 * llama.cpp through a base URL). Needs the optional package `openai` (`npm install openai`), loaded at the
 * first model call. Agents with `model: { provider: 'openai', … }` use the worker's built-in `openai` provider
 * without importing it.
 *
 * @example
 * ```ts
 * import { createWorker } from 'durable-agent/worker';
 * import { OpenAIProvider } from 'durable-agent/openai';
 *
 * const worker = await createWorker({
 *   agents: [assistant],
 *   providers: { ollama: new OpenAIProvider({ baseURL: 'http://localhost:11434/v1', label: 'Ollama' }) },
 * });
 * ```
 */
export { OpenAIProvider } from '../integrations/providers/openai';
export type { MaxTokensField, OpenAIProviderOptions } from '../integrations/providers/openai';
export type { OpenAIRequestOptions } from '../integrations/providers/openai-request';
