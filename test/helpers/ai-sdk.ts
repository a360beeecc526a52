/**
 * The current AI SDK packages in tests. They are ES modules only (`ai@7`, `@ai-sdk/provider@4`,
 * `@ai-sdk/anthropic@4`, `@ai-sdk/openai@4`, `@ai-sdk/openai-compatible@3`), and the tests are CommonJS
 * TypeScript: types come from `import type … with { 'resolution-mode': 'import' }`, values from a
 * dynamic `import()` (what a CommonJS module may do), loaded once here and awaited in a `beforeAll`.
 * The v2-era packages (`ai-v5`, `@ai-sdk/provider-v2`, `@ai-sdk/openai-compatible-v1`) are CommonJS and
 * imported as usual.
 */
import type * as AiModule from 'ai' with { 'resolution-mode': 'import' };
import type * as AiTestModule from 'ai/test' with { 'resolution-mode': 'import' };
import type * as AnthropicModule from '@ai-sdk/anthropic' with { 'resolution-mode': 'import' };
import type * as OpenAIModule from '@ai-sdk/openai' with { 'resolution-mode': 'import' };
import type * as CompatibleModule from '@ai-sdk/openai-compatible' with { 'resolution-mode': 'import' };
import type * as ProviderModule from '@ai-sdk/provider' with { 'resolution-mode': 'import' };

/** What the tests use of the current AI SDK. */
export interface AiSdk7 {
  /** `ai`'s `simulateReadableStream`. */
  simulateReadableStream: typeof AiModule.simulateReadableStream;
  MockLanguageModelV3: typeof AiTestModule.MockLanguageModelV3;
  MockLanguageModelV4: typeof AiTestModule.MockLanguageModelV4;
  MockProviderV4: typeof AiTestModule.MockProviderV4;
  /** `@ai-sdk/provider@4`'s errors. */
  APICallError: typeof ProviderModule.APICallError;
  createAnthropic: typeof AnthropicModule.createAnthropic;
  createOpenAI: typeof OpenAIModule.createOpenAI;
  createOpenAICompatible: typeof CompatibleModule.createOpenAICompatible;
}

let loaded: Promise<AiSdk7> | undefined;

/** The current AI SDK's values (loaded on the first call). */
export function aiSdk7(): Promise<AiSdk7> {
  loaded ??= (async () => {
    const [ai, aiTest, provider, anthropic, openai, compatible] = await Promise.all([
      import('ai'),
      import('ai/test'),
      import('@ai-sdk/provider'),
      import('@ai-sdk/anthropic'),
      import('@ai-sdk/openai'),
      import('@ai-sdk/openai-compatible'),
    ]);
    return {
      simulateReadableStream: ai.simulateReadableStream,
      MockLanguageModelV3: aiTest.MockLanguageModelV3,
      MockLanguageModelV4: aiTest.MockLanguageModelV4,
      MockProviderV4: aiTest.MockProviderV4,
      APICallError: provider.APICallError,
      createAnthropic: anthropic.createAnthropic,
      createOpenAI: openai.createOpenAI,
      createOpenAICompatible: compatible.createOpenAICompatible,
    };
  })();
  return loaded;
}
