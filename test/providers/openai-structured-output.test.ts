/**
 * Native structured output through the real `openai` package against the local replay server: a request
 * with `output` carries `response_format: json_schema` (strict only for schemas strict mode accepts),
 * one without it carries none, and the JSON text answer comes back as text.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { outputRequest } from '../../src/activities/output';
import type { JsonObject } from '../../src/core/messages/json';
import { FINAL_ANSWER_TOOL } from '../../src/core/output/output';
import { OpenAIProvider } from '../../src/integrations/providers/openai';
import { replayCall, request } from './context';
import { ReplayServer } from './replay-server';
import { openaiCompletion } from './sse';

let server: ReplayServer;
let provider: OpenAIProvider;

beforeAll(async () => {
  server = await ReplayServer.start();
  provider = new OpenAIProvider({ apiKey: 'test-key-openai-output-3c1f', baseURL: `${server.origin}/v1` });
});
afterAll(async () => {
  await server?.close();
});

const answer = '{"city":"Oslo","temperature":3}';
const sse = () => openaiCompletion({ model: 'gpt-test', text: answer, finish: 'stop', usage: { prompt: 20, completion: 9 } });
const closed = z.toJSONSchema(z.object({ city: z.string(), temperature: z.number() }), { io: 'output' }) as JsonObject;
const open = z.toJSONSchema(z.object({ city: z.string(), note: z.string().optional() }), { io: 'input' }) as JsonObject;

describe('OpenAIProvider: native structured output', () => {
  it('says it supports native output', () => {
    expect(provider.nativeOutput).toBe(true);
  });

  it('sends response_format json_schema (strict for a closed schema) and returns the JSON text', async () => {
    const prompt = outputRequest({ system: 'Report the weather.', tools: [] }, { schema: closed, mode: 'native', maxRetries: 2 });
    const { response, sent } = await replayCall(server, provider, sse(), request('gpt-test', 'Weather in Oslo?', prompt));
    expect(sent.body.response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: FINAL_ANSWER_TOOL, schema: closed, strict: true },
    });
    expect((sent.body.messages as Array<{ role: string; content: string }>)[0]!.content).toMatch(/^Report the weather\.\n\n.*JSON/);
    expect(sent.body).not.toHaveProperty('tools');
    expect(response.message.content).toEqual([{ type: 'text', text: answer }]);
  });

  it('is not strict for a schema strict mode refuses (an optional property, an open object)', async () => {
    const { sent } = await replayCall(
      server,
      provider,
      sse(),
      request('gpt-test', 'x', { output: { name: FINAL_ANSWER_TOOL, schema: open } }),
    );
    expect(sent.body.response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: FINAL_ANSWER_TOOL, schema: open, strict: false },
    });
  });

  it('a request without output has no response_format', async () => {
    const { sent } = await replayCall(server, provider, sse(), request('gpt-test'));
    expect(sent.body).not.toHaveProperty('response_format');
  });
});
