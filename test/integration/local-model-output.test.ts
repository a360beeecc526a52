/**
 * Structured output from a real model: Gemma 3 270M on llama.cpp answers through native json_schema
 * output (`response_format`, which llama.cpp turns into a grammar), and the run's `output` validates.
 * Asserts the protocol and the contract, never the model's judgement.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { z } from 'zod';
import { defineAgent } from '../../src/agents/define';
import { LOCAL_MODEL_PROVIDER, localModelProvider } from '../../apps/cli/demo/local-model-provider';
import { LOCAL_MODEL_ID } from '../../apps/cli/dev-server/local-model';
import type { Harness } from '../helpers/harness';
import { startHarness, testId } from '../helpers/harness';
import { describeWithLocalModel } from '../helpers/local-model';

const review = z.object({ sentiment: z.enum(['positive', 'negative']), recommend: z.boolean() });
const reviewer = defineAgent({
  name: 'local_reviewer',
  model: { provider: LOCAL_MODEL_PROVIDER, model: LOCAL_MODEL_ID, maxTokens: 64 },
  system: 'Classify the review. Answer in JSON.',
  output: review,
  maxSteps: 3,
});

describeWithLocalModel('structured output from the local model (native json_schema)', (server) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ agents: [reviewer], providers: { [LOCAL_MODEL_PROVIDER]: localModelProvider(server().baseURL) } });
  });
  afterAll(async () => {
    await h?.stop();
  });

  it('the answer is JSON matching the schema, and result.output holds it', async () => {
    const run = await h.client.start(reviewer, {
      input: 'Review: "Great phone, the battery lasts for days. I love it."',
      workflowId: testId('local-output'),
    });
    const result = await run.result();
    expect(result.status, result.error?.message).toBe('success');
    if (result.status !== 'success') return;
    expect(review.parse(result.output)).toEqual(result.output);
    expect(JSON.parse(result.finalText)).toEqual(result.output);
    expect(result.steps).toBe(1);
  }, 120_000);
});
