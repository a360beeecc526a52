/** Sub-agents' pure rules (core/sub-agent.ts): ids, prompts, answers, outcomes, spend roll-up, tagging. */
import { describe, expect, it } from 'vitest';
import type { ChildRunSummary } from '../../src/core/run/result';
import { startLoop } from '../../src/core/loop/state';
import {
  answerOf,
  chainPrompt,
  childAnswerText,
  childOutcome,
  childWorkflowId,
  qualifiedCallId,
  subAgentPrompt,
  tagChildApprovals,
  withChildSpend,
} from '../../src/core/sub-agents/sub-agent';
import { utf8Bytes } from '../../src/core/messages/json';

const usage = (inputTokens: number, outputTokens: number) => ({ inputTokens, outputTokens, cacheReadTokens: 0, cacheWriteTokens: 0 });
const child = (status: ChildRunSummary['status'], costUsd = 0.25): ChildRunSummary => ({
  workflowId: 'p--call_1_0',
  agent: 'researcher',
  status,
  usage: usage(10, 5),
  costUsd,
});

describe('sub-agent rules', () => {
  it('derives the child id from the parent and the call, the same on every replay', () => {
    expect(childWorkflowId('p', 'call_1_0')).toBe('p--call_1_0');
    expect(childWorkflowId('p', 'call_1_1')).not.toBe(childWorkflowId('p', 'call_1_0'));
  });

  it('takes the prompt from a non-empty input string and says what is wrong otherwise', () => {
    expect(subAgentPrompt({ input: 'find it' })).toEqual({ prompt: 'find it' });
    expect(subAgentPrompt({ input: '  ' })).toMatchObject({ error: expect.stringContaining('"input" must be a non-empty string') });
    expect(subAgentPrompt({ task: 'x' })).toMatchObject({ error: expect.stringContaining('got nothing') });
  });

  it("answers with the child's structured output as JSON when it has one, else its text (also along a chain)", () => {
    expect(answerOf({ finalText: 'plain' })).toBe('plain');
    expect(answerOf({ finalText: '', output: { city: 'Rome' } })).toBe('{"city":"Rome"}');
    expect(chainPrompt({ finalText: 'ignored', output: [1, 2] })).toBe('[1,2]');
  });

  it('cuts a long answer to the byte limit with a note naming the child run', () => {
    const text = childAnswerText('é'.repeat(500), 'p--call_1_0', 200);
    expect(utf8Bytes(text)).toBeLessThanOrEqual(200);
    expect(text).toContain('result of its run p--call_1_0');
    expect(childAnswerText('short', 'p--call_1_0', 200)).toBe('short');
  });

  it('turns a successful child into its answer and any other ending into an error result with its status', () => {
    const ok = childOutcome('call_1_0', 'researcher', child('success'), { finalText: 'found' }, 12, 1000);
    expect(ok).toMatchObject({ isError: false, output: { type: 'text', text: 'found' }, child: { status: 'success' } });
    const failed = childOutcome(
      'call_1_0',
      'researcher',
      child('max_steps'),
      { finalText: 'half', error: { message: 'Reached the step limit (3).' } },
      12,
      1000,
    );
    expect(failed).toMatchObject({ isError: true, child: { status: 'max_steps' } });
    expect(failed.output).toEqual({
      type: 'text',
      text: 'Sub-agent "researcher" ended max_steps: Reached the step limit (3).. Its last answer: half',
    });
  });

  it("rolls children's usage into the run's usage and keeps their cost apart", () => {
    const state = startLoop({ name: 'parent', limits: { maxSteps: 5, toolResultInlineBytes: 1000 } }, 'go');
    const outcome = childOutcome('call_1_0', 'researcher', child('success', 0.25), { finalText: 'a' }, 1, 1000);
    const once = withChildSpend(state, [outcome, { ...outcome, callId: 'call_1_1' }]);
    expect(once.subAgents).toEqual({ runs: 2, usage: usage(20, 10), costUsd: 0.5 });
    expect(once.usage).toMatchObject({ inputTokens: 20, outputTokens: 10 });
    expect(withChildSpend(state, [])).toBe(state);
  });

  it("tags a child's approvals with the child, keeping a grandchild's own tag", () => {
    const pending = { callId: 'call_1_0', tool: 'deploy', args: {}, step: 1, requestedAt: '2026-01-01T00:00:00.000Z' };
    const tagged = tagChildApprovals({
      workflowId: 'p--call_1_0',
      agent: 'deployer',
      seq: 1,
      pending: [pending, { ...pending, callId: 'call_2_0', child: { workflowId: 'p--call_1_0--call_1_0', agent: 'grandchild' } }],
    } as Parameters<typeof tagChildApprovals>[0]);
    expect(tagged.map((p) => p.child)).toEqual([
      { workflowId: 'p--call_1_0', agent: 'deployer' },
      { workflowId: 'p--call_1_0--call_1_0', agent: 'grandchild' },
    ]);
  });

  it("qualifies a child's call ids by the parent's call that started it; a grandchild's chain on", () => {
    expect(qualifiedCallId('p', 'p--call_2_1', 'call_1_0')).toBe('call_2_1/call_1_0');
    // A child not started by one of the parent's calls is named by its workflow id.
    expect(qualifiedCallId('p', 'elsewhere', 'call_1_0')).toBe('elsewhere/call_1_0');
    const pending = { callId: 'call_1_0', tool: 'deploy', args: {}, step: 1, requestedAt: '2026-01-01T00:00:00.000Z' };
    // The child lists its own child's call already qualified (call_3_0/call_1_0); the parent prefixes its own call.
    const tagged = tagChildApprovals(
      { workflowId: 'p--call_2_0', agent: 'a', seq: 1, pending: [pending, { ...pending, callId: 'call_3_0/call_1_0' }] },
      'p',
    );
    expect(tagged.map((p) => p.callId)).toEqual(['call_2_0/call_1_0', 'call_2_0/call_3_0/call_1_0']);
  });
});
