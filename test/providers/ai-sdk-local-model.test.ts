/**
 * A real model through the AI SDK: `@ai-sdk/openai-compatible` 3 (the v4 specification, `ai@7`) against
 * the tiny local model (Gemma 3 270M on llama.cpp, the project's chat template), through the adapter.
 * Asserts the protocol, never the model's wording: streamed text and tool calls assembled, deltas adding
 * up, usage read.
 */
import { beforeAll, expect, it } from 'vitest';
import type { ModelRequest } from '../../src/core/output/native-output';
import type { AiSdkProvider } from '../../src/integrations/providers/ai-sdk';
import { aiSdkProvider } from '../../src/integrations/providers/ai-sdk';
import { LOCAL_MODEL_ID } from '../../apps/cli/dev-server/local-model';
import { LOCAL_MODEL_STOP } from '../../apps/cli/dev-server/local-model-template';
import { describeWithLocalModel } from '../helpers/local-model';
import type { AiSdk7 } from '../helpers/ai-sdk';
import { aiSdk7 } from '../helpers/ai-sdk';
import { callContext, expectDeltasAddUp, request } from './context';

const calculator: ModelRequest['tools'] = [
  {
    name: 'calculator',
    description: 'Evaluate an arithmetic expression.',
    inputSchema: { type: 'object', properties: { expression: { type: 'string' } }, required: ['expression'], additionalProperties: false },
  },
];

describeWithLocalModel('an AI SDK provider package on the real local model', (server) => {
  let createOpenAICompatible: AiSdk7['createOpenAICompatible'];
  beforeAll(async () => {
    ({ createOpenAICompatible } = await aiSdk7());
  });
  let provider: AiSdkProvider | undefined;
  const local = (): AiSdkProvider =>
    (provider ??= aiSdkProvider(createOpenAICompatible({ name: 'llamacpp', baseURL: server().baseURL, includeUsage: true }), {
      // What a 270M base model needs (as the project's own local provider sends): greedy, stop after a call.
      settings: { temperature: 0, stopSequences: [...LOCAL_MODEL_STOP] },
    }));

  it('streams a text answer: deltas add up, usage read', async () => {
    const ctx = callContext();
    expect(local().model(LOCAL_MODEL_ID).specificationVersion).toBe('v4');
    const response = await local().generate(request(LOCAL_MODEL_ID, 'Count from 1 to 10: 1, 2, 3,', { maxTokens: 16 }), ctx);
    const text = response.message.content.find((b) => b.type === 'text');
    expect(text?.type === 'text' && text.text.length).toBeGreaterThan(0);
    expect(['end_turn', 'max_tokens']).toContain(response.stopReason);
    expect(response.usage.inputTokens).toBeGreaterThan(0);
    expect(response.usage.outputTokens).toBeGreaterThan(0);
    expect(ctx.deltas.length).toBeGreaterThan(1);
    expectDeltasAddUp(ctx.deltas, response.message);
  }, 60_000);

  it('streams a tool call: assembled from its argument deltas, arguments as the model sent them', async () => {
    // At temperature 0 the model almost always calls the tool; its output may differ across prompt-cache
    // states, so a bounded number of tries, each of which must keep the protocol.
    let called = false;
    for (let i = 0; i < 3 && !called; i++) {
      const ctx = callContext();
      const response = await local().generate(request(LOCAL_MODEL_ID, 'What is 12*(3+4)?', { maxTokens: 48, tools: calculator }), ctx);
      expect(response.usage.outputTokens).toBeGreaterThan(0);
      const calls = response.message.content.filter((b) => b.type === 'tool_use');
      for (const c of calls) {
        expect(c.name).toBe('calculator');
        expect(c.id).not.toBe('');
        if (c.inputError === undefined) expect(typeof c.input).toBe('object');
        else expect(typeof c.input).toBe('string');
      }
      if (calls.length && calls.every((c) => c.inputError === undefined)) {
        called = true;
        expect(response.stopReason).toBe('tool_use');
        expect(ctx.deltas.some((d) => d.type === 'tool_args')).toBe(true);
        expectDeltasAddUp(ctx.deltas, response.message);
      }
    }
    expect(called).toBe(true);
  }, 120_000);
});
