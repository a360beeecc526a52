/** Prompt layers, pure: declaring, checking and applying updates (tools in call order, messages, functions), composing the system prompt, providers' cache breakpoints, the report. */
import { describe, expect, it } from 'vitest';
import { defineAgent } from '../../src/agents/define';
import { checkLayers } from '../../src/agents/layers';
import { agentSpec as specOf } from '../../src/agents/registry';
import type { AgentSpec } from '../../src/core/run/spec';
import { startLoop } from '../../src/core/loop/state';
import { applyModelStep, applyToolOutcomes, applyUserMessages } from '../../src/core/loop/transitions';
import { carriedState } from '../../src/core/run/continuation';
import { finishRun } from '../../src/core/run/report';
import { parseUserMessage } from '../../src/core/messages/user-messages';
import { composeSystem } from '../../src/core/prompt/compose';
import type { LayerSpec } from '../../src/core/prompt/layers';
import { applyLayerUpdates, fnv1a, layerInputs, layerProblem, layersInput, MAX_LAYER_BYTES } from '../../src/core/prompt/layers';
import { anthropicParams } from '../../src/integrations/providers/anthropic-request';
import { toAiSdkPrompt } from '../../src/integrations/providers/ai-sdk-messages';
import { toOpenAIMessages } from '../../src/integrations/providers/openai-request';
import { formatReport } from '../../apps/cli/report-format';
import { stylesFor } from '../../apps/cli/terminal-output';
import { agentSpec, modelStep, ok, use } from './core-fixtures';

const LAYERS: LayerSpec[] = [
  { name: 'memory', stable: true },
  { name: 'plan', stable: false },
  { name: 'facts', stable: false, computed: true },
];
const spec: AgentSpec = { ...agentSpec(), layers: LAYERS };
const meta = { workflowId: 'w', runId: 'r', startedAt: 't0', endedAt: 't1' };

describe('declaring layers', () => {
  it('records names, placement and which are computed; the functions stay on the worker', () => {
    const agent = defineAgent({
      name: 'a',
      model: { provider: 'p', model: 'm' },
      layers: [{ name: 'memory', stable: true }, { name: 'plan' }, { name: 'facts', value: () => 'f' }],
    });
    expect(specOf(agent, 'ref').layers).toEqual(LAYERS);
    expect(specOf(defineAgent({ name: 'b', model: { provider: 'p', model: 'm' } }), 'ref')).not.toHaveProperty('layers');
  });

  it('refuses bad names, repeated names and non-function values', () => {
    expect(() => checkLayers('a', [{ name: '1x' }])).toThrow(/layer 0 needs a name/);
    expect(() => checkLayers('a', [{ name: 'x' }, { name: 'x' }])).toThrow('agent "a" has two layers named "x"');
    expect(() => checkLayers('a', [{ name: 'x', value: 'text' }])).toThrow(`layer "x": value must be a function of the run's state`);
    expect(() => checkLayers('a', 'x')).toThrow('layers must be an array');
    expect(() =>
      defineAgent({ name: 'a', model: { provider: 'p', model: 'm' }, layers: [{ name: 'x', stable: 'yes' as unknown as boolean }] }),
    ).toThrow('stable must be true or false');
  });
});

describe('applying updates', () => {
  it('names the declared layers for an undeclared one, and bounds values', () => {
    expect(layerProblem(LAYERS, 'notes', 'x')).toBe('unknown prompt layer "notes": this agent declares memory, plan, facts');
    expect(layerProblem([], 'notes', 'x')).toBe('unknown prompt layer "notes": this agent declares no layers');
    expect(layerProblem(LAYERS, 'plan', 'é'.repeat(MAX_LAYER_BYTES / 2))).toBeUndefined();
    expect(layerProblem(LAYERS, 'plan', 'é'.repeat(MAX_LAYER_BYTES / 2) + 'x')).toBe(
      `prompt layer "plan" is ${MAX_LAYER_BYTES + 1} bytes, over the limit of ${MAX_LAYER_BYTES}`,
    );
    expect(layerProblem(LAYERS, 'plan', null)).toBeUndefined();
  });

  it('applies in order (last wins), clears with null or empty text, skips undeclared names, keeps declared order', () => {
    const v = applyLayerUpdates(
      undefined,
      LAYERS,
      [
        { name: 'plan', value: 'a' },
        { name: 'memory', value: 'm' },
        { name: 'plan', value: 'b' },
        { name: 'notes', value: 'x' },
      ],
      'tool',
      2,
    );
    expect(v).toEqual({ memory: { value: 'm', source: 'tool', setAtStep: 2 }, plan: { value: 'b', source: 'tool', setAtStep: 2 } });
    expect(Object.keys(v!)).toEqual(['memory', 'plan']);
    expect(
      applyLayerUpdates(
        v,
        LAYERS,
        [
          { name: 'plan', value: null },
          { name: 'memory', value: '' },
        ],
        'message',
        3,
      ),
    ).toEqual({});
    expect(applyLayerUpdates(v, LAYERS, [], 'tool', 3)).toBe(v);
  });

  it('a step’s tool calls apply in the model’s call order, whatever order they completed in; from the next call on', () => {
    const s0 = startLoop(spec, 'go');
    const t1 = applyModelStep(s0, spec, modelStep([use('c1', 'write'), use('c2', 'write')]));
    expect(t1.next.type).toBe('run_tools');
    const plan = (t1.next as { plan: Parameters<typeof applyToolOutcomes>[1] }).plan;
    const outcomes = [
      ok('c2', 'write', 'r2', { context: [{ name: 'plan', value: 'second' }] }),
      ok('c1', 'write', 'r1', {
        context: [
          { name: 'plan', value: 'first' },
          { name: 'memory', value: 'kept' },
        ],
      }),
    ];
    const t2 = applyToolOutcomes(t1.state, plan, outcomes, spec);
    expect(t2.state.layers).toEqual({
      memory: { value: 'kept', source: 'tool', setAtStep: 1 },
      plan: { value: 'second', source: 'tool', setAtStep: 1 },
    });
    expect(layersInput(spec, t2.state)).toEqual({
      layers: [
        { name: 'memory', stable: true, value: 'kept' },
        { name: 'plan', stable: false, value: 'second' },
        { name: 'facts', stable: false, computed: true },
      ],
    });
    // Without layers in the spec, model call inputs stay as they were.
    expect(layersInput(agentSpec(), t2.state)).toEqual({});
  });

  it('messages set layers when they join the conversation; function values come with the model step', () => {
    const s0 = startLoop(spec, 'go');
    const t1 = applyUserMessages(s0, [{ message: { text: 'hi', context: { memory: 'Ada', plan: 'greet' } }, via: 'update' }], spec);
    expect(t1.state.layers).toEqual({
      memory: { value: 'Ada', source: 'message', setAtStep: 0 },
      plan: { value: 'greet', source: 'message', setAtStep: 0 },
    });
    const t2 = applyModelStep(t1.state, spec, { ...modelStep([]), layers: { facts: 'f1', plan: null } });
    expect(t2.state.layers).toEqual({
      memory: { value: 'Ada', source: 'message', setAtStep: 0 },
      facts: { value: 'f1', source: 'function', setAtStep: 1 },
    });
  });

  it('layers survive continue-as-new and are in the report (never their text)', () => {
    const s0 = { ...startLoop(spec, 'go'), stored: 1, layers: { plan: { value: 'ship', source: 'tool' as const, setAtStep: 2 } } };
    expect(carriedState(s0, 1024).layers).toEqual(s0.layers);
    const result = finishRun(s0, 'success', meta);
    expect(result.report.layers).toEqual([{ name: 'plan', source: 'tool', setAtStep: 2, bytes: 4, hash: fnv1a('ship') }]);
    expect(finishRun(startLoop(spec, 'go'), 'success', meta).report).not.toHaveProperty('layers');
    // `durable-agent report`: one compact line.
    expect(formatReport(result, stylesFor({ isTTY: false }))).toContain(`  prompt layers:  plan (tool, step 2, 4 B, ${fnv1a('ship')})`);
    expect(formatReport(finishRun(startLoop(spec, 'go'), 'success', meta), stylesFor({ isTTY: false })).join('\n')).not.toContain(
      'prompt layers',
    );
    expect(fnv1a('')).toBe('811c9dc5');
    expect(fnv1a('a')).toBe('e40c292c');
  });

  it('messages carry layer texts by name: strings or null, each within the limit', () => {
    expect(parseUserMessage({ text: 'hi', context: { plan: 'p', memory: null } })).toEqual({
      ok: true,
      value: { text: 'hi', context: { plan: 'p', memory: null } },
    });
    expect(parseUserMessage({ text: 'hi', context: ['p'] })).toEqual({
      ok: false,
      error: 'malformed message: context must be an object of layer texts by name',
    });
    expect(parseUserMessage({ text: 'hi', context: { plan: 3 } })).toEqual({
      ok: false,
      error: 'malformed message: context.plan must be a string or null',
    });
  });
});

describe('composing the system prompt', () => {
  const inputs = layerInputs(LAYERS, {
    memory: { value: 'Ada', source: 'tool', setAtStep: 1 },
    plan: { value: 'ship', source: 'tool', setAtStep: 1 },
  });

  it('base text and stable layers, then the breakpoint, then dynamic layers; computed values replace recorded ones', () => {
    const composed = composeSystem('Base.', inputs, { facts: 'f' });
    expect(composed.systemParts).toEqual([
      { text: 'Base.\n\n<memory>\nAda\n</memory>', cacheBreakpoint: true },
      { text: '<plan>\nship\n</plan>\n\n<facts>\nf\n</facts>' },
    ]);
    expect(composed.system).toBe('Base.\n\n<memory>\nAda\n</memory>\n\n<plan>\nship\n</plan>\n\n<facts>\nf\n</facts>');
    expect(composeSystem('Base.', inputs, { plan: null }).systemParts).toEqual([
      { text: 'Base.\n\n<memory>\nAda\n</memory>', cacheBreakpoint: true },
    ]);
    expect(composeSystem(undefined, layerInputs(LAYERS, undefined))).toEqual({});
    expect(composeSystem('Base.', undefined)).toEqual({});
  });

  it('Anthropic: one block per part, cache_control on the stable one; four breakpoints in all', () => {
    const tools = [{ name: 't', description: 'd', inputSchema: { type: 'object' } }];
    const messages = [
      { role: 'user' as const, content: [{ type: 'text' as const, text: 'a' }] },
      { role: 'assistant' as const, content: [{ type: 'text' as const, text: 'b' }] },
      { role: 'user' as const, content: [{ type: 'text' as const, text: 'c' }] },
    ];
    const params = anthropicParams(
      { model: 'm', maxTokens: 100, tools, messages, ...composeSystem('Base.', inputs) },
      { promptCaching: true },
    );
    expect(params.system).toEqual([
      { type: 'text', text: 'Base.\n\n<memory>\nAda\n</memory>', cache_control: { type: 'ephemeral' } },
      { type: 'text', text: '<plan>\nship\n</plan>' },
    ]);
    expect(JSON.stringify(params).split('cache_control').length - 1).toBe(4);
    const plain = anthropicParams(
      { model: 'm', maxTokens: 100, tools, messages, ...composeSystem('Base.', inputs) },
      { promptCaching: false },
    );
    expect(JSON.stringify(plain)).not.toContain('cache_control');
  });

  it('OpenAI-compatible: one system message, stable layers first; AI SDK: system parts, cacheControl on the stable one', () => {
    const composed = composeSystem('Base.', inputs);
    expect(toOpenAIMessages(composed.system, [])).toEqual([
      { role: 'system', content: 'Base.\n\n<memory>\nAda\n</memory>\n\n<plan>\nship\n</plan>' },
    ]);
    expect(toAiSdkPrompt(composed.system, [], composed.systemParts)).toEqual([
      {
        role: 'system',
        content: 'Base.\n\n<memory>\nAda\n</memory>',
        providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } },
      },
      { role: 'system', content: '<plan>\nship\n</plan>' },
    ]);
  });
});
