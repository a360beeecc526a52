/** `durable-agent report`'s tool calls table names the child runs of a call: an agent tool's one, a consolidate tool's every one. */
import { describe, expect, it } from 'vitest';
import { toolCallsTable } from '../../apps/cli/report-format';
import type { RunReport } from '../../src/core/run/result';

const usage = { inputTokens: 1, outputTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 0 };
const call = { step: 1, latencyMs: 5, resultBytes: 2, stored: false, isError: false, attempts: 1, args: {} };
const run = (workflowId: string, agent: string, status: 'success' | 'max_steps') => ({ workflowId, agent, status, usage, costUsd: null });

describe('toolCallsTable', () => {
  it("lists a consolidate call's child runs, and an agent tool's one", () => {
    const report = {
      toolCalls: [
        { ...call, callId: 'call_1_0', tool: 'research', child: run('p--call_1_0', 'researcher', 'success') },
        {
          ...call,
          callId: 'call_2_0',
          tool: 'review',
          children: [
            run('p--call_2_0-1', 'style', 'success'),
            run('p--call_2_0-2', 'facts', 'max_steps'),
            run('p--call_2_0-aggregate', 'editor', 'success'),
          ],
        },
      ],
    } as unknown as RunReport;
    const [header, , first, second] = toolCallsTable(report);
    expect(header).toContain('child run');
    expect(first).toContain('p--call_1_0 (researcher, success)');
    expect(second).toContain('p--call_2_0-1 (style, success), p--call_2_0-2 (facts, max_steps), p--call_2_0-aggregate (editor, success)');
  });
});
