/**
 * Per-call metrics (`ctx.metrics.set`) end to end on the real dev server: in the `tool_result` event, the
 * run report's entry and as attributes of the `execute_tool` span; a retried call keeps only its last
 * attempt's (each attempt's span has its own); a failed call's reach its result; a bad name fails the
 * attempt with a clear message.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { z } from 'zod';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NativeConnection } from '@temporalio/worker';
import { AgentClient } from '../../src/client';
import { ToolError, defineTool } from '../../src/agents/define';
import type { AgentEvent } from '../../src/core/events/events';
import type { AgentWorker } from '../../src/worker';
import { createWorker } from '../../src/worker';
import { FileBlobStore } from '../../src/integrations/store/blob-store';
import { ScriptedAgents } from '../helpers/agents';
import { allEvents, resultWithin } from '../helpers/events';
import { installTestRuntime, testId } from '../helpers/harness';

const count = defineTool({
  name: 'count',
  description: 'Count rows',
  input: z.object({}),
  readOnly: true,
  execute: (_args, ctx) => {
    ctx.metrics.set('rows', 3);
    ctx.metrics.set('source', 'db');
    ctx.metrics.set('cache.hit', false);
    return 'counted 3 rows';
  },
});
const flaky = defineTool({
  name: 'flaky',
  description: 'Fails its first attempt',
  input: z.object({}),
  retry: { maximumAttempts: 2, initialInterval: '50ms' },
  execute: (_args, ctx) => {
    if (ctx.attempt === 1) {
      ctx.metrics.set('a', 1);
      ctx.metrics.set('b', 'x');
      throw new Error('transient failure');
    }
    ctx.metrics.set('a', 2);
    return 'worked the second time';
  },
});
const broken = defineTool({
  name: 'broken',
  description: 'Always fails',
  input: z.object({}),
  execute: (_args, ctx) => {
    ctx.metrics.set('stage', 'parse');
    throw new ToolError('the input file is corrupt', { retryable: false });
  },
});
const misuse = defineTool({
  name: 'misuse',
  description: 'Sets a metric with a bad name',
  input: z.object({}),
  retry: { maximumAttempts: 1 },
  execute: (_args, ctx) => {
    ctx.metrics.set('bad name', 1);
    return 'never';
  },
});

const S = new ScriptedAgents();
const agent = S.add(
  'tool_metrics',
  [
    {
      toolCalls: [
        { name: 'count', args: {} },
        { name: 'flaky', args: {} },
        { name: 'broken', args: {} },
        { name: 'misuse', args: {} },
      ],
    },
    { text: 'done' },
  ],
  { tools: [count, flaky, broken, misuse] },
);

const exporter = new InMemorySpanExporter();
let connection: NativeConnection;
let worker: AgentWorker;
let running: Promise<void>;
let client: AgentClient;

beforeAll(async () => {
  installTestRuntime();
  connection = await NativeConnection.connect({ address: inject('temporalAddress') });
  const taskQueue = `tool-metrics-${randomUUID()}`;
  worker = await createWorker({
    agents: S.agents,
    providers: { scripted: S.provider },
    store: new FileBlobStore(mkdtempSync(join(tmpdir(), 'durable-agent-tool-metrics-'))),
    encryption: false,
    connection,
    taskQueue,
    // The execute_tool spans wrap the activities: the shared prebuilt bundle is enough (no workflow spans needed).
    workflowBundle: { codePath: inject('workflowBundlePath') },
    tracing: { spanProcessor: new SimpleSpanProcessor(exporter) },
  });
  running = worker.run();
  client = await AgentClient.connect({
    address: inject('temporalAddress'),
    namespace: 'default',
    taskQueue,
    encryption: false,
    deltas: false,
  });
}, 60_000);

afterAll(async () => {
  worker?.shutdown();
  await running;
  await client?.close();
  await connection?.close();
});

/** The `execute_tool` spans of a call, by attempt. */
function attemptSpans(callId: string): ReadableSpan[] {
  return exporter
    .getFinishedSpans()
    .filter((sp) => sp.name.startsWith('execute_tool ') && sp.attributes['gen_ai.tool.call.id'] === callId)
    .sort((a, b) => Number(a.attributes['durable_agent.attempt']) - Number(b.attributes['durable_agent.attempt']));
}

/** The span attributes of the tool metrics. */
function metricsOf(sp: ReadableSpan | undefined): Record<string, unknown> {
  return Object.fromEntries(Object.entries(sp?.attributes ?? {}).filter(([k]) => k.startsWith('durable_agent.tool.metric.')));
}

describe('tool metrics', () => {
  it('reach the tool_result event, the report entry and the execute_tool span; the last attempt wins', async () => {
    const run = await client.start(agent.name, { input: 'go', workflowId: testId('tool-metrics') });
    const result = await resultWithin(run);
    expect(result.status).toBe('success');
    const results = (await allEvents(run)).filter((e): e is Extract<AgentEvent, { type: 'tool_result' }> => e.type === 'tool_result');
    const event = (tool: string) => results.find((e) => e.tool === tool)!;
    const entry = (tool: string) => result.report.toolCalls.find((c) => c.tool === tool)!;

    // A call that sets metrics: the same values everywhere.
    const counted = { rows: 3, source: 'db', 'cache.hit': false };
    expect(event('count')).toMatchObject({ isError: false, metrics: counted });
    expect(entry('count')).toMatchObject({ isError: false, metrics: counted });
    const [countSpan] = attemptSpans(entry('count').callId);
    expect(metricsOf(countSpan)).toEqual({
      'durable_agent.tool.metric.rows': 3,
      'durable_agent.tool.metric.source': 'db',
      'durable_agent.tool.metric.cache.hit': false,
    });

    // A retried call: the outcome has the second attempt's metrics only; each attempt's span has its own.
    expect(event('flaky')).toMatchObject({ isError: false, attempts: 2, metrics: { a: 2 } });
    expect(event('flaky').metrics).toEqual({ a: 2 });
    expect(entry('flaky').metrics).toEqual({ a: 2 });
    const flakySpans = attemptSpans(entry('flaky').callId);
    expect(flakySpans.map((sp) => sp.attributes['durable_agent.attempt'])).toEqual([1, 2]);
    expect(metricsOf(flakySpans[0])).toEqual({ 'durable_agent.tool.metric.a': 1, 'durable_agent.tool.metric.b': 'x' });
    expect(flakySpans[0]?.attributes['durable_agent.tool.outcome']).toBe('error');
    expect(metricsOf(flakySpans[1])).toEqual({ 'durable_agent.tool.metric.a': 2 });

    // A failed call: the metrics it set before it threw reach its error result and its span.
    expect(event('broken')).toMatchObject({ isError: true, metrics: { stage: 'parse' } });
    expect(entry('broken')).toMatchObject({
      isError: true,
      error: 'Tool "broken" failed: the input file is corrupt',
      metrics: { stage: 'parse' },
    });
    expect(metricsOf(attemptSpans(entry('broken').callId)[0])).toEqual({ 'durable_agent.tool.metric.stage': 'parse' });

    // A bad metric name fails the attempt with a message that says what is wrong.
    expect(entry('misuse')).toMatchObject({ isError: true });
    expect(entry('misuse').error).toContain('ctx.metrics.set: invalid metric name "bad name"');
    expect(entry('misuse')).not.toHaveProperty('metrics');
  });
});
