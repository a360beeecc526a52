/**
 * Structured final output on the real dev server: an agent's final answer must match its zod schema,
 * through a `final_answer` tool or the provider's native structured output; an invalid answer is fed
 * back with zod's errors, and after `outputRetries` corrections the run ends `output_invalid`.
 */
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { defineAgent } from '../../src/agents/define';
import type { ModelRequest } from '../../src/core/output/native-output';
import { FINAL_ANSWER_TOOL } from '../../src/core/output/output';
import { ScriptedProvider } from '../../src/integrations/providers/scripted';
import type { ScriptedTurn } from '../../src/integrations/providers/scripted';
import { ScriptedAgents } from '../helpers/agents';
import { allEvents } from '../helpers/events';
import { collect } from '../helpers/stream';
import type { Harness } from '../helpers/harness';
import { startHarness, testId } from '../helpers/harness';
import { echo } from '../helpers/tools';

const weather = z.object({ city: z.string(), temperature: z.number(), conditions: z.enum(['sunny', 'cloudy', 'rain']) });
type Weather = z.output<typeof weather>;

/** What each scripted model was sent, by agent. */
const requests = new Map<string, ModelRequest[]>();
/** A script that records its requests and answers from `turns` by step. */
function recorded(name: string, turns: ScriptedTurn[]) {
  return (request: ModelRequest, ctx: { step: number }): ScriptedTurn => {
    requests.set(name, [...(requests.get(name) ?? []), request]);
    const turn = turns[ctx.step - 1];
    if (!turn) throw new Error(`${name}: no turn for step ${ctx.step}`);
    return turn;
  };
}

const S = new ScriptedAgents();
/** A provider that says it supports native structured output, as OpenAI-compatible ones do. */
const native = new ScriptedProvider({}, { nativeOutput: true });

// Tool mode (the scripted provider has no native output): a tool call first, then the final answer.
S.provider.set(
  'tool_valid',
  recorded('tool_valid', [
    { toolCalls: [{ name: 'echo', args: { text: 'Paris' } }] },
    { toolCalls: [{ name: FINAL_ANSWER_TOOL, args: { city: 'Paris', temperature: 21, conditions: 'sunny' } }] },
  ]),
);
const toolValid = defineAgent({
  name: 'tool_valid',
  model: { provider: 'scripted', model: 'tool_valid' },
  system: 'You report the weather.',
  tools: [echo],
  output: weather,
});
S.agents.push(toolValid);

native.set('native_valid', recorded('native_valid', [{ text: '{"city":"Oslo","temperature":3,"conditions":"rain"}' }]));
const nativeValid = defineAgent({ name: 'native_valid', model: { provider: 'native', model: 'native_valid' }, output: weather });
S.agents.push(nativeValid);

S.provider.set(
  'fixed',
  recorded('fixed', [
    { toolCalls: [{ name: FINAL_ANSWER_TOOL, args: { city: 'Rome', temperature: 'hot', conditions: 'sunny' } }] },
    { toolCalls: [{ name: FINAL_ANSWER_TOOL, args: { city: 'Rome', temperature: 31, conditions: 'sunny' } }] },
  ]),
);
const fixed = defineAgent({ name: 'fixed', model: { provider: 'scripted', model: 'fixed' }, output: weather });
S.agents.push(fixed);

native.set(
  'native_fixed',
  recorded('native_fixed', [{ text: 'It is sunny in Rome.' }, { text: '{"city":"Rome","temperature":31,"conditions":"sunny"}' }]),
);
S.agents.push(defineAgent({ name: 'native_fixed', model: { provider: 'native', model: 'native_fixed' }, output: weather }));

S.provider.set(
  'never_valid',
  recorded('never_valid', [
    { toolCalls: [{ name: FINAL_ANSWER_TOOL, args: { city: 'Lima' } }] },
    { toolCalls: [{ name: FINAL_ANSWER_TOOL, args: { city: 'Lima', temperature: 'mild' } }] },
    { toolCalls: [{ name: FINAL_ANSWER_TOOL, args: { city: 'Lima', temperature: 19, conditions: 'foggy' } }] },
  ]),
);
S.agents.push(
  defineAgent({ name: 'never_valid', model: { provider: 'scripted', model: 'never_valid' }, output: weather, outputRetries: 2 }),
);

// A session: each turn ends with a final answer; the next message follows the final_answer call's result.
S.provider.set(
  'session_output',
  recorded('session_output', [
    { toolCalls: [{ name: FINAL_ANSWER_TOOL, args: { city: 'Paris', temperature: 21, conditions: 'sunny' } }] },
    { toolCalls: [{ name: FINAL_ANSWER_TOOL, args: { city: 'Berlin', temperature: 12, conditions: 'cloudy' } }] },
  ]),
);
S.agents.push(defineAgent({ name: 'session_output', model: { provider: 'scripted', model: 'session_output' }, output: weather }));

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ agents: S.agents, providers: { scripted: S.provider, native } });
});
afterAll(async () => {
  await h?.stop();
});

describe('structured final output', () => {
  it('tool mode, valid the first time: the run succeeds with the typed output, the final_answer call closed', async () => {
    const run = await h.client.start(toolValid, { input: 'Weather in Paris?', workflowId: testId('output-tool') });
    const result = await run.result();
    expect(result.status).toBe('success');
    if (result.status !== 'success') return;
    expectTypeOf(result.output).toEqualTypeOf<Weather>();
    expect(result.output).toEqual({ city: 'Paris', temperature: 21, conditions: 'sunny' });
    expect(JSON.parse(result.finalText)).toEqual(result.output);
    // The model was given the final_answer tool with the schema, and told to use it; no native output asked.
    const [first] = requests.get('tool_valid')!;
    expect(first!.tools.map((t) => t.name)).toEqual(['echo', FINAL_ANSWER_TOOL]);
    expect(first!.tools[1]!.inputSchema).toEqual(toolValid.outputSchema);
    expect(first!.system).toMatch(/^You report the weather\.\n\n.*final_answer/);
    expect(first!.output).toBeUndefined();
    // The real tool ran; the final_answer call has a result, so the transcript is well formed.
    expect(result.report.toolCalls.map((c) => [c.tool, c.isError])).toEqual([
      ['echo', false],
      [FINAL_ANSWER_TOOL, false],
    ]);
    expect(result.messages.at(-1)).toMatchObject({ role: 'user', content: [{ type: 'tool_result', isError: false }] });
  });

  it('native mode, valid the first time: the provider is asked for the schema and the text is the output', async () => {
    const run = await h.client.start(nativeValid, { input: 'Weather in Oslo?', workflowId: testId('output-native') });
    const result = await run.result();
    expect(result).toMatchObject({ status: 'success', output: { city: 'Oslo', temperature: 3, conditions: 'rain' } });
    const [first] = requests.get('native_valid')!;
    expect(first!.output).toEqual({ name: FINAL_ANSWER_TOOL, schema: nativeValid.outputSchema });
    expect(first!.tools.map((t) => t.name)).not.toContain(FINAL_ANSWER_TOOL);
  });

  it('invalid then fixed: the model reads zod’s errors as the call’s result, and the run succeeds', async () => {
    const run = await h.client.start(fixed, { input: 'Weather in Rome?', workflowId: testId('output-fixed') });
    const result = await run.result();
    expect(result.status).toBe('success');
    if (result.status === 'success') expect(result.output.temperature).toBe(31);
    const second = requests.get('fixed')![1]!;
    const fed = second.messages.at(-1)!;
    expect(fed.role).toBe('user');
    expect(fed.content[0]).toMatchObject({
      type: 'tool_result',
      isError: true,
      output: {
        type: 'text',
        text: expect.stringMatching(
          /does not match the required output schema:\n- temperature: Invalid input: expected number, received string\n/,
        ),
      },
    });
    const events = await allEvents(run);
    expect(events.filter((e) => e.type === 'output_rejected')).toEqual([
      expect.objectContaining({ step: 1, retrying: true, errors: expect.stringContaining('temperature') }),
    ]);
    expect(result.steps).toBe(2);
  });

  it('native mode, invalid then fixed: the errors come back as a user turn', async () => {
    const run = await h.client.start('native_fixed', { input: 'Weather in Rome?', workflowId: testId('output-native-fixed') });
    const result = await run.result();
    expect(result).toMatchObject({ status: 'success', output: { city: 'Rome', temperature: 31, conditions: 'sunny' } });
    const second = requests.get('native_fixed')![1]!;
    expect(second.messages.at(-1)).toMatchObject({
      role: 'user',
      content: [{ type: 'text', text: expect.stringContaining('not valid JSON') }],
    });
  });

  it('invalid more than outputRetries times: output_invalid with the last answer and its errors', async () => {
    const run = await h.client.start('never_valid', { input: 'Weather in Lima?', workflowId: testId('output-invalid') });
    const result = await run.result();
    expect(result.status).toBe('output_invalid');
    expect(result.output).toBeUndefined();
    expect(result.steps).toBe(3);
    expect(JSON.parse(result.finalText)).toEqual({ city: 'Lima', temperature: 19, conditions: 'foggy' });
    expect(result.error).toEqual({
      type: 'OutputInvalid',
      message: expect.stringMatching(/^The final answer does not match the output schema after 2 corrections:\n- conditions: /),
    });
    const events = await allEvents(run);
    expect(events.filter((e) => e.type === 'output_rejected').map((e) => (e.type === 'output_rejected' ? e.retrying : undefined))).toEqual([
      true,
      true,
      false,
    ]);
    expect(events.at(-1)).toMatchObject({ type: 'done', status: 'output_invalid' });
    // Every call has its result, the last one included.
    expect(result.messages.at(-1)).toMatchObject({ role: 'user', content: [{ type: 'tool_result', isError: true }] });
  });

  it('a session: each turn’s final answer is validated; the next message joins the final_answer result (well-formed transcript)', async () => {
    const run = await h.client.start('session_output', { input: 'Weather in Paris?', session: true, workflowId: testId('output-session') });
    for (let i = 0; i < 200 && !(await allEvents(run)).some((e) => e.type === 'awaiting_message'); i++)
      await new Promise((r) => setTimeout(r, 50));
    await run.send('And in Berlin?');
    for (let i = 0; i < 200 && (await allEvents(run)).filter((e) => e.type === 'awaiting_message').length < 2; i++)
      await new Promise((r) => setTimeout(r, 50));
    await run.end();
    const result = await run.result();
    expect(result).toMatchObject({ status: 'success', output: { city: 'Berlin', temperature: 12, conditions: 'cloudy' } });
    const second = requests.get('session_output')![1]!;
    expect(second.messages.map((m) => [m.role, m.content.map((b) => b.type)])).toEqual([
      ['user', ['text']],
      ['assistant', ['tool_use']],
      ['user', ['tool_result', 'text']],
    ]);
  });

  it("the stream's done event carries the output, equal to the result's; an output_invalid run's has none", async () => {
    const run = await h.client.start(toolValid, { input: 'Weather in Paris?', workflowId: testId('output-done') });
    const done = (await collect(run.stream({ deltas: false }))).at(-1);
    const result = await run.result();
    expect(result.status).toBe('success');
    expect(done).toMatchObject({ type: 'done', status: 'success' });
    if (done?.type !== 'done') return;
    expect(done.output).toEqual(result.output);
    expect(done.output).toEqual({ city: 'Paris', temperature: 21, conditions: 'sunny' });
    const invalid = await h.client.start('never_valid', { input: 'Weather?', workflowId: testId('output-done-invalid') });
    const invalidDone = (await collect(invalid.events())).at(-1);
    expect(invalidDone).toMatchObject({ type: 'done', status: 'output_invalid' });
    expect(invalidDone).not.toHaveProperty('output');
  });
});
