/**
 * The CLI's OpenAI-compatible provider set up for the tiny local model (llama.cpp serving Gemma 3 270M with
 * the project's chat template): temperature 0, one tool call per turn, stop after a call. A base model
 * of 270M parameters needs all three to produce usable tool calls.
 */
import { LOCAL_MODEL_STOP } from '../dev-server/local-model-template';
import { OpenAIProvider } from '../../../src/entry/openai';
import type { OpenAIProviderOptions } from '../../../src/entry/openai';

/** Name the provider is registered under. */
export const LOCAL_MODEL_PROVIDER = 'local';
/** Label in errors and output. */
export const LOCAL_MODEL_LABEL = 'tiny local model (Gemma 3 270M base, llama.cpp)';

/** Request fields the local model needs. */
export const LOCAL_MODEL_REQUEST: Readonly<NonNullable<OpenAIProviderOptions['request']>> = Object.freeze({
  temperature: 0,
  parallelToolCalls: false,
  stop: [...LOCAL_MODEL_STOP],
  includeUsage: true,
});

/** An OpenAI-compatible provider for the local server at `baseURL` (e.g. `http://127.0.0.1:8080/v1`). */
export function localModelProvider(baseURL: string, timeoutMs?: number): OpenAIProvider {
  return new OpenAIProvider({
    baseURL,
    label: LOCAL_MODEL_LABEL,
    request: { ...LOCAL_MODEL_REQUEST, stop: [...LOCAL_MODEL_STOP] },
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
  });
}
