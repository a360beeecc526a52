/**
 * Prompt layers on the real dev server: a layer a tool sets in step 2 is in the system prompt from step 3
 * on, across compaction and continue-as-new; a message sets one; a function layer is computed once per
 * model call on the worker and recorded (its history replays without calling it); undeclared names are
 * refused (tool call failed, message refused); the report lists the layers. Against a local server that
 * speaks Anthropic's protocol and EMULATES its documented prefix caching (test/providers/anthropic-cache.ts):
 * a changed dynamic layer keeps the tools and the stable system prefix byte-identical and read from cache.
 */
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { z } from 'zod';
import { defineAgent, defineTool } from '../../src/agents/define';
import { MessageRefusedError } from '../../src/client/errors';
import type { ModelRequest } from '../../src/core/output/native-output';
import { AnthropicProvider } from '../../src/integrations/providers/anthropic';
import type { ModelCallContext } from '../../src/integrations/providers/types';
import type { ScriptedTurn } from '../../src/integrations/providers/scripted';
import { ScriptedAgents } from '../helpers/agents';
import { allEvents, pollUntil } from '../helpers/events';
import type { Harness } from '../helpers/harness';
import { startHarness, testId } from '../helpers/harness';
import { historyText } from '../helpers/history';
import { echo } from '../helpers/tools';
import { AnthropicCacheEmulator } from '../providers/anthropic-cache';
import type { RecordedRequest } from '../providers/replay-server';
import { ReplayServer } from '../providers/replay-server';
import { anthropicMessage } from '../providers/sse';

const setPlan = defineTool({
  name: 'set_plan',
  description: 'Replace the plan',
  input: z.object({ plan: z.string() }),
  execute: ({ plan }, ctx) => {
    ctx.context.set('plan', plan);
    return 'plan set';
  },
});
const setUndeclared = defineTool({
  name: 'set_undeclared',
  description: 'Set a layer the agent does not have',
  input: z.object({}),
  retry: { maximumAttempts: 3, initialInterval: '50ms' },
  execute: (_args, ctx) => {
    ctx.context.set('notes', 'x');
    return 'unreachable';
  },
});
const big = defineTool({
  name: 'big',
  description: 'Read a large page',
  input: z.object({}),
  execute: (_args, ctx) => `page of step ${ctx.step}: ${'lorem ipsum '.repeat(250)}`,
});

/** Calls of the `facts` layer function, on this worker. */
let factsCalls = 0;
const layers = [
  { name: 'memory', stable: true },
  { name: 'plan' },
  {
    name: 'facts',
    value: (s: { step: number; layers: Readonly<Record<string, string>> }) => {
      factsCalls++;
      return `call ${s.step}; plan ${s.layers.plan ?? 'none'}`;
    },
  },
];

const STEPS = 14;
/** The system prompt each step of the `layered` run was sent. */
const systems = new Map<number, string>();
const S = new ScriptedAgents();
S.add(
  'layered',
  (request: ModelRequest, ctx: ModelCallContext): ScriptedTurn => {
    if (ctx.purpose === 'summary') return { text: `Summary at step ${ctx.step}: pages read; the plan is in the system prompt.` };
    systems.set(ctx.step, request.system ?? '');
    if (ctx.step === 1) return { toolCalls: [{ name: 'set_undeclared', args: {} }] };
    // Two sets in one step: the later call (in the model's order) wins.
    if (ctx.step === 2)
      return {
        toolCalls: [
          { name: 'set_plan', args: { plan: 'draft' } },
          { name: 'set_plan', args: { plan: 'ship it' } },
        ],
      };
    return ctx.step <= STEPS ? { toolCalls: [{ name: 'big', args: {} }] } : { text: 'done' };
  },
  {
    system: 'You follow the plan.',
    layers,
    tools: [setPlan, setUndeclared, big],
    maxSteps: 30,
    continueAsNewAfterEvents: 50,
    context: { windowTokens: 6_000, keepRecentTokens: 1_000, keepToolResults: 0 },
  },
);
S.provider.setWindow('layered', 6_000);
/** The system prompt each step of a `chatty` session was sent. */
const chatSystems: string[] = [];
S.add(
  'chatty',
  (request: ModelRequest): ScriptedTurn => {
    chatSystems.push(request.system ?? '');
    return { text: 'noted' };
  },
  { system: 'You chat.', layers: [{ name: 'memory', stable: true }, { name: 'plan' }], tools: [] },
);

/** Calls of the `mood` layer function: the first one throws. */
let moodCalls = 0;
S.add('flaky_layer', (request: ModelRequest): ScriptedTurn => ({ text: request.system ?? '' }), {
  tools: [],
  layers: [
    {
      name: 'mood',
      value: () => {
        if (++moodCalls === 1) throw new Error('mood service down');
        return 'calm';
      },
    },
  ],
});

// Anthropic over the replay server: a 6 KB base prompt, the plan changed by a tool in step 2.
const GUIDE = `You are a careful release engineer. ${'Check every step twice and say what you checked. '.repeat(120)}`;
const CLAUDE_SCRIPT: Array<{ tool?: string; input?: unknown; text?: string }> = [
  { tool: 'echo', input: { text: 'look around' } },
  { tool: 'set_plan', input: { plan: 'step 3: release' } },
  { tool: 'echo', input: { text: 'release' } },
  { text: 'released' },
];
const claude = (name: string, planStable: boolean) =>
  defineAgent({
    name,
    model: { provider: 'anthropic', model: name },
    system: GUIDE,
    layers: [
      { name: 'memory', stable: true },
      { name: 'plan', stable: planStable },
    ],
    tools: [echo, setPlan],
    modelRetry: { maximumAttempts: 2, initialInterval: '50ms' },
  });
let server: ReplayServer;
const caches = new Map<string, AnthropicCacheEmulator>();
const usageOf = (req: RecordedRequest) => {
  const model = req.body.model ?? '';
  if (!caches.has(model)) caches.set(model, new AnthropicCacheEmulator());
  return caches.get(model)!.usage(req);
};

let h: Harness;
beforeAll(async () => {
  server = await ReplayServer.start((req) => {
    const model = req.body.model ?? '';
    const turn = (req.body.messages ?? []).filter((m) => (m as { role?: string }).role === 'assistant').length;
    const s = CLAUDE_SCRIPT[turn];
    if (!s) return undefined;
    const blocks = s.tool
      ? [{ type: 'tool_use' as const, id: `toolu_${turn}`, name: s.tool, input: s.input }]
      : [{ type: 'text' as const, text: s.text ?? '' }];
    return { sse: anthropicMessage({ model, blocks, stopReason: s.tool ? 'tool_use' : 'end_turn', usage: usageOf(req) }) };
  });
  h = await startHarness({
    agents: [...S.agents, claude('claude_layered', false), claude('claude_flat', true)],
    providers: { scripted: S.provider, anthropic: new AnthropicProvider({ apiKey: 'test-key-layers-31f9', baseURL: server.origin }) },
  });
});
afterAll(async () => {
  await h?.stop();
  await server?.close();
});

describe('prompt layers', () => {
  it('a tool sets a layer in step 2: step 3 on sees it, through compaction and continue-as-new; the function layer is recorded', async () => {
    const run = await h.client.start('layered', { input: 'work', workflowId: testId('layers') });
    const result = await run.result();
    expect(result.status).toBe('success');
    expect(result.steps).toBe(STEPS + 1);

    // Step 1's tool set an undeclared layer: its call failed, naming the declared ones (not retried).
    const undeclared = result.report.toolCalls.find((c) => c.tool === 'set_undeclared');
    expect(undeclared).toMatchObject({ isError: true, attempts: 1 });
    expect(undeclared?.error).toContain('unknown prompt layer "notes": this agent declares memory, plan, facts');

    expect(systems.get(2)).not.toContain('<plan>');
    for (let step = 3; step <= STEPS + 1; step++) {
      // The base text first, then the dynamic layers in declared order (plan, then the computed facts).
      expect(systems.get(step)).toBe(`You follow the plan.\n\n<plan>\nship it\n</plan>\n\n<facts>\ncall ${step}; plan ship it\n</facts>`);
    }
    // The plan survived compaction and continue-as-new: both happened before the last steps.
    const events = await allEvents(run);
    const compacted = events.find((e) => e.type === 'compacted');
    const continued = events.find((e) => e.type === 'continued_as_new');
    expect(compacted).toBeDefined();
    expect(continued).toBeDefined();
    expect(Math.max(compacted!.step, (continued as { step: number }).step)).toBeLessThan(STEPS);

    expect(result.report.layers).toEqual([
      { name: 'plan', source: 'tool', setAtStep: 2, bytes: 7, hash: expect.stringMatching(/^[0-9a-f]{8}$/) },
      {
        name: 'facts',
        source: 'function',
        setAtStep: STEPS + 1,
        bytes: `call ${STEPS + 1}; plan ship it`.length,
        hash: expect.any(String),
      },
    ]);

    // The function ran once per model call (no retries here), on the worker: replaying the whole history
    // (every execution) calls it no more, and the recorded value is what the model was sent.
    expect(factsCalls).toBe(STEPS + 1);
    // The last execution's history holds the last call's computed value, as that activity's result.
    const recorded = (await historyText(run.handle)).includes(`"layers":{"facts":"call ${STEPS + 1}; plan ship it"}`);
    expect(recorded).toBe(true);
    const history = await run.handle.fetchHistory();
    await Worker.runReplayHistory({ workflowBundle: { codePath: inject('workflowBundlePath') } }, history, run.workflowId);
    expect(factsCalls).toBe(STEPS + 1);
  });

  it('a message sets a layer; a message naming an undeclared layer is refused before anything is recorded', async () => {
    const run = await h.client.start('chatty', { session: true, workflowId: testId('layers-msg') });
    await pollUntil(
      () => run.snapshot(),
      (s) => s.status === 'awaiting_message',
      'the session',
    );
    const refused = await run.send({ text: 'hi', context: { notes: 'x' } }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(MessageRefusedError);
    expect((refused as Error).message).toBe('unknown prompt layer "notes": this agent declares memory, plan');
    const tooBig = await run.send({ text: 'hi', context: { plan: 'p'.repeat(16 * 1024 + 1) } }).catch((e: unknown) => e);
    expect((tooBig as Error).message).toContain('context.plan is 16385 bytes, over the limit of 16384');

    await run.send({ text: 'remember this', context: { memory: 'The user is Ada.', plan: 'greet' } });
    await pollUntil(
      () => run.snapshot(),
      (s) => s.status === 'awaiting_message' && s.step === 1,
      'the first answer',
    );
    await run.send({ text: 'next', context: { plan: null } });
    await pollUntil(
      () => run.snapshot(),
      (s) => s.status === 'awaiting_message' && s.step === 2,
      'the second answer',
    );
    await run.end();
    const result = await run.result();
    expect(chatSystems).toEqual([
      'You chat.\n\n<memory>\nThe user is Ada.\n</memory>\n\n<plan>\ngreet\n</plan>',
      'You chat.\n\n<memory>\nThe user is Ada.\n</memory>',
    ]);
    expect(result.report.layers).toEqual([{ name: 'memory', source: 'message', setAtStep: 0, bytes: 16, hash: expect.any(String) }]);
    expect((await allEvents(run)).filter((e) => e.type === 'user_message')).toHaveLength(2);
  });

  it('a layer function that throws fails the model call attempt, which is retried', async () => {
    const result = await (await h.client.start('flaky_layer', { input: 'hi', workflowId: testId('layers-flaky') })).result();
    expect(result.status).toBe('success');
    expect(result.finalText).toBe('<mood>\ncalm\n</mood>');
    expect(result.report.steps[0]).toMatchObject({ attempts: 2 });
    expect(moodCalls).toBe(2);
  });

  it('Anthropic (emulated cache): a plan changed in step 2 keeps the tools and stable system prefix cached in step 3', async () => {
    const layered = await (await h.client.start('claude_layered', { input: 'release', workflowId: testId('claude-layers') })).result();
    const flat = await (await h.client.start('claude_flat', { input: 'release', workflowId: testId('claude-flat') })).result();
    expect([layered.status, flat.status]).toEqual(['success', 'success']);

    const requests = server.requestsFor('claude_layered');
    expect(requests).toHaveLength(4);
    const system = (r: RecordedRequest) => r.body.system as Array<{ text: string; cache_control?: unknown }>;
    // Step 3: the same tools and stable block as step 2 (byte for byte), the new plan in the block after the breakpoint.
    expect(JSON.stringify(requests[2]!.body.tools)).toBe(JSON.stringify(requests[1]!.body.tools));
    expect(JSON.stringify(system(requests[2]!)[0])).toBe(JSON.stringify(system(requests[1]!)[0]));
    expect(system(requests[2]!)[0]).toEqual({ type: 'text', text: GUIDE, cache_control: { type: 'ephemeral' } });
    expect(system(requests[2]!)[1]).toEqual({ type: 'text', text: '<plan>\nstep 3: release\n</plan>' });
    // Four breakpoints at most: tools, system, two on the conversation tail.
    const marks = JSON.stringify(requests[2]!.body).split('"cache_control"').length - 1;
    expect(marks).toBe(4);

    const reads = (r: typeof layered) => r.report.steps.map((s) => s.usage.cacheReadTokens);
    console.log(`cache reads per step: layered ${reads(layered).join(', ')}; plan in the cached system block ${reads(flat).join(', ')}`);
    expect(layered.report.steps[2]!.usage.cacheReadTokens).toBeGreaterThan(1_500);
    // The plan inside the cached system block: step 3 reads only the tools from the cache.
    expect(layered.report.steps[2]!.usage.cacheReadTokens).toBeGreaterThan(flat.report.steps[2]!.usage.cacheReadTokens);
    expect(layered.report.usage.cacheReadTokens).toBe(reads(layered).reduce((a, b) => a + b, 0));
  });
});
