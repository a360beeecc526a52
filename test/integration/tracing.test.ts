/**
 * OpenTelemetry tracing on the real dev server: one trace from the client's start through the workflow
 * to every activity, the GenAI spans (`invoke_agent`, `chat`, `execute_tool`, `approval`) with their
 * attributes and parentage, content only with `captureContent`, and no new span when the history is
 * replayed with the same tracing.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NativeConnection, Worker, bundleWorkflowCode } from '@temporalio/worker';
import { AgentClient } from '../../src/client';
import type { TracingOptions } from '../../src/integrations/telemetry/tracing';
import type { AgentWorker } from '../../src/worker';
import { WORKFLOWS_PATH, createWorker, durableAgents } from '../../src/worker';
import { FileBlobStore } from '../../src/integrations/store/blob-store';
import type { Script } from '../../src/integrations/providers/scripted';
import { ScriptedAgents } from '../helpers/agents';
import { historyFiles, loadHistory } from '../replay/histories';
import { installTestRuntime } from '../helpers/harness';
import { resultWithin, waitForPending } from '../helpers/events';
import { deploy, echo } from '../helpers/tools';

const exporter = new InMemorySpanExporter();
const plain: TracingOptions = { spanProcessor: new SimpleSpanProcessor(exporter) };
const withContent: TracingOptions = { spanProcessor: new SimpleSpanProcessor(exporter), captureContent: true };

const scripted = new ScriptedAgents();
const script: Script = [
  {
    toolCalls: [
      { name: 'echo', args: { text: 'secret-echo-text' } },
      { name: 'deploy', args: { service: 'secret-service' } },
    ],
  },
  { text: 'all done, secret-answer' },
];
// The plain run's last model call fails once (overloaded) before it answers.
const agentPlain = scripted.add(
  'tracing-plain',
  [script[0]!, { ...script[1]!, failures: [{ message: 'overloaded, try later', kind: 'overloaded', retryable: true }] }],
  { tools: [echo, deploy] },
);
const agentContent = scripted.add('tracing-content', script, { tools: [echo, deploy] });
// One call waits (deferred, returned, decided), the other is denied by the run policy with nobody asked.
const agentAudit = scripted.add(
  'tracing-audit',
  [
    {
      toolCalls: [
        { name: 'deploy', args: { service: 'svc' } },
        { name: 'echo', args: { text: 'hi' } },
      ],
    },
    { text: 'done' },
  ],
  { tools: [echo, deploy] },
);
const agents = scripted.agents;
const providers = { scripted: scripted.provider };

interface Side {
  worker: AgentWorker;
  running: Promise<void>;
  client: AgentClient;
}

let connection: NativeConnection;
let bundle: { code: string };
let sides: { plain: Side; content: Side };

async function side(tracing: TracingOptions): Promise<Side> {
  const taskQueue = `tracing-${randomUUID()}`;
  const worker = await createWorker({
    agents,
    providers,
    store: new FileBlobStore(mkdtempSync(join(tmpdir(), 'durable-agent-tracing-'))),
    encryption: false,
    connection,
    taskQueue,
    workflowBundle: bundle,
    tracing,
  });
  const client = await AgentClient.connect({
    address: inject('temporalAddress'),
    namespace: 'default',
    taskQueue,
    encryption: false,
    deltas: false,
    tracing,
  });
  return { worker, running: worker.run(), client };
}

beforeAll(async () => {
  installTestRuntime();
  connection = await NativeConnection.connect({ address: inject('temporalAddress') });
  // A prebuilt bundle holds the workflow interceptors when built with the plugin (as the README says).
  const built = await bundleWorkflowCode({
    workflowsPath: WORKFLOWS_PATH,
    plugins: [durableAgents({ agents, providers, tracing: plain, encryption: false })],
    logger: quiet,
  });
  bundle = { code: built.code };
  sides = { plain: await side(plain), content: await side(withContent) };
}, 60_000);

afterAll(async () => {
  for (const s of Object.values(sides ?? {})) {
    s.worker.shutdown();
    await s.running;
    await s.client.close();
  }
  await connection?.close();
});

/** Start a run, approve its deploy, wait for the end; the spans of its trace. */
async function tracedRun(s: Side, agent: string): Promise<{ workflowId: string; spans: ReadableSpan[] }> {
  const run = await s.client.start(agent, { input: 'secret-prompt-text' });
  const [pending] = await waitForPending(run);
  await new Promise((r) => setTimeout(r, 300)); // a measurable wait
  await run.decide({ callId: pending!.callId, decision: 'approve', by: 'ops:alice', reason: 'secret-approval-reason' });
  expect((await resultWithin(run)).status).toBe('success');
  const start = exporter
    .getFinishedSpans()
    .find((sp) => sp.name === 'StartWorkflow:agentWorkflow' && sp.attributes.temporalWorkflowId === run.workflowId);
  expect(start, 'the client start span').toBeDefined();
  const traceId = start!.spanContext().traceId;
  // Workflow spans leave through a sink at the end of the workflow's last task.
  for (let i = 0; i < 50 && !inTrace(traceId).some((sp) => sp.name.startsWith('RunWorkflow:')); i++)
    await new Promise((r) => setTimeout(r, 100));
  return { workflowId: run.workflowId, spans: inTrace(traceId) };
}

function inTrace(traceId: string): ReadableSpan[] {
  return exporter.getFinishedSpans().filter((sp) => sp.spanContext().traceId === traceId);
}

function one(spans: ReadableSpan[], name: string): ReadableSpan {
  const found = spans.filter((sp) => sp.name === name);
  expect(
    found.map((sp) => sp.name),
    `one span ${name} in ${spans.map((sp) => sp.name).join(', ')}`,
  ).toEqual([name]);
  return found[0]!;
}

const parentOf = (sp: ReadableSpan) => sp.parentSpanId;
const idOf = (sp: ReadableSpan) => sp.spanContext().spanId;
const allContent = (spans: ReadableSpan[]) => JSON.stringify(spans.map((sp) => sp.attributes));

describe('tracing', () => {
  let traced: { workflowId: string; spans: ReadableSpan[] };

  it('makes one trace from the client start to every activity, with GenAI spans, attributes and parentage', async () => {
    traced = await tracedRun(sides.plain, agentPlain.name);
    const { spans, workflowId } = traced;
    const start = one(spans, 'StartWorkflow:agentWorkflow');
    const workflow = one(spans, 'RunWorkflow:agentWorkflow');
    expect(parentOf(workflow)).toBe(idOf(start));

    const invoke = one(spans, `invoke_agent ${agentPlain.name}`);
    expect(parentOf(invoke)).toBe(idOf(workflow));
    expect(invoke.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': agentPlain.name,
      'gen_ai.conversation.id': workflowId,
      'durable_agent.run.status': 'success',
    });

    // Every activity span hangs from the run's span: StartActivity (workflow) → RunActivity (worker).
    const runActivities = spans.filter((sp) => sp.name.startsWith('RunActivity:'));
    expect(runActivities.map((sp) => sp.name)).toEqual(
      expect.arrayContaining(['RunActivity:describeAgent', 'RunActivity:callModel', 'RunActivity:runTool']),
    );
    for (const ra of runActivities) {
      const startActivity = spans.find((sp) => idOf(sp) === parentOf(ra));
      expect(startActivity?.name, ra.name).toBe(ra.name.replace('RunActivity:', 'StartActivity:'));
      expect(parentOf(startActivity!)).toBe(idOf(invoke));
    }

    const [failedChat, ...chats] = spans
      .filter((sp) => sp.name === `chat ${agentPlain.name}`)
      .sort((a, b) => Number(a.status.code !== 2) - Number(b.status.code !== 2));
    expect(failedChat?.status).toMatchObject({ code: 2, message: 'overloaded, try later' }); // SpanStatusCode.ERROR
    expect(failedChat?.attributes).toMatchObject({ 'error.type': 'overloaded', 'gen_ai.request.model': agentPlain.name });
    expect(failedChat?.attributes['gen_ai.usage.input_tokens']).toBeUndefined();
    expect(chats).toHaveLength(2);
    for (const chat of chats) {
      expect(chat.status.code).not.toBe(2);
      expect(spans.find((sp) => idOf(sp) === parentOf(chat))?.name).toBe('RunActivity:callModel');
      expect(chat.attributes).toMatchObject({
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'scripted',
        'gen_ai.system': 'scripted',
        'gen_ai.request.model': agentPlain.name,
        'gen_ai.response.model': agentPlain.name,
      });
      expect(chat.attributes['gen_ai.usage.input_tokens']).toBeGreaterThan(0);
      expect(chat.attributes['gen_ai.usage.output_tokens']).toBeGreaterThan(0);
    }
    expect(chats.map((c) => c.attributes['gen_ai.response.finish_reasons'])).toEqual(expect.arrayContaining([['tool_use'], ['end_turn']]));

    for (const tool of ['echo', 'deploy']) {
      const exec = one(spans, `execute_tool ${tool}`);
      expect(spans.find((sp) => idOf(sp) === parentOf(exec))?.name).toBe('RunActivity:runTool');
      expect(exec.attributes).toMatchObject({
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': tool,
        'durable_agent.tool.outcome': 'ok',
      });
      expect(exec.attributes['gen_ai.tool.call.id']).toMatch(/^call_/);
    }

    const approval = one(spans, 'approval deploy');
    expect(parentOf(approval)).toBe(idOf(invoke));
    expect(approval.attributes).toMatchObject({
      'gen_ai.tool.name': 'deploy',
      'gen_ai.tool.call.id': one(spans, 'execute_tool deploy').attributes['gen_ai.tool.call.id'],
      'durable_agent.approval.decision': 'approve',
      'durable_agent.approval.by': 'ops:alice',
    });
    expect(approval.attributes['durable_agent.approval.wait_ms']).toBeGreaterThanOrEqual(300);
    const [s, ns] = approval.duration;
    expect(s * 1000 + ns / 1e6).toBeGreaterThanOrEqual(300);
  });

  it('records no prompt, output, argument or result by default', () => {
    const text = allContent(traced.spans);
    for (const secret of ['secret-prompt-text', 'secret-echo-text', 'secret-service', 'secret-answer']) expect(text).not.toContain(secret);
    for (const key of ['gen_ai.input.messages', 'gen_ai.output.messages', 'gen_ai.tool.call.arguments', 'gen_ai.tool.call.result'])
      expect(text).not.toContain(key);
    // Nor the reason people gave for a decision (the approval span's events).
    expect(JSON.stringify(traced.spans.map((sp) => sp.events))).not.toContain('secret-approval-reason');
  });

  it('records them with captureContent', async () => {
    const { spans } = await tracedRun(sides.content, agentContent.name);
    const chats = spans.filter((sp) => sp.name === `chat ${agentContent.name}`);
    expect(chats).toHaveLength(2);
    const input = JSON.parse(chats[0]!.attributes['gen_ai.input.messages'] as string) as unknown;
    expect(input).toEqual([{ role: 'user', parts: [{ type: 'text', content: 'secret-prompt-text' }] }]);
    expect(chats.map((c) => c.attributes['gen_ai.output.messages']).join()).toContain('secret-answer');
    const echoSpan = one(spans, 'execute_tool echo');
    expect(JSON.parse(echoSpan.attributes['gen_ai.tool.call.arguments'] as string)).toEqual({ text: 'secret-echo-text' });
    expect(echoSpan.attributes['gen_ai.tool.call.result']).toBe('secret-echo-text');
    const decided = one(spans, 'approval deploy').events.find((e) => e.name === 'approval.decided');
    expect(decided?.attributes).toMatchObject({
      'durable_agent.approval.reason': 'secret-approval-reason',
      'durable_agent.approval.by': 'ops:alice',
    });
  });

  it('puts what happened to an approval on its span as events, and a zero-length span for a call decided with nobody asked', async () => {
    const s = sides.plain;
    const run = await s.client.start(agentAudit.name, { input: 'go', policy: { echo: 'deny' } });
    const [pending] = await waitForPending(run);
    await run.defer({ callId: pending!.callId, until: new Date(Date.now() + 200), by: 'ops:bob' });
    await waitForPending(run); // it returns to the inbox at its time
    await run.decide({ callId: pending!.callId, decision: 'approve', by: 'ops:alice', reason: 'secret-reason-text' });
    expect((await resultWithin(run)).status).toBe('success');
    const mine = () => exporter.getFinishedSpans().filter((sp) => sp.attributes['gen_ai.agent.name'] === agentAudit.name);
    for (let i = 0; i < 50 && mine().length < 3; i++) await new Promise((r) => setTimeout(r, 100));
    const waited = one(mine(), 'approval deploy');
    expect(waited.events.map((e) => [e.name, e.attributes])).toEqual([
      ['approval.requested', {}],
      [
        'approval.deferred',
        {
          'durable_agent.approval.by': 'ops:bob',
          'durable_agent.approval.path': 'sdk',
          'durable_agent.approval.until': expect.any(String),
        },
      ],
      ['approval.returned', {}],
      ['approval.decided', { 'durable_agent.approval.by': 'ops:alice', 'durable_agent.approval.path': 'sdk' }],
    ]);
    expect(waited.attributes).toMatchObject({ 'durable_agent.approval.decision': 'approve', 'durable_agent.approval.path': 'sdk' });
    // A reason is what a person wrote: not recorded.
    expect(JSON.stringify(waited.events)).not.toContain('secret-reason-text');
    const auto = one(mine(), 'approval echo');
    expect(auto.attributes).toMatchObject({
      'durable_agent.approval.decision': 'deny',
      'durable_agent.approval.path': 'policy',
      'durable_agent.approval.wait_ms': 0,
    });
    expect(auto.duration).toEqual([0, 0]);
    expect(auto.events.map((e) => e.name)).toEqual(['approval.decided']);
  });

  it('adds no span when the run is replayed with the same tracing, and replays without tracing too', async () => {
    const before = exporter.getFinishedSpans().length;
    const history = await sides.plain.client.temporal.workflow.getHandle(traced.workflowId).fetchHistory();
    await Worker.runReplayHistory(
      { workflowBundle: bundle, plugins: [durableAgents({ agents, providers, tracing: plain, encryption: false })] },
      history,
      traced.workflowId,
    );
    await new Promise((r) => setTimeout(r, 200));
    expect(exporter.getFinishedSpans().length).toBe(before);
    // Tracing turned off: the traced run replays on an untraced worker.
    await Worker.runReplayHistory({ workflowBundle: { codePath: inject('workflowBundlePath') } }, history, traced.workflowId);
  });

  it('turning tracing on keeps the recorded histories (recorded without tracing) replaying', { timeout: 60_000 }, async () => {
    const before = exporter.getFinishedSpans().length;
    const files = historyFiles();
    const broken: string[] = [];
    const replays = Worker.runReplayHistories(
      { workflowBundle: bundle, plugins: [durableAgents({ agents: [], tracing: plain, encryption: false })] },
      files.map((f) => loadHistory(f)),
    );
    for await (const r of replays) if (r.error) broken.push(`${r.workflowId}: ${r.error.message.split('\n')[0]}`);
    expect(broken).toEqual([]);
    expect(files.length).toBeGreaterThan(50);
    expect(exporter.getFinishedSpans().length).toBe(before);
  });
});

const noop = () => undefined;
const quiet = { log: noop, trace: noop, debug: noop, info: noop, warn: noop, error: (m: string) => console.error(m) };
