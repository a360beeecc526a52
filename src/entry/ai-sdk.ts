/**
 * `durable-agent/ai-sdk`: any Vercel AI SDK language model (`@ai-sdk/*` providers) as a model provider:
 * the v4 specification of `ai@7` (`@ai-sdk/provider@4`), v3 (`ai@6`) and v2 (`ai@5`). Needs the optional
 * package `@ai-sdk/provider` (`npm install @ai-sdk/provider`, 2, 3 or 4), which every AI SDK provider
 * package depends on.
 *
 * @example
 * ```ts
 * import { createOpenAI } from '@ai-sdk/openai';
 * import { createWorker } from 'durable-agent/worker';
 * import { aiSdkProvider } from 'durable-agent/ai-sdk';
 *
 * const worker = await createWorker({ agents: [assistant], providers: { gpt: aiSdkProvider(createOpenAI()) } });
 * ```
 */
export { AiSdkProvider, aiSdkProvider } from '../integrations/providers/ai-sdk';
export type {
  AiSdkCallSettings,
  AiSdkLanguageModel,
  AiSdkModels,
  AiSdkModelSource,
  AiSdkProviderOptions,
} from '../integrations/providers/ai-sdk';
