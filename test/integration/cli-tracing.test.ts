/**
 * `durable-agent run` with the OpenTelemetry environment variables: the CLI's client and in-process
 * worker post their spans over OTLP/HTTP to the endpoint (a receiver started here, recording what is
 * posted to /v1/traces), and they are one trace: the client's start, `invoke_agent`, `chat`, `execute_tool`.
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { SCRIPTED_AGENTS_TS, writeModules } from '../helpers/agents-module';
import { runCli, startCli, tempHome } from '../helpers/cli-run';

interface PostedSpan {
  traceId: string;
  name: string;
  attributes?: Array<{ key: string; value: { stringValue?: string } }>;
}
interface PostedTraces {
  resourceSpans: Array<{
    resource?: { attributes?: Array<{ key: string; value: { stringValue?: string } }> };
    scopeSpans: Array<{ spans: PostedSpan[] }>;
  }>;
}

const home = tempHome();
const address = inject('temporalAddress');
const agentsTs = join(writeModules({ 'agents.ts': SCRIPTED_AGENTS_TS }), 'agents.ts');
const posted: Array<{ path: string; contentType: string; body: PostedTraces }> = [];
const receiver = createServer((req, res) => {
  let text = '';
  req.setEncoding('utf8').on('data', (d: string) => (text += d));
  req.on('end', () => {
    posted.push({ path: req.url ?? '', contentType: req.headers['content-type'] ?? '', body: JSON.parse(text) as PostedTraces });
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
});
let endpoint: string;

beforeAll(async () => {
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())));

/** Spans posted by processes of `service`. */
const spansOf = (service: string) =>
  posted.flatMap((p) =>
    p.body.resourceSpans
      .filter((r) => r.resource?.attributes?.some((a) => a.key === 'service.name' && a.value.stringValue === service))
      .flatMap((r) => r.scopeSpans.flatMap((s) => s.spans)),
  );

// The two tests run at once (each filters by its own workflow id and service name): the file stays fast.
describe.concurrent('durable-agent run and worker with OTEL_EXPORTER_OTLP_ENDPOINT', () => {
  it('exports the run as one trace over OTLP/HTTP, flushed before the command exits', async () => {
    const taskQueue = `cli-tracing-${randomUUID()}`;
    const workflowId = `cli-tracing-${randomUUID()}`;
    const r = await runCli(
      [
        'run',
        'say hi',
        '--agents',
        agentsTs,
        '--agent',
        'greeter',
        '--workflow-id',
        workflowId,
        '--address',
        address,
        '--task-queue',
        taskQueue,
      ],
      {
        home,
        env: { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_SERVICE_NAME: 'cli-tracing-test' },
      },
    );
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`traces: OTLP/HTTP to ${endpoint}/v1/traces (service.name cli-tracing-test)`);
    expect(posted.length).toBeGreaterThan(0);
    expect(posted.every((p) => p.path === '/v1/traces' && p.contentType.startsWith('application/json'))).toBe(true);
    const all = spansOf('cli-tracing-test');
    const start = all.find(
      (s) =>
        s.name === 'StartWorkflow:agentWorkflow' &&
        s.attributes?.some((a) => a.key === 'temporalWorkflowId' && a.value.stringValue === workflowId),
    );
    expect(start, `no StartWorkflow span of ${workflowId} among ${all.map((s) => s.name).join(', ')}`).toBeDefined();
    const trace = all.filter((s) => s.traceId === start!.traceId).map((s) => s.name);
    expect(trace).toContain('invoke_agent greeter');
    expect(trace.filter((n) => n === 'chat greeter')).toHaveLength(2);
    expect(trace).toContain('execute_tool greet');
  });

  it("worker: its spans continue the client's trace, and Ctrl-C flushes them", { timeout: 60_000 }, async () => {
    const taskQueue = `cli-tracing-worker-${randomUUID()}`;
    const workflowId = `cli-tracing-worker-${randomUUID()}`;
    const traced = (service: string) => ({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${endpoint}/v1/traces`, OTEL_SERVICE_NAME: service });
    const worker = startCli(['worker', '--agents', agentsTs, '--address', address, '--task-queue', taskQueue], {
      home,
      env: traced('cli-tracing-worker'),
      timeoutMs: 55_000,
    });
    try {
      await worker.waitFor('Press Ctrl-C to stop.');
      expect(worker.stdout()).toContain(`traces: OTLP/HTTP to ${endpoint}/v1/traces (service.name cli-tracing-worker)`);
      const r = await runCli(
        [
          'run',
          'say hi',
          '--agents',
          agentsTs,
          '--agent',
          'greeter',
          '--workflow-id',
          workflowId,
          '--address',
          address,
          '--task-queue',
          taskQueue,
        ],
        {
          home,
          env: traced('cli-tracing-client'),
        },
      );
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(`worker: using the worker(s) already polling task queue "${taskQueue}"`);
    } finally {
      worker.child.kill('SIGINT');
    }
    const stopped = await worker.done;
    expect(stopped.stderr).toBe('');
    expect(stopped.code).toBe(0);
    const start = spansOf('cli-tracing-client').find(
      (s) =>
        s.name === 'StartWorkflow:agentWorkflow' &&
        s.attributes?.some((a) => a.key === 'temporalWorkflowId' && a.value.stringValue === workflowId),
    );
    expect(start).toBeDefined();
    const onWorker = spansOf('cli-tracing-worker')
      .filter((s) => s.traceId === start!.traceId)
      .map((s) => s.name);
    expect(onWorker).toContain('invoke_agent greeter');
    expect(onWorker).toContain('chat greeter');
    expect(onWorker).toContain('execute_tool greet');
  });
});
