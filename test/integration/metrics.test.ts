/**
 * Metrics on the worker's Prometheus endpoint (`durable-agent worker --metrics host:port`, in a child
 * process: Temporal's runtime is installed once per process): Temporal's SDK metrics and the agent
 * metrics (tokens, cost, steps, tool latency, approvals) for a run with a tool and an approval.
 */
import { randomUUID } from 'node:crypto';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { AgentClient } from '../../src/client';
import { resultWithin, waitForPending } from '../helpers/events';
import type { RunningCli } from '../helpers/cli-run';
import { freePort, runCli, soleError, startCli, tempHome } from '../helpers/cli-run';
import { writeModules } from '../helpers/agents-module';

const repo = resolve(__dirname, '..', '..');
const q = (path: string) => JSON.stringify(path);
/** One scripted agent on a priced model id (so calls have a cost): `greet`, then `wipe` (needs approval), then an answer. */
const AGENTS_TS = `
import { z } from ${q(require.resolve('zod'))};
import { defineAgent, defineTool } from ${q(join(repo, 'src', 'agents', 'define'))};
import { ScriptedProvider } from ${q(join(repo, 'src', 'integrations', 'providers', 'scripted'))};

const greet = defineTool({ name: 'greet', description: 'Greet someone', input: z.object({ who: z.string() }), execute: ({ who }) => 'hello ' + who });
const wipe = defineTool({ name: 'wipe', description: 'Wipe everything', input: z.object({}), needsApproval: true, execute: () => 'wiped' });
export const metered = defineAgent({ name: 'metered', model: { provider: 'scripted', model: 'claude-opus-5' }, tools: [greet, wipe] });
export const providers = {
  scripted: new ScriptedProvider({
    'claude-opus-5': [{ toolCalls: [{ name: 'greet', args: { who: 'ops' } }, { name: 'wipe', args: {} }] }, { text: 'done wiping' }],
  }),
};
`;

const home = tempHome();
const agentsTs = join(writeModules({ 'agents.ts': AGENTS_TS }), 'agents.ts');
const taskQueue = `metrics-${randomUUID()}`;
let worker: RunningCli;
let endpoint: string;
let client: AgentClient;

beforeAll(async () => {
  const port = await freePort();
  endpoint = `http://127.0.0.1:${port}/metrics`;
  worker = startCli(
    ['worker', '--agents', agentsTs, '--address', inject('temporalAddress'), '--task-queue', taskQueue, '--metrics', `127.0.0.1:${port}`],
    { home, timeoutMs: 110_000 },
  );
  await worker.waitFor('Press Ctrl-C to stop.');
  client = await AgentClient.connect({
    address: inject('temporalAddress'),
    namespace: 'default',
    taskQueue,
    encryption: false,
    deltas: false,
  });
}, 90_000);

afterAll(async () => {
  await client?.close();
  worker?.child.kill('SIGINT');
  await worker?.done;
});

/** The endpoint's samples of `name` (any suffix: `_total`, `_bucket`…) whose labels contain every `labels` pair. */
function samples(text: string, name: string, labels: Record<string, string>): Array<{ line: string; value: number }> {
  return text
    .split('\n')
    .filter((l) => l.startsWith(name) && Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`)))
    .map((line) => ({ line, value: Number(line.slice(line.lastIndexOf(' ') + 1)) }));
}

describe('metrics', () => {
  it('serves Temporal SDK metrics and the agent metrics on the Prometheus endpoint', { timeout: 60_000 }, async () => {
    const run = await client.start('metered', { input: 'wipe it' });
    const [pending] = await waitForPending(run);
    await run.decide({ callId: pending!.callId, decision: 'approve', by: 'ops:alice' });
    expect((await resultWithin(run)).status).toBe('success');

    // Metrics are exported on the runtime's period: poll until the last ones show.
    let text = '';
    for (let i = 0; i < 40; i++) {
      text = await (await fetch(endpoint)).text();
      if (
        samples(text, 'durable_agent_approval_wait', { agent: 'metered' }).length &&
        samples(text, 'durable_agent_steps', { agent: 'metered' }).some((s) => s.value >= 2)
      )
        break;
      await new Promise((r) => setTimeout(r, 250));
    }
    const q = { task_queue: taskQueue };
    expect(samples(text, 'temporal_', q).length, 'Temporal SDK metrics of this worker').toBeGreaterThan(0);
    expect(samples(text, 'temporal_activity_execution_latency', { ...q, activity_type: 'runTool' }).length).toBeGreaterThan(0);

    const model = { agent: 'metered', provider: 'scripted', model: 'claude-opus-5' };
    expect(samples(text, 'durable_agent_steps', model).map((s) => s.value)).toEqual([2]);
    expect(samples(text, 'durable_agent_tokens', { ...model, direction: 'input' })[0]?.value).toBeGreaterThan(0);
    expect(samples(text, 'durable_agent_tokens', { ...model, direction: 'output' })[0]?.value).toBeGreaterThan(0);
    expect(samples(text, 'durable_agent_cost_usd_sum', model)[0]?.value).toBeGreaterThan(0);
    expect(samples(text, 'durable_agent_cost_usd_count', model)[0]?.value).toBe(2);
    expect(samples(text, 'durable_agent_model_call_latency_count', model)[0]?.value).toBe(2);
    for (const tool of ['greet', 'wipe']) {
      expect(
        samples(text, 'durable_agent_tool_latency_count', { agent: 'metered', tool, outcome: 'ok' })[0]?.value,
        `tool latency of ${tool}`,
      ).toBe(1);
    }
    expect(samples(text, 'durable_agent_approvals_requested', { agent: 'metered', tool: 'wipe' })[0]?.value).toBe(1);
    expect(samples(text, 'durable_agent_approvals_closed', { agent: 'metered', tool: 'wipe', decision: 'approve' })[0]?.value).toBe(1);
    expect(samples(text, 'durable_agent_approval_wait_count', { agent: 'metered', tool: 'wipe', decision: 'approve' })[0]?.value).toBe(1);
  });

  it('refuses a --metrics that is not host:port, naming it', async () => {
    expect(soleError(await runCli(['worker', '--metrics', 'nine-four-six-four'], { home }))).toContain(
      '"nine-four-six-four" is not host:port',
    );
  });
});
