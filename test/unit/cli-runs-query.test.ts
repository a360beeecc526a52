/** The visibility query of `durable-agent runs`, and the CLI's tables. */
import { describe, expect, it } from 'vitest';
import { runsQuery } from '../../apps/cli/commands/runs';
import { formatTable } from '../../apps/cli/table';

describe('runsQuery', () => {
  const now = Date.parse('2026-01-02T00:00:00.000Z');
  it('builds the query from the filters', () => {
    expect(runsQuery({}, now)).toBe(`WorkflowType = 'agentWorkflow'`);
    expect(runsQuery({ agent: 'support', status: 'success', since: '24h' }, now)).toBe(
      `WorkflowType = 'agentWorkflow' AND DurableAgentName = 'support' AND DurableAgentStatus = 'success' AND StartTime > '2026-01-01T00:00:00.000Z'`,
    );
    expect(runsQuery({ status: 'running' }, now)).toBe(`WorkflowType = 'agentWorkflow' AND ExecutionStatus = 'Running'`);
    expect(runsQuery({ status: 'awaiting_approval' }, now)).toBe(
      `WorkflowType = 'agentWorkflow' AND DurableAgentStatus = 'awaiting_approval'`,
    );
  });
  it('rejects what would break or bend the query, naming the flag', () => {
    expect(() => runsQuery({ agent: "x' OR WorkflowType = 'y" })).toThrow(
      /^--agent "x' OR .*" is not an agent name \(no quotes, backslashes or control characters\)$/,
    );
    expect(() => runsQuery({ status: 'done' })).toThrow(
      /^--status "done" is not a run status; use one of: running, awaiting_approval, awaiting_message, success, /,
    );
    expect(() => runsQuery({ since: '0s' })).toThrow('--since "0s" is not a duration: give one like 30m, 24h or 7d');
    expect(() => runsQuery({ since: 'soon' })).toThrow('--since "soon" is not a duration');
  });
});

describe('formatTable', () => {
  it('pads columns, right-aligns numbers, ignores colour codes in widths and trims line ends', () => {
    expect(
      formatTable(
        [{ header: 'step', align: 'right' }, { header: 'model' }, { header: 'x' }],
        [
          ['1', '\u001b[32mok\u001b[39m', ''],
          ['12', 'scripted/a', ''],
        ],
        '  ',
      ),
    ).toEqual(['  step  model       x', '  ----  ----------  -', '     1  \u001b[32mok\u001b[39m', '    12  scripted/a']);
  });
});
