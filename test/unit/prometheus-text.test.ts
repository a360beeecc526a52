/** Prometheus' text format (`apps/http/prometheus-text.ts`) and the approval gauges of `GET /metrics` (`http/metrics.ts`). */
import { describe, expect, it } from 'vitest';
import type { AwaitingRun } from '../../src/client';
import { approvalFamilies } from '../../apps/http/metrics';
import { escapeLabelValue, formatPrometheus } from '../../apps/http/prometheus-text';

describe('formatPrometheus', () => {
  it('writes HELP, TYPE and samples, label values escaped', () => {
    const text = formatPrometheus([
      {
        name: 'jobs_waiting',
        help: 'Jobs.\nWaiting \\ now.',
        type: 'gauge',
        samples: [
          { labels: { queue: 'a "b"\\c\nd', kind: 'x' }, value: 2 },
          { labels: {}, value: 0.5 },
        ],
      },
      { name: 'empty', help: 'None yet.', type: 'counter', samples: [] },
    ]);
    expect(text).toBe(
      [
        '# HELP jobs_waiting Jobs.\\nWaiting \\\\ now.',
        '# TYPE jobs_waiting gauge',
        'jobs_waiting{queue="a \\"b\\"\\\\c\\nd",kind="x"} 2',
        'jobs_waiting 0.5',
        '# HELP empty None yet.',
        '# TYPE empty counter',
        '',
      ].join('\n'),
    );
    expect(escapeLabelValue('plain')).toBe('plain');
    expect(
      formatPrometheus([
        {
          name: 'g',
          help: 'h',
          type: 'gauge',
          samples: [
            { labels: {}, value: Infinity },
            { labels: {}, value: NaN },
          ],
        },
      ]),
    ).toContain('g +Inf\ng NaN\n');
    expect(formatPrometheus([])).toBe('');
  });

  it('refuses names Prometheus would refuse', () => {
    expect(() => formatPrometheus([{ name: 'bad-name', help: '', type: 'gauge', samples: [] }])).toThrow(
      /"bad-name" is not a Prometheus metric name/,
    );
    expect(() =>
      formatPrometheus([{ name: 'ok', help: '', type: 'gauge', samples: [{ labels: { 'bad-label': 'v' }, value: 1 }] }]),
    ).toThrow(/"bad-label" is not a Prometheus label name/);
  });
});

describe('approvalFamilies', () => {
  const call = (tool: string, requestedAt: string, extra: Record<string, unknown> = {}) => ({
    callId: `c-${tool}-${requestedAt}`,
    tool,
    args: {},
    step: 1,
    requestedAt,
    ...extra,
  });
  const now = Date.parse('2026-01-01T00:10:00Z');

  it('counts by agent and tool with the oldest age; a child approval its parent lists counts once, in the child', () => {
    const runs = [
      {
        workflowId: 'a',
        runId: 'r',
        agent: 'ops',
        pending: [call('deploy', '2026-01-01T00:09:00Z'), call('deploy', '2026-01-01T00:00:00Z'), call('wipe', '2026-01-01T00:09:59.5Z')],
      },
      {
        workflowId: 'p',
        runId: 'r',
        agent: 'lead',
        pending: [call('deploy', '2026-01-01T00:05:00Z', { child: { workflowId: 'c', agent: 'ops' } })],
      },
      {
        workflowId: 'c',
        runId: 'r',
        agent: 'ops',
        parent: { workflowId: 'p', runId: 'r' },
        pending: [call('deploy', '2026-01-01T00:05:00Z')],
      },
    ] as unknown as AwaitingRun[];
    const [waiting, oldest] = approvalFamilies(runs, now);
    expect(waiting!.samples).toEqual([
      { labels: { agent: 'ops', tool: 'deploy' }, value: 3 },
      { labels: { agent: 'ops', tool: 'wipe' }, value: 1 },
    ]);
    expect(oldest!.samples).toEqual([
      { labels: { agent: 'ops', tool: 'deploy' }, value: 600 },
      { labels: { agent: 'ops', tool: 'wipe' }, value: 0.5 },
    ]);
    expect(approvalFamilies([], now).map((f) => f.samples)).toEqual([[], []]);
  });
});
