/**
 * `GET /metrics` of the HTTP API: gauges only a process that sees the whole namespace can give, computed
 * at scrape time from visibility and each waiting run's `pendingApprovals` query (the reads of the
 * approval inbox), cached for {@link METRICS_CACHE_MS} so that many scrapers cost one read.
 */
import type { AgentClient, AwaitingRun } from '../../src/entry/client';
import type { Context } from 'hono';
import type { MetricFamily, Sample } from './prometheus-text';
import { formatPrometheus, PROMETHEUS_CONTENT_TYPE } from './prometheus-text';
import { RUN_STATUS } from '../../src/entry/client';

/** How long one read of the gauges answers scrapes. */
export const METRICS_CACHE_MS = 1_000;

/** The running phases `durable_agent_runs` counts. */
export const RUNNING_PHASES = ['running', 'awaiting_approval', 'awaiting_message'] as const;

/**
 * `durable_agent_approvals_waiting` and `durable_agent_approval_oldest_age_seconds` by agent and tool.
 * A sub-agent's approval counts once, in its own run (its parent lists it too, tagged `child`).
 */
export function approvalFamilies(runs: readonly AwaitingRun[], now: number): MetricFamily[] {
  const byKey = new Map<string, { agent: string; tool: string; waiting: number; oldest: number }>();
  for (const run of runs) {
    for (const call of run.pending) {
      if ('child' in call && call.child !== undefined) continue;
      const agent = run.agent ?? '';
      const key = JSON.stringify([agent, call.tool]);
      const age = Math.max(0, (now - Date.parse(call.requestedAt)) / 1000);
      const entry = byKey.get(key) ?? { agent, tool: call.tool, waiting: 0, oldest: 0 };
      entry.waiting += 1;
      entry.oldest = Math.max(entry.oldest, Number.isFinite(age) ? age : 0);
      byKey.set(key, entry);
    }
  }
  const entries = [...byKey.values()].sort((a, b) => a.agent.localeCompare(b.agent) || a.tool.localeCompare(b.tool));
  const sample = (value: (e: (typeof entries)[number]) => number): Sample[] =>
    entries.map((e) => ({ labels: { agent: e.agent, tool: e.tool }, value: value(e) }));
  return [
    {
      name: 'durable_agent_approvals_waiting',
      help: 'Tool calls waiting for a person now, across the namespace.',
      type: 'gauge',
      samples: sample((e) => e.waiting),
    },
    {
      name: 'durable_agent_approval_oldest_age_seconds',
      help: 'Age of the oldest tool call waiting for a person (since it was requested), in seconds.',
      type: 'gauge',
      samples: sample((e) => Math.round(e.oldest * 1000) / 1000),
    },
  ];
}

/** `durable_agent_runs{status}`: agent runs still running, by phase (visibility counts). */
async function runFamily(client: AgentClient): Promise<MetricFamily> {
  const counts = await Promise.all(
    RUNNING_PHASES.map(async (status) => ({
      labels: { status },
      value: (await client.temporal.workflow.count(`ExecutionStatus = 'Running' AND ${RUN_STATUS.name} = '${status}'`)).count,
    })),
  );
  return {
    name: 'durable_agent_runs',
    help: 'Agent runs still running, by phase (from visibility, which lags a moment).',
    type: 'gauge',
    samples: counts,
  };
}

/** The gauges of `GET /metrics`, read at most once per {@link METRICS_CACHE_MS} (a failed read is not kept). */
export class ServeMetrics {
  private cached: { at: number; families: Promise<MetricFamily[]> } | undefined;

  constructor(
    private readonly client: AgentClient,
    private readonly cacheMs = METRICS_CACHE_MS,
    private readonly clock: () => number = Date.now,
  ) {}

  /** The metric families now (or from a read less than `cacheMs` old, in flight or done). */
  read(): Promise<MetricFamily[]> {
    const now = this.clock();
    if (this.cached && now - this.cached.at < this.cacheMs) return this.cached.families;
    const families = Promise.all([this.client.awaitingApproval(), runFamily(this.client)]).then(([awaiting, running]) => [
      ...approvalFamilies(awaiting, this.clock()),
      running,
    ]);
    const entry = { at: now, families };
    this.cached = entry;
    families.catch(() => {
      if (this.cached === entry) this.cached = undefined;
    });
    return families;
  }
}

/** The answer of `GET /metrics`: the gauges in Prometheus' text format. */
export async function metricsResponse(c: Context, metrics: ServeMetrics): Promise<Response> {
  const text = formatPrometheus(await metrics.read());
  return c.body(text, 200, { 'Content-Type': PROMETHEUS_CONTENT_TYPE, 'Cache-Control': 'no-store' });
}
