/**
 * The loop's exactness on the real dev server: tool values JSON cannot represent, arguments nested too
 * deep, the whole answer after max-tokens recoveries, a huge streamed chunk against the answer guard.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../src/agents/define';
import { outputText } from '../../src/core/messages/messages';
import { MAX_ARGUMENT_DEPTH } from '../../src/core/tool-calls/call-input';
import { ScriptedAgents } from '../helpers/agents';
import { allEvents, toolResults, unrecordedOutputText } from '../helpers/events';
import type { Harness } from '../helpers/harness';
import { startHarness, testId } from '../helpers/harness';

/** Executions of the odd-value tools in this process (the worker runs here), by tool name. */
const runs = new Map<string, number>();
const fastRetry = { maximumAttempts: 3, initialInterval: '50ms', maximumInterval: '100ms' } as const;

/** Tools returning values JSON cannot represent, and the words the result must use for each. */
const odd: Array<[string, () => unknown, RegExp]> = [
  ['returns_undefined', () => undefined, /undefined/],
  ['returns_symbol', () => ({ tag: Symbol('s') }), /Symbol/],
  ['returns_nan', () => ({ ratio: NaN, top: Infinity }), /NaN/],
  ['returns_map', () => new Map([['a', 1]]), /Map/],
  ['returns_set', () => ({ ids: new Set([1, 2]) }), /Set/],
  [
    'returns_function',
    () =>
      function secretSource() {
        return 42;
      },
    /function/,
  ],
  ['returns_promise_of_function', async () => Promise.resolve(() => 'x'), /function/],
  ['returns_nested_promise', () => ({ later: Promise.resolve(1) }), /Promise/],
];
const oddTools = odd.map(([name, value]) =>
  defineTool({
    name,
    description: 'Returns a value JSON cannot represent',
    input: z.object({}),
    retry: fastRetry,
    execute: () => {
      runs.set(name, (runs.get(name) ?? 0) + 1);
      return value() as never;
    },
  }),
);

let deepCalls = 0;
let deepRan = 0;
const deepTool = defineTool({
  name: 'nested',
  description: 'Takes anything',
  input: z.object({ a: z.unknown() }),
  execute: () => {
    deepRan++;
    return 'ran';
  },
});
/** `{"a":{"a":…}}` nested `depth` levels. */
const nestedJson = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);

let hugeCalls = 0;

const S = new ScriptedAgents();
for (const [name] of odd) S.add(`agent_${name}`, [{ toolCalls: [{ name, args: {} }] }, { text: 'done' }], { tools: oddTools });
S.add(
  'deep_args',
  (_req, ctx) => {
    if (ctx.step === 1) deepCalls++;
    return ctx.step === 1 ? { toolCalls: [{ name: 'nested', args: {}, rawArgs: nestedJson(10_000) }] } : { text: 'understood' };
  },
  { tools: [deepTool] },
);
S.add('shallow_args', [{ toolCalls: [{ name: 'nested', args: {}, rawArgs: nestedJson(MAX_ARGUMENT_DEPTH) }] }, { text: 'fine' }], {
  tools: [deepTool],
});
S.add(
  'recovers_whole',
  [
    { text: 'The answer begins here and', stopReason: 'max_tokens' },
    { text: ' goes on after the cut', stopReason: 'max_tokens' },
    { text: ' and ends.' },
  ],
  { maxTokensRecoveries: 2 },
);
S.add(
  'recovers_limited',
  [
    { text: 'part one,', stopReason: 'max_tokens' },
    { text: ' part two', stopReason: 'max_tokens' },
  ],
  { maxTokensRecoveries: 1 },
);
S.add(
  'huge_streamed',
  () => {
    hugeCalls++;
    return { toolCalls: [{ name: 'nested', args: { a: 'x'.repeat(2_500_000) } }], stream: { chunks: 1 } };
  },
  { tools: [deepTool] },
);

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ agents: S.agents, providers: { scripted: S.provider } });
});
afterAll(async () => {
  await h?.stop();
});

const results = toolResults;

describe('a tool value JSON cannot represent', () => {
  it.each(odd.map(([name, , words]) => [name, words] as const))(
    '%s: ran once, the model and the report say what could not be represented',
    async (name, words) => {
      const run = await h.client.start(`agent_${name}`, { input: 'go', workflowId: testId(name) });
      const result = await run.result();
      const text = unrecordedOutputText(result, words);
      expect(text).not.toContain('return 42');
      expect(result.report.toolCalls[0]).toMatchObject({ tool: name, isError: true });
      expect(result.report.toolCalls[0]!.error).toMatch(words);
      expect(runs.get(name)).toBe(1);
    },
  );
});

describe('arguments nested too deep', () => {
  it('are refused as an invalid call naming the depth: nothing runs, the model is called once for the step', async () => {
    const run = await h.client.start('deep_args', { input: 'go', workflowId: testId('deep') });
    const result = await run.result();
    expect(result.status).toBe('success');
    expect(result.finalText).toBe('understood');
    expect(deepCalls).toBe(1);
    expect(deepRan).toBe(0);
    const [block] = results(result);
    expect(block?.isError).toBe(true);
    expect(outputText(block!.output)).toMatch(new RegExp(`nested more than ${MAX_ARGUMENT_DEPTH} levels deep`));
    expect(outputText(block!.output)).toMatch(/Nothing was run/);
    expect((await allEvents(run)).filter((e) => e.type === 'retrying')).toHaveLength(0);
  });

  it('exactly at the limit run as usual', async () => {
    const result = await (await h.client.start('shallow_args', { input: 'go', workflowId: testId('shallow') })).result();
    expect(result.status).toBe('success');
    expect(results(result)[0]?.isError).toBe(false);
  });
});

describe('max-tokens recoveries', () => {
  it('finalText holds the whole answer, every continued part', async () => {
    const result = await (await h.client.start('recovers_whole', { input: 'go', workflowId: testId('whole') })).result();
    expect(result.status).toBe('success');
    expect(result.finalText).toBe('The answer begins here and goes on after the cut and ends.');
  });

  it('a run that ends max_tokens after a recovery has every part too', async () => {
    const result = await (await h.client.start('recovers_limited', { input: 'go', workflowId: testId('limited') })).result();
    expect(result.status).toBe('max_tokens');
    expect(result.finalText).toBe('part one, part two');
  });
});

describe('the answer guard with streaming on', () => {
  it('a 2.5 MB tool-arguments chunk ends ModelOutputTooLarge after one model call', async () => {
    const run = await h.client.start('huge_streamed', { input: 'go', workflowId: testId('huge') });
    const result = await run.result();
    expect(result.status).toBe('provider_error');
    expect(result.error?.type).toBe('ModelOutputTooLarge');
    expect(result.error?.message).toMatch(/^The model's answer is too large to record in workflow history/);
    expect(hugeCalls).toBe(1);
    expect((await allEvents(run)).filter((e) => e.type === 'retrying')).toHaveLength(0);
  });
});
