/** Declaring tools and agents, and their data form (agents/define.ts, agents/registry.ts). */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Agent, AnyTool, BudgetOptions, Tool, ToolInputSchema } from '../../src/agents/define';
import { DEFAULTS, defineAgent, defineTool, MAX_TOOL_RESULT_INLINE_BYTES, retrySpec, ToolError } from '../../src/agents/define';
import { AgentRegistry, agentSpec, promptSpec, toolSpec, UnknownAgentError } from '../../src/agents/registry';
import { gateFor } from '../../src/core/approvals/approvals';
import { DefinitionError, DurableAgentError, isDurableAgentError } from '../../src/core/run/errors';
import { BlobNotFoundError, blobRef, MemoryBlobStore } from '../../src/integrations/store/blob-store';
import { createWorker } from '../../src/worker';

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

  it('checks atMostOnce: a boolean, never with readOnly, and carried into the spec', () => {
    expect(() => tool('t', { atMostOnce: 'yes' as unknown as boolean })).toThrow(/atMostOnce must be true or false/);
    expect(() => tool('t', { atMostOnce: true, readOnly: true })).toThrow(/both readOnly and atMostOnce/);
    expect(toolSpec(tool('t', { atMostOnce: true }))).toMatchObject({ atMostOnce: true });
    expect(toolSpec(tool('t', { atMostOnce: false }))).not.toHaveProperty('atMostOnce');
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
      heartbeatTimeoutMs: 3_000,
      retry: { maximumAttempts: 3, initialIntervalMs: 1000, backoffCoefficient: 2, maximumIntervalMs: 30_000 },
      onError: 'report',
    });
  });

  it('parses durations and keeps the heartbeat within a short timeout', () => {
    expect(toolSpec(tool('t', { timeout: '30s' }))).toMatchObject({ timeoutMs: 30_000, heartbeatTimeoutMs: 3_000 });
    expect(toolSpec(tool('t', { timeout: '2s' }))).toMatchObject({ timeoutMs: 2_000, heartbeatTimeoutMs: 2_000 });
    expect(toolSpec(tool('t', { timeout: '2m', heartbeatTimeout: '5s' }))).toMatchObject({ timeoutMs: 120_000, heartbeatTimeoutMs: 5_000 });
    expect(toolSpec(tool('t', { timeout: 1500 }))).toMatchObject({ timeoutMs: 1500, heartbeatTimeoutMs: 1500 });
  });

  it('maps retry options, keeping defaults for what is not given', () => {
    const spec = toolSpec(
      tool('t', { retry: { maximumAttempts: 5, initialInterval: '2s', maximumInterval: '1m', backoffCoefficient: 3 } }),
    );
    expect(spec.retry).toEqual({ maximumAttempts: 5, initialIntervalMs: 2000, backoffCoefficient: 3, maximumIntervalMs: 60_000 });
    expect(toolSpec(tool('t', { retry: { maximumAttempts: 1 } })).retry).toEqual({
      ...retrySpec(undefined, DEFAULTS.toolRetry),
      maximumAttempts: 1,
    });
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
      modelHeartbeatTimeoutMs: 3_000,
      promptRef: 'sha256-p',
      context: { compactAt: 0.8, keepRecentTokens: 20_000, keepToolResults: 10, summarize: true },
    });
  });

  it("resolves the context window: the agent's own, else the worker's table by model id (dated ids and vendor prefixes too)", () => {
    expect(
      agentSpec(defineAgent({ name: 'a', model: { provider: 'anthropic', model: 'claude-sonnet-4-5-20250929' } }), 'r').context,
    ).toEqual({
      windowTokens: 200_000,
      compactAt: 0.8,
      keepRecentTokens: 50_000,
      keepToolResults: 10,
      summarize: true,
    });
    expect(
      agentSpec(defineAgent({ name: 'a', model: { provider: 'openai', model: 'openai/gpt-4o-mini' } }), 'r').context?.windowTokens,
    ).toBe(128_000);
    expect(agentSpec(defineAgent({ name: 'a', model: MODEL }), 'r', false, { m: 4096 }).context?.windowTokens).toBe(4096);
    const own = defineAgent({
      name: 'a',
      model: MODEL,
      context: {
        windowTokens: 8000,
        compactAt: 0.5,
        keepRecentTokens: 1000,
        keepToolResults: 0,
        summarize: false,
        summaryModel: { provider: 'scripted', model: 'cheap' },
        summaryPrompt: 'Be short.',
      },
    });
    expect(agentSpec(own, 'r', false, { m: 4096 }).context).toEqual({
      windowTokens: 8000,
      compactAt: 0.5,
      keepRecentTokens: 1000,
      keepToolResults: 0,
      summarize: false,
      summaryModel: { provider: 'scripted', model: 'cheap', maxTokens: 8192 },
      summaryPrompt: 'Be short.',
    });
  });

  it('raises the output limit after a recovery only when recoveries are on', () => {
    expect(
      agentSpec(defineAgent({ name: 'a', model: MODEL, maxTokensRecoveries: 2, recoveryMaxTokens: 32_000 }), 'r').limits,
    ).toMatchObject({ maxTokensRecoveries: 2, recoveryMaxTokens: 32_000 });
    expect(() => defineAgent({ name: 'a', model: MODEL, recoveryMaxTokens: 32_000 })).toThrow(
      /recoveryMaxTokens raises the output limit .* set maxTokensRecoveries too/,
    );
    expect(() => defineAgent({ name: 'a', model: MODEL, maxTokensRecoveries: 1, recoveryMaxTokens: -5 })).toThrow(/recoveryMaxTokens/);
  });

  it('refuses malformed context options, naming each', () => {
    const bad = (context: unknown) => () => defineAgent({ name: 'a', model: MODEL, context: context as never });
    expect(bad(5)).toThrow(/agent "a": context must be an object/);
    expect(bad({ window: 5 })).toThrow(/unknown option "window"/);
    expect(bad({ windowTokens: 10 })).toThrow(/context.windowTokens must be an integer of at least 256, got 10/);
    expect(bad({ compactAt: 1.5 })).toThrow(/compactAt must be a fraction of the window in \(0, 1\]/);
    expect(bad({ keepToolResults: -1 })).toThrow(/keepToolResults must be an integer of at least 0/);
    expect(bad({ summarize: 'yes' })).toThrow(/summarize must be true or false/);
    expect(bad({ summaryModel: { provider: 'x' } })).toThrow(/summaryModel needs a provider and a model/);
    expect(bad({ summaryPrompt: ' ' })).toThrow(/summaryPrompt must be a non-empty string/);
    expect(bad({ windowTokens: 1000, keepRecentTokens: 900 })).toThrow(
      /keepRecentTokens \(900\) must be less than compactAt × windowTokens \(800\)/,
    );
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

describe('approval settings', () => {
  it('naming approvers alone means every call asks them', () => {
    expect(toolSpec(tool('t', { approvers: ['ops:alice'] })).approval).toEqual({
      mode: 'always',
      approvers: ['ops:alice'],
      onTimeout: 'deny',
    });
    expect(toolSpec(tool('t', { approvers: ['ops:alice'], approvalTimeout: '1m', onApprovalTimeout: 'fail' })).approval).toEqual({
      mode: 'always',
      approvers: ['ops:alice'],
      timeoutMs: 60_000,
      onTimeout: 'fail',
    });
  });

  it('keeps a predicate conditional when approvers are named too, and needs nothing without settings', () => {
    expect(toolSpec(tool('t', { needsApproval: () => true, approvers: ['ops:alice'] })).approval).toMatchObject({
      mode: 'conditional',
      approvers: ['ops:alice'],
    });
    expect(toolSpec(tool('t', { needsApproval: true })).approval).toEqual({ mode: 'always', onTimeout: 'deny' });
    expect(toolSpec(tool('t')).approval).toBeUndefined();
    expect(toolSpec(tool('t', { needsApproval: false })).approval).toBeUndefined();
  });

  it('no run policy waives named approvers; it may waive a tool that names none', () => {
    const named = toolSpec(tool('t', { approvers: ['ops:alice'] })).approval;
    const anyone = toolSpec(tool('t', { needsApproval: true })).approval;
    for (const policy of [{ t: 'allow' }, { '*': 'allow' }] as const) {
      expect(gateFor('t', named, policy, new Set())).toEqual({ kind: 'ask' });
      expect(gateFor('t', anyone, policy, new Set())).toEqual({ kind: 'run', why: 'run_policy' });
    }
    expect(gateFor('t', named, { '*': 'ask' }, new Set())).toEqual({ kind: 'ask' });
    expect(gateFor('t', named, undefined, new Set())).toEqual({ kind: 'ask' });
  });

  it('refuses needsApproval: false together with approval settings', () => {
    for (const extra of [{ approvers: ['ops:alice'] }, { approvalTimeout: '1m' }, { onApprovalTimeout: 'fail' as const }]) {
      const err = catchError(() => tool('t', { needsApproval: false, ...extra }));
      expect(err, JSON.stringify(extra)).toBeInstanceOf(DefinitionError);
      expect((err as Error).message).toMatch(
        /^tool "t": needsApproval is false but (approvers|approvalTimeout|onApprovalTimeout) is set: remove needsApproval/,
      );
    }
  });

  it('refuses a timeout with nothing to approve', () => {
    expect(() => tool('t', { approvalTimeout: '1m' })).toThrow(
      'tool "t": approvalTimeout does nothing without approval: set needsApproval (true or a predicate) or approvers, or remove it',
    );
    expect(() => tool('t', { onApprovalTimeout: 'deny' })).toThrow(/onApprovalTimeout does nothing without approval/);
    expect(() => tool('t', { approvalTimeout: '1m', onApprovalTimeout: 'deny' })).toThrow(
      /approvalTimeout and onApprovalTimeout do nothing/,
    );
  });

  it('refuses malformed approval settings', () => {
    expect(() => tool('t', { approvers: [] })).toThrow(/approvers must be a non-empty list of non-empty strings/);
    expect(() => tool('t', { approvers: ['ops:alice', ' '] })).toThrow(/approvers must be a non-empty list/);
    expect(() => tool('t', { needsApproval: true, approvalTimeout: 'soon' })).toThrow(/approvalTimeout must be a positive duration/);
    expect(() => tool('t', { needsApproval: true, approvalTimeout: 0 })).toThrow(/approvalTimeout must be a positive duration/);
    expect(() => tool('t', { needsApproval: true, onApprovalTimeout: 'retry' as 'deny' })).toThrow(
      /onApprovalTimeout must be "deny" or "fail"/,
    );
    expect(() => tool('t', { needsApproval: 'yes' as unknown as boolean })).toThrow(/needsApproval must be true, false or a predicate/);
  });
});

describe('other tool options', () => {
  it('refuses malformed timeouts, retries and policies', () => {
    expect(() => tool('t', { timeout: '-1s' })).toThrow(/tool "t": timeout must be a positive duration/);
    expect(() => tool('t', { heartbeatTimeout: 'often' })).toThrow(/heartbeatTimeout must be a positive duration/);
    expect(() => tool('t', { retry: { maximumAttempts: 0 } })).toThrow(/retry\.maximumAttempts must be a positive integer/);
    expect(() => tool('t', { retry: { backoffCoefficient: 0.5 } })).toThrow(/retry\.backoffCoefficient must be a number of at least 1/);
    expect(() => tool('t', { onError: 'ignore' as 'report' })).toThrow(/onError must be "report" or "fail"/);
    expect(() => tool('t', { readOnly: 'yes' as unknown as boolean })).toThrow(/readOnly must be true or false/);
  });
});

/** A tool made by hand, not by defineTool. */
function handMade(fields: Record<string, unknown> = {}): AnyTool {
  return {
    name: 'lookup',
    description: 'Look something up',
    input: z.object({ key: z.string() }),
    execute: () => 'ok',
    ...fields,
  } as unknown as AnyTool;
}

describe('tools made by hand', () => {
  const cases: Array<[string, unknown, RegExp]> = [
    [
      'a JSON Schema as input',
      handMade({ input: { type: 'object', properties: {} } }),
      /^agent "shop", tool "lookup": input must be a z\.object\(\{ \.\.\. \}\) schema from zod, got a plain object\. Declare tools with defineTool/,
    ],
    [
      'a zod string as input',
      handMade({ input: z.string() }),
      /^agent "shop", tool "lookup": input must be a z\.object.*got a zod string schema/,
    ],
    [
      'no execute',
      handMade({ execute: undefined }),
      /^agent "shop", tool "lookup": execute must be a function .*got undefined\. Declare tools with defineTool/,
    ],
    ['no description', handMade({ description: undefined }), /^agent "shop", tool "lookup" needs a description/],
    ['a bad name', handMade({ name: 'look up' }), /^agent "shop", tool name "look up" must be 1-64 letters/],
    [
      'a malformed inputSchema',
      handMade({ inputSchema: 'object' }),
      /^agent "shop", tool "lookup": inputSchema must be the JSON Schema of an object/,
    ],
    ['a string', 'lookup', /^agent "shop", tools\[0\] is not a tool \(got the string "lookup"\)\. Declare tools with defineTool/],
    ['null', null, /^agent "shop", tools\[0\] is not a tool \(got null\)/],
    ['an agent', defineAgent({ name: 'inner', model: MODEL }), /^agent "shop", tool "inner" is an agent, not a tool/],
  ];

  it.each(cases)('defineAgent refuses a tool with %s', (_what, bad, message) => {
    const err = catchError(() => defineAgent({ name: 'shop', model: MODEL, tools: [bad as AnyTool] }));
    expect(err).toBeInstanceOf(DefinitionError);
    expect((err as DefinitionError).code).toBe('invalid_definition');
    expect((err as Error).message).toMatch(message);
  });

  it.each(cases)('new AgentRegistry (createWorker) refuses an agent made by hand with a tool with %s', (_what, bad, message) => {
    const agent = { ...defineAgent({ name: 'shop', model: MODEL }), tools: [bad] } as unknown as Agent;
    const err = catchError(() => new AgentRegistry([agent]));
    expect(err).toBeInstanceOf(DefinitionError);
    expect((err as Error).message).toMatch(message);
  });

  it('accepts a well-formed tool made by hand and completes it as defineTool would', () => {
    const agent = defineAgent({ name: 'shop', model: MODEL, tools: [handMade()] });
    const [t] = agent.tools;
    expect(t).toMatchObject({ kind: 'tool', name: 'lookup', inputSchema: defineTool(handMade() as Tool).inputSchema });
    expect(Object.isFrozen(t)).toBe(true);
    const registry = new AgentRegistry([{ ...defineAgent({ name: 'other', model: MODEL }), tools: [handMade()] } as unknown as Agent]);
    expect(registry.tool('other', 'lookup')?.inputSchema).toEqual(t!.inputSchema);
  });

  it('says so when the input is a zod object from another copy of zod', () => {
    const foreign = { _zod: { def: { type: 'object', shape: {} } } };
    expect(() => defineAgent({ name: 'shop', model: MODEL, tools: [handMade({ input: foreign })] })).toThrow(
      'agent "shop", tool "lookup": input is a zod object schema from another copy of zod; install a single zod 4 so durable-agent and your tools share it',
    );
  });

  it('applies the approval rules to tools made by hand too', () => {
    expect(() =>
      defineAgent({ name: 'shop', model: MODEL, tools: [handMade({ needsApproval: false, approvers: ['ops:alice'] })] }),
    ).toThrow(/^agent "shop", tool "lookup": needsApproval is false but approvers is set/);
  });
});

describe('agents given to a worker', () => {
  const good = defineAgent({ name: 'good', model: MODEL, tools: [tool('read')] });

  it('keeps agents made by defineAgent as they are', () => {
    expect(new AgentRegistry([good]).get('good')).toBe(good);
  });

  it.each<[string, unknown, RegExp]>([
    ['a tool', tool('read'), /^agents\[1\] is not an agent \(got a tool named "read"\)\. Declare agents with defineAgent/],
    ['a string', 'good', /^agents\[1\] is not an agent \(got the string "good"\)/],
    ['an agent config not passed to defineAgent', { name: 'raw', model: MODEL }, /^agents\[1\] is not an agent \(got a plain object\)/],
    ['undefined', undefined, /^agents\[1\] is not an agent \(got undefined\)/],
  ])('refuses %s', (_what, bad, message) => {
    const err = catchError(() => new AgentRegistry([good, bad as Agent]));
    expect(err).toBeInstanceOf(DefinitionError);
    expect((err as Error).message).toMatch(message);
  });

  it('createWorker refuses a non-agent before connecting anywhere', async () => {
    const err = await createWorker({ agents: [tool('read') as unknown as Agent], address: '127.0.0.1:1' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DefinitionError);
    expect((err as Error).message).toMatch(/^agents\[0\] is not an agent/);
  });

  it('refuses an agent made by hand with an inline limit over the payload-safe maximum', () => {
    const agent = { ...good, toolResultInlineBytes: 4 * 1024 * 1024 } as Agent;
    expect(() => new AgentRegistry([agent])).toThrow(/^agent "good": toolResultInlineBytes must be at most 262144/);
  });
});

describe('agent limits', () => {
  it('refuses an inline limit that is not a positive integer or over the maximum', () => {
    for (const toolResultInlineBytes of [0, -5, 1.5, Number.NaN, MAX_TOOL_RESULT_INLINE_BYTES + 1, 4 * 1024 * 1024]) {
      const err = catchError(() => defineAgent({ name: 'a', model: MODEL, toolResultInlineBytes }));
      expect(err, String(toolResultInlineBytes)).toBeInstanceOf(DefinitionError);
      expect((err as Error).message, String(toolResultInlineBytes)).toMatch(
        /^agent "a": toolResultInlineBytes must be (a positive integer|at most 262144)/,
      );
    }
    expect(defineAgent({ name: 'a', model: MODEL, toolResultInlineBytes: MAX_TOOL_RESULT_INLINE_BYTES }).toolResultInlineBytes).toBe(
      MAX_TOOL_RESULT_INLINE_BYTES,
    );
    expect(MAX_TOOL_RESULT_INLINE_BYTES).toBeLessThanOrEqual(256 * 1024);
  });

  it('refuses malformed result limits, model retries and timeouts', () => {
    expect(() => defineAgent({ name: 'a', model: MODEL, resultMessagesInlineBytes: 0 })).toThrow(
      /resultMessagesInlineBytes must be a positive integer/,
    );
    expect(() => defineAgent({ name: 'a', model: MODEL, modelRetry: { maximumAttempts: 0 } })).toThrow(
      /agent "a": modelRetry\.maximumAttempts must be a positive integer/,
    );
    expect(() => defineAgent({ name: 'a', model: MODEL, modelTimeout: 'forever' })).toThrow(
      /agent "a": modelTimeout must be a positive duration/,
    );
  });

  it('refuses tools that are not an array', () => {
    expect(() => defineAgent({ name: 'a', model: MODEL, tools: tool('x') as unknown as AnyTool[] })).toThrow(
      /^agent "a": tools must be an array of tools, got a tool named "x"/,
    );
  });
});

describe('agent budgets', () => {
  it('carries the budget into the spec, the timeout in milliseconds', () => {
    const spec = agentSpec(
      defineAgent({ name: 'a', model: MODEL, budget: { maxTokens: 50_000, maxCostUsd: 0.75, timeout: '30m', maxTurns: 4 } }),
      'r',
    );
    expect(spec.budget).toEqual({ maxTokens: 50_000, maxCostUsd: 0.75, timeoutMs: 30 * 60_000, maxTurns: 4 });
    expect(agentSpec(defineAgent({ name: 'a', model: MODEL, budget: { timeout: 1500 } }), 'r').budget).toEqual({ timeoutMs: 1500 });
    expect(agentSpec(defineAgent({ name: 'a', model: MODEL, budget: { timeout: '1.5ms' } }), 'r').budget).toEqual({ timeoutMs: 2 });
  });

  it('leaves the spec as it was when the agent sets no limit', () => {
    expect(agentSpec(defineAgent({ name: 'a', model: MODEL }), 'r')).not.toHaveProperty('budget');
    expect(agentSpec(defineAgent({ name: 'a', model: MODEL, budget: {} }), 'r')).not.toHaveProperty('budget');
    expect(agentSpec(defineAgent({ name: 'a', model: MODEL, budget: { maxTokens: undefined } }), 'r')).not.toHaveProperty('budget');
  });

  it('refuses malformed limits, naming the agent and the field', () => {
    const cases: Array<[unknown, RegExp]> = [
      [{ maxTokens: 0 }, /^agent "a": budget\.maxTokens must be a positive integer/],
      [{ maxTokens: 10.5 }, /^agent "a": budget\.maxTokens must be a positive integer/],
      [{ maxCostUsd: -1 }, /^agent "a": budget\.maxCostUsd must be a positive number of US dollars/],
      [{ maxCostUsd: Number.POSITIVE_INFINITY }, /^agent "a": budget\.maxCostUsd must be a positive number/],
      [{ maxTurns: 0 }, /^agent "a": budget\.maxTurns must be a positive integer/],
      [{ timeout: 'soon' }, /^agent "a": budget\.timeout must be a positive duration \(e\.g\. "30m", "2h" or milliseconds\), got "soon"/],
      [{ timeout: 0 }, /^agent "a": budget\.timeout must be a positive duration/],
      [{ timeout: '-5m' }, /^agent "a": budget\.timeout must be a positive duration/],
      [{ timeoutMs: 1000 }, /^agent "a": budget has an unknown key "timeoutMs" \(known: maxTokens, maxCostUsd, timeout, maxTurns\)/],
      [{ maxSteps: 3 }, /^agent "a": budget has an unknown key "maxSteps"/],
      [5, /^agent "a": budget must be an object such as/],
      [null, /^agent "a": budget must be an object such as .*, got null/],
    ];
    for (const [budget, message] of cases) {
      const err = catchError(() => defineAgent({ name: 'a', model: MODEL, budget: budget as BudgetOptions }));
      expect(err, JSON.stringify(budget)).toBeInstanceOf(DefinitionError);
      expect((err as Error).message, JSON.stringify(budget)).toMatch(message);
    }
  });

  it('names every problem of a budget at once', () => {
    expect(() => defineAgent({ name: 'a', model: MODEL, budget: { maxTokens: -1, maxTurns: 0 } })).toThrow(
      /budget\.maxTokens must be .*; agent "a": budget\.maxTurns must be/,
    );
  });

  it('checks the budget of an agent made by hand given to a worker', () => {
    const agent = { ...defineAgent({ name: 'a', model: MODEL }), budget: { maxCostUsd: '2' } } as unknown as Agent;
    expect(() => new AgentRegistry([agent])).toThrow(
      /^agent "a": budget\.maxCostUsd must be a positive number of US dollars, e\.g\. 2\.5, got the string "2"/,
    );
  });
});

describe('every definition error is a DefinitionError', () => {
  it.each<[string, () => unknown]>([
    ['bad tool name', () => tool('has space')],
    ['no description', () => tool('t', { description: '' })],
    ['input not a zod object', () => tool('t', { input: z.string() as unknown as ToolInputSchema })],
    ['bad agent name', () => defineAgent({ name: 'my agent', model: MODEL })],
    ['incomplete model', () => defineAgent({ name: 'a', model: { provider: '', model: 'm' } })],
    ['two tools of one name', () => defineAgent({ name: 'a', model: MODEL, tools: [tool('x'), tool('x')] })],
    ['bad step cap', () => defineAgent({ name: 'a', model: MODEL, maxSteps: 0 })],
    ['bad budget', () => defineAgent({ name: 'a', model: MODEL, budget: { maxTokens: 0 } })],
    [
      'two agents of one name',
      () => new AgentRegistry([defineAgent({ name: 'a', model: MODEL }), defineAgent({ name: 'a', model: MODEL })]),
    ],
    ['agents not an array', () => new AgentRegistry('a' as unknown as Agent[])],
  ])('%s', (_what, define) => {
    const err = catchError(define);
    expect(err).toBeInstanceOf(DefinitionError);
    expect(err).toBeInstanceOf(DurableAgentError);
    expect((err as DefinitionError).code).toBe('invalid_definition');
  });
});

describe('error classes', () => {
  it('ToolError is a DurableAgentError with code tool_error, retryable unless told otherwise', () => {
    const err = new ToolError('gateway down', { cause: new Error('ECONNRESET') });
    expect(err).toBeInstanceOf(DurableAgentError);
    expect(err).toBeInstanceOf(Error);
    expect(isDurableAgentError(err, 'tool_error')).toBe(true);
    expect(err).toMatchObject({ name: 'ToolError', message: 'gateway down', retryable: true });
    expect((err.cause as Error).message).toBe('ECONNRESET');
    expect(new ToolError('bad input', { retryable: false }).retryable).toBe(false);
  });

  it('UnknownAgentError has code unknown_agent and keeps the name UnknownAgent', () => {
    const err = catchError(() => new AgentRegistry([]).get('x'));
    expect(err).toBeInstanceOf(UnknownAgentError);
    expect(err).toBeInstanceOf(DurableAgentError);
    expect(err).toMatchObject({ code: 'unknown_agent', name: 'UnknownAgent', agent: 'x' });
  });

  it('BlobNotFoundError has code storage_error and keeps its ref', async () => {
    const ref = blobRef('never stored');
    const err = await new MemoryBlobStore().get(ref).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BlobNotFoundError);
    expect(err).toBeInstanceOf(DurableAgentError);
    expect(err).toMatchObject({ code: 'storage_error', name: 'BlobNotFoundError', ref });
  });
});

function catchError(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected a throw');
}
