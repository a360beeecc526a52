/** Consolidate's pure rules (core/sub-agents/consolidate.ts) and the consolidate tool's definition (agents/consolidate-tool.ts). */
import { describe, expect, it } from 'vitest';
import { agentTool } from '../../src/agents/agent-tool';
import { consolidateTool } from '../../src/agents/consolidate-tool';
import { defineAgent } from '../../src/agents/define';
import { AgentRegistry, toolSpec } from '../../src/agents/registry';
import { subAgentsOf } from '../../src/agents/sub-agents';
import { startLoop } from '../../src/core/loop/state';
import type { ConsolidatedChild } from '../../src/core/sub-agents/consolidate';
import {
  aggregationPrompt,
  aggregatorWorkflowId,
  childSummaries,
  consolidatedSpend,
  consolidateSpecProblems,
  deniedTools,
  memberPrompt,
  memberWorkflowId,
} from '../../src/core/sub-agents/consolidate';
import { withChildSpend } from '../../src/core/sub-agents/sub-agent';
import { DefinitionError } from '../../src/core/run/errors';

const usage = (inputTokens: number, outputTokens: number) => ({ inputTokens, outputTokens, cacheReadTokens: 0, cacheWriteTokens: 0 });
const model = { provider: 'scripted', model: 'x' } as const;

const children: ConsolidatedChild[] = [
  {
    workflowId: 'p--call_1_0-1',
    agent: 'style',
    status: 'success',
    input: 'task',
    answer: 'Style is fine.',
    usage: usage(10, 2),
    costUsd: 0.1,
  },
  {
    workflowId: 'p--call_1_0-2',
    agent: 'facts',
    status: 'max_steps',
    input: 'task',
    error: 'Reached the step limit (1).',
    usage: usage(20, 4),
    costUsd: null,
    denied: ['lookup'],
  },
  {
    workflowId: 'p--call_1_0-3',
    agent: 'legal',
    status: 'not_run',
    input: 'task',
    error: 'workflow id taken',
    usage: usage(0, 0),
    costUsd: null,
  },
];

describe('consolidate rules', () => {
  it('gives each child its prompt from the template, and ids the same on every replay', () => {
    expect(memberPrompt({ agent: 'a' }, 'Paris')).toBe('Paris');
    expect(memberPrompt({ agent: 'a', input: 'Facts about {{input}}; then {{input}} again' }, 'Paris')).toBe(
      'Facts about Paris; then Paris again',
    );
    expect(memberWorkflowId('p--call_1_0', 0)).toBe('p--call_1_0-1');
    expect(aggregatorWorkflowId('p--call_1_0')).toBe('p--call_1_0-aggregate');
  });

  it('tells the aggregator every answer, and which agents failed, why, and what was denied, each labelled by agent', () => {
    const prompt = aggregationPrompt('Review the draft', children);
    expect(prompt).toContain('3 agents worked on this task in parallel; 1 of them answered, 2 did not.');
    expect(prompt).toContain('<task>\nReview the draft\n</task>');
    expect(prompt).toContain('<answer agent 1: "style">\nStyle is fine.\n</answer>');
    expect(prompt).toContain(
      '<failed agent 2: "facts">\nIt did not answer. "facts" (run p--call_1_0-2) ended max_steps: Reached the step limit (1)..',
    );
    expect(prompt).toContain('in agent 2 ("facts"), calls to "lookup" were denied and not run.');
    expect(prompt).toContain('"legal" (run p--call_1_0-3) could not run: workflow id taken');
  });

  it('finds the denied calls of a child report', () => {
    expect(
      deniedTools([
        { tool: 'a', isError: true, error: 'Denied by ann: no.' },
        { tool: 'b', isError: true, error: 'Tool "b" failed: boom' },
        { tool: 'c', isError: true, error: "Denied by the run's policy: ..." },
        { tool: 'a', isError: true, error: 'Denied: nobody decided' },
        { tool: 'd', isError: false },
      ]),
    ).toEqual(['a', 'c']);
  });

  it('rolls up the spend of every child that ran and of the summariser; a price of none is null', () => {
    const runs = [
      ...childSummaries(children),
      { workflowId: 'agg', agent: 'editor', status: 'success' as const, usage: usage(5, 5), costUsd: 0.05 },
    ];
    expect(runs.map((r) => r.agent)).toEqual(['style', 'facts', 'editor']);
    expect(consolidatedSpend(runs)).toEqual({ usage: usage(35, 11), costUsd: 0.15 });
    expect(consolidatedSpend([{ usage: usage(1, 1), costUsd: null }])).toEqual({ usage: usage(1, 1), costUsd: null });
    // The parent's loop counts every run of a consolidate call's outcome.
    const state = startLoop({ name: 'p', limits: { maxSteps: 3, toolResultInlineBytes: 100 } }, 'go');
    const next = withChildSpend(state, [
      {
        callId: 'call_1_0',
        tool: 'review',
        output: { type: 'text', text: 'ok' },
        isError: false,
        latencyMs: 1,
        attempts: 1,
        children: runs,
      },
    ]);
    expect(next.subAgents).toEqual({ runs: 3, usage: usage(35, 11), costUsd: 0.15 });
    expect(next.usage).toEqual(usage(35, 11));
  });

  it('checks a spec', () => {
    expect(
      consolidateSpecProblems({ agents: [{ agent: 'a' }], aggregate: { kind: 'agent', agent: 'b' }, onChildError: 'include' }, 's'),
    ).toEqual([]);
    expect(consolidateSpecProblems({ agents: [], aggregate: { kind: 'agent', agent: '' }, onChildError: 'x' as never }, 's')).toEqual([
      's.agents must list at least one agent',
      's.aggregate must be { agent } or { fn }',
      "s.onChildError must be 'include' or 'fail'",
    ]);
  });
});

describe('consolidateTool', () => {
  const leaf = defineAgent({ name: 'leaf', model });
  const style = defineAgent({ name: 'style', model, tools: [agentTool(leaf)] });
  const facts = defineAgent({ name: 'facts', model });
  const editor = defineAgent({ name: 'editor', model });

  it('records its spec (data only) and the worker serves its agents and summariser', () => {
    const tool = consolidateTool('review', {
      description: 'Review',
      agents: [style, { agent: facts, input: 'Check facts: {{input}}', budget: { maxTokens: 1000, timeout: '1m' } }],
      aggregate: { agent: editor },
    });
    expect(toolSpec(tool).consolidate).toEqual({
      agents: [{ agent: 'style' }, { agent: 'facts', input: 'Check facts: {{input}}', budget: { maxTokens: 1000, timeoutMs: 60_000 } }],
      aggregate: { kind: 'agent', agent: 'editor' },
      onChildError: 'include',
    });
    const parent = defineAgent({ name: 'boss', model, tools: [tool] });
    expect(subAgentsOf([parent]).map((a) => a.name)).toEqual(['style', 'leaf', 'facts', 'editor']);
    expect(new AgentRegistry([parent]).names()).toEqual(['boss', 'style', 'leaf', 'facts', 'editor']);
  });

  it('keeps an aggregate function with the tool (named in the spec) and refuses malformed options', () => {
    const merge = (c: ConsolidatedChild[]) => c.map((x) => x.agent).join('+');
    const tool = consolidateTool('both', { description: 'd', agents: [facts], aggregate: { fn: merge }, onChildError: 'fail' });
    expect(toolSpec(tool).consolidate).toMatchObject({ aggregate: { kind: 'fn', name: 'merge' }, onChildError: 'fail' });
    expect(tool.consolidate?.aggregate).toBe(merge);
    expect(() => consolidateTool('x', { description: 'd', agents: [], aggregate: { agent: editor } })).toThrow(DefinitionError);
    expect(() => consolidateTool('x', { description: 'd', agents: [facts], aggregate: {} as never })).toThrow(/aggregate must be/);
    expect(() =>
      consolidateTool('x', { description: 'd', agents: [{ agent: facts, budget: { maxTokens: -1 } }], aggregate: { agent: editor } }),
    ).toThrow(DefinitionError);
    expect(() => consolidateTool('bad name', { description: 'd', agents: [facts], aggregate: { agent: editor } })).toThrow(/name/);
  });
});
