/** Declaring tools and agents, and their data form (agents/define.ts, agents/registry.ts). */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Tool, ToolInputSchema } from '../../agents/define';
import { DEFAULTS, defineAgent, defineTool, retrySpec } from '../../agents/define';
import { AgentRegistry, agentSpec, promptSpec, toolSpec, UnknownAgentError } from '../../agents/registry';

const MODEL = { provider: 'scripted', model: 'm' };

function tool(name: string, extra: Partial<Parameters<typeof defineTool>[0]> = {}): Tool {
  return defineTool({ name, description: `the ${name} tool`, input: z.object({}), execute: () => 'ok', ...extra });
}

describe('defineTool', () => {
  it('turns the zod input into a JSON Schema object without $schema', () => {
    const t = defineTool({
      name: 'search',
      description: 'Search the docs',
      input: z.object({
        query: z.string().describe('What to look for'),
        limit: z.number().int().optional(),
        tags: z.array(z.string()).default([]),
      }),
      execute: ({ query }) => query,
    });
    expect(t.kind).toBe('tool');
    expect(t.inputSchema).not.toHaveProperty('$schema');
    expect(t.inputSchema.type).toBe('object');
    expect(t.inputSchema.properties).toMatchObject({
      query: { type: 'string', description: 'What to look for' },
      limit: { type: 'integer' },
      tags: { type: 'array', items: { type: 'string' } },
    });
    // Input shape: fields with defaults are optional for the model.
    expect(t.inputSchema.required).toEqual(['query']);
    expect(Object.isFrozen(t)).toBe(true);
  });

  it('accepts names of 1-64 letters, digits, _ and -', () => {
    for (const name of ['a', 'get_user-2', 'X'.repeat(64)]) expect(tool(name).name).toBe(name);
  });

  it('rejects bad names', () => {
    for (const name of ['', 'has space', 'dotted.name', 'slash/name', 'é', 'x'.repeat(65)]) {
      expect(() => tool(name), JSON.stringify(name)).toThrow(/tool name .* must be 1-64 letters/);
    }
  });

  it('rejects a missing or blank description', () => {
    expect(() => tool('t', { description: '' })).toThrow(/needs a description/);
    expect(() => tool('t', { description: '   ' })).toThrow(/needs a description/);
  });

  it('rejects an input that is not a zod object', () => {
    for (const input of [z.string(), z.array(z.string()), { type: 'object' }]) {
      expect(() => tool('t', { input: input as unknown as ToolInputSchema })).toThrow(/input must be a z\.object/);
    }
  });
});

describe('defineAgent', () => {
  it('defaults tools to none', () => {
    const a = defineAgent({ name: 'a', model: MODEL });
    expect(a.kind).toBe('agent');
    expect(a.tools).toEqual([]);
  });

  it('rejects two tools with the same name', () => {
    expect(() => defineAgent({ name: 'a', model: MODEL, tools: [tool('x'), tool('y'), tool('x')] })).toThrow(/two tools named "x"/);
  });

  it('rejects a step cap that is not a positive integer', () => {
    for (const maxSteps of [0, -1, 1.5, Number.NaN]) {
      expect(() => defineAgent({ name: 'a', model: MODEL, maxSteps }), String(maxSteps)).toThrow(/maxSteps must be a positive integer/);
    }
    expect(defineAgent({ name: 'a', model: MODEL, maxSteps: 1 }).maxSteps).toBe(1);
  });

  it('rejects bad names and incomplete models', () => {
    expect(() => defineAgent({ name: 'my agent', model: MODEL })).toThrow(/agent name/);
    expect(() => defineAgent({ name: 'a', model: { provider: '', model: 'm' } })).toThrow(/every model needs a provider and a model/);
    expect(() => defineAgent({ name: 'a', model: MODEL, fallbackModels: [{ provider: 'p', model: '' }] })).toThrow(/every model needs/);
  });
});

describe('toolSpec', () => {
  it('applies defaults', () => {
    expect(toolSpec(tool('t'))).toEqual({
      name: 't',
      description: 'the t tool',
      inputSchema: tool('t').inputSchema,
      readOnly: false,
      timeoutMs: 5 * 60_000,
      heartbeatTimeoutMs: 30_000,
      retry: { maximumAttempts: 3, initialIntervalMs: 1000, backoffCoefficient: 2, maximumIntervalMs: 30_000 },
      onError: 'report',
    });
  });

  it('parses durations and keeps the heartbeat within a short timeout', () => {
    expect(toolSpec(tool('t', { timeout: '30s' }))).toMatchObject({ timeoutMs: 30_000, heartbeatTimeoutMs: 30_000 });
    expect(toolSpec(tool('t', { timeout: '10s' }))).toMatchObject({ timeoutMs: 10_000, heartbeatTimeoutMs: 10_000 });
    expect(toolSpec(tool('t', { timeout: '2m', heartbeatTimeout: '5s' }))).toMatchObject({ timeoutMs: 120_000, heartbeatTimeoutMs: 5_000 });
    expect(toolSpec(tool('t', { timeout: 1500 }))).toMatchObject({ timeoutMs: 1500, heartbeatTimeoutMs: 1500 });
  });

  it('maps retry options, keeping defaults for what is not given', () => {
    const spec = toolSpec(tool('t', { retry: { maximumAttempts: 5, initialInterval: '2s', maximumInterval: '1m', backoffCoefficient: 3 } }));
    expect(spec.retry).toEqual({ maximumAttempts: 5, initialIntervalMs: 2000, backoffCoefficient: 3, maximumIntervalMs: 60_000 });
    expect(toolSpec(tool('t', { retry: { maximumAttempts: 1 } })).retry).toEqual({ ...retrySpec(undefined, DEFAULTS.toolRetry), maximumAttempts: 1 });
  });

  it('carries readOnly and the error policy', () => {
    expect(toolSpec(tool('t', { readOnly: true, onError: 'fail' }))).toMatchObject({ readOnly: true, onError: 'fail' });
  });
});

describe('agentSpec and promptSpec', () => {
  const agent = defineAgent({
    name: 'helper',
    model: { provider: 'anthropic', model: 'big', maxTokens: 1000, temperature: 0.2 },
    fallbackModels: [{ provider: 'scripted', model: 'small' }],
    system: 'Be brief.',
    tools: [tool('read', { readOnly: true }), tool('write')],
  });

  it('applies defaults', () => {
    const spec = agentSpec(defineAgent({ name: 'plain', model: MODEL }), 'sha256-p');
    expect(spec).toEqual({
      name: 'plain',
      models: [{ ...MODEL, maxTokens: 8192 }],
      tools: [],
      limits: { maxSteps: 25, toolResultInlineBytes: 16 * 1024, resultMessagesInlineBytes: 256 * 1024 },
      modelRetry: { maximumAttempts: 6, initialIntervalMs: 1000, backoffCoefficient: 2, maximumIntervalMs: 60_000 },
      modelTimeoutMs: 10 * 60_000,
      modelHeartbeatTimeoutMs: 60_000,
      promptRef: 'sha256-p',
    });
  });

  it('lists the primary model then the fallbacks, each with maxTokens', () => {
    expect(agentSpec(agent, 'r').models).toEqual([
      { provider: 'anthropic', model: 'big', maxTokens: 1000, temperature: 0.2 },
      { provider: 'scripted', model: 'small', maxTokens: 8192 },
    ]);
    expect(agentSpec(agent, 'r').tools.map((t) => [t.name, t.readOnly])).toEqual([
      ['read', true],
      ['write', false],
    ]);
  });

  it('maps limits, model retry and durations', () => {
    const spec = agentSpec(
      defineAgent({
        name: 'tuned',
        model: MODEL,
        maxSteps: 7,
        toolResultInlineBytes: 100,
        resultMessagesInlineBytes: 5000,
        modelRetry: { maximumAttempts: 2, maximumInterval: '10s' },
        modelTimeout: '2m',
        modelHeartbeatTimeout: '15s',
      }),
      'r',
    );
    expect(spec).toMatchObject({
      limits: { maxSteps: 7, toolResultInlineBytes: 100, resultMessagesInlineBytes: 5000 },
      modelRetry: { maximumAttempts: 2, initialIntervalMs: 1000, backoffCoefficient: 2, maximumIntervalMs: 10_000 },
      modelTimeoutMs: 120_000,
      modelHeartbeatTimeoutMs: 15_000,
    });
  });

  it('gives the model the system text and tool schemas only', () => {
    expect(promptSpec(agent)).toEqual({
      system: 'Be brief.',
      tools: agent.tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema })),
    });
    expect(promptSpec(defineAgent({ name: 'x', model: MODEL }))).toEqual({ tools: [] });
  });
});

describe('AgentRegistry', () => {
  const a = defineAgent({ name: 'alpha', model: MODEL, tools: [tool('read')] });
  const b = defineAgent({ name: 'beta', model: MODEL });

  it('finds agents and their tools by name', () => {
    const registry = new AgentRegistry([a, b]);
    expect(registry.names()).toEqual(['alpha', 'beta']);
    expect(registry.get('beta')).toBe(b);
    expect(registry.tool('alpha', 'read')?.name).toBe('read');
    expect(registry.tool('alpha', 'write')).toBeUndefined();
  });

  it('names the known agents when asked for an unknown one', () => {
    const registry = new AgentRegistry([a, b]);
    expect(() => registry.get('gamma')).toThrow(UnknownAgentError);
    expect(() => registry.get('gamma')).toThrow('Unknown agent "gamma". Agents on this worker: alpha, beta.');
    expect(() => registry.tool('gamma', 'read')).toThrow(/Unknown agent "gamma"/);
    expect(() => new AgentRegistry([]).get('x')).toThrow('Unknown agent "x". Agents on this worker: (none).');
  });

  it('rejects two agents with the same name', () => {
    expect(() => new AgentRegistry([a, b, a])).toThrow(/two agents named "alpha"/);
  });
});
