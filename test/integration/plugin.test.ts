/**
 * The `durableAgents` worker plugin and `runAgent`/`startAgent` on the real dev server: a plain
 * `Worker.create({ plugins: [durableAgents(...)] })` hosts the user's own workflows and activity and the
 * agents; a user workflow runs an agent as a child, waits for a signal, then calls its own activity. The
 * agent's approval is decided from the inbox, the parent is cancelled while its agent waits, a worker
 * process is killed (-9) while the child runs, the new histories replay, and the refund example runs.
 *
 * One workflow bundle (the user's workflows + the agent workflows) serves every worker of this file: it
 * is built exactly as `Worker.create({ workflowsPath })` builds it (the plugin's `configureWorker`, then
 * the bundler with the plugin's `configureBundler`).
 */
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, expectTypeOf, inject, it } from 'vitest';
import { Client, Connection, WorkflowFailedError } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Worker, bundleWorkflowCode } from '@temporalio/worker';
import { AgentClient } from '../../src/client';
import { durableAgentsClient } from '../../src/client/plugin';
import type { AgentRunResult } from '../../src/core/run/result';
import { EncryptionCodec } from '../../src/integrations/encryption/payload-codec';
import { FileBlobStore } from '../../src/integrations/store/blob-store';
import { durableAgents, STICKY_TIMEOUT_MS } from '../../src/worker/plugin';
import { combinedWorkflowsEntry, WORKFLOWS_PATH } from '../../src/worker/workflows-entry';
import * as refund from '../../examples/refund-workflow';
import type { AgentResultOf } from '../../src/workflows/run-agent';
import { effects, pluginApp, userActivities } from '../fixtures/plugin-app';
import { agentsNexusHandler } from '../fixtures/nexus-handler';
import type { RunAgentOptions } from '../../src/entry/workflow';
import { nexusCallerWorkflow, orderStateQuery, orderWithAgentWorkflow, proceedSignal, runAgentWorkflow } from '../fixtures/user-workflows';
import type { OrderState } from '../fixtures/user-workflows';
import { installTestRuntime, testId } from '../helpers/harness';

const ROOT = resolve(__dirname, '..', '..');
const USER_WORKFLOWS = join(ROOT, 'test', 'fixtures', 'user-workflows.ts');
const work = mkdtempSync(join(tmpdir(), 'durable-agent-plugin-'));
const effectsDir = join(work, 'effects');
const storeDir = join(work, 'store');
mkdirSync(effectsDir);
const bundlePath = join(work, 'bundle.js');
const quiet = new DefaultLogger('ERROR');

let nativeConnection: NativeConnection;
let connection: Connection;
let worker: Worker;
let running: Promise<void>;
let temporal: Client;
let client: AgentClient;
const taskQueue = testId('plugin');
const children = new Set<ChildProcess>();

beforeAll(async () => {
  installTestRuntime();
  const address = inject('temporalAddress');
  nativeConnection = await NativeConnection.connect({ address });
  const { agents, providers } = pluginApp(effectsDir);
  const plugin = durableAgents({ agents, providers, store: new FileBlobStore(storeDir), encryption: false });
  // What Worker.create does with `workflowsPath`: the plugin's configureWorker, then a bundler with the plugins.
  const configured = await plugin.configureWorker({ connection: nativeConnection, taskQueue, workflowsPath: USER_WORKFLOWS });
  const bundle = await bundleWorkflowCode({ workflowsPath: configured.workflowsPath as string, plugins: [plugin], logger: quiet });
  writeFileSync(bundlePath, bundle.code);
  worker = await Worker.create({
    connection: nativeConnection,
    taskQueue,
    workflowBundle: { codePath: bundlePath },
    activities: userActivities(effectsDir),
    nexusServices: [agentsNexusHandler],
    plugins: [plugin],
  });
  running = worker.run();
  connection = await Connection.connect({ address });
  temporal = new Client({ connection, plugins: [durableAgentsClient({ encryption: false })] });
  client = await AgentClient.connect({ client: temporal, taskQueue });
}, 120_000);

afterAll(async () => {
  for (const proc of children) proc.kill('SIGKILL');
  worker?.shutdown();
  await running;
  await connection?.close();
  await nativeConnection?.close();
  rmSync(work, { recursive: true, force: true });
});

async function waitFor<T>(probe: () => Promise<T | undefined> | T | undefined, what: string, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The order workflow's state once `ok` holds. */
function orderState(workflowId: string, ok: (s: OrderState) => boolean, what: string, t = temporal): Promise<OrderState> {
  return waitFor(async () => {
    const s = await t.workflow.getHandle(workflowId).query(orderStateQuery);
    return ok(s) ? s : undefined;
  }, what);
}

describe('the durableAgents plugin', () => {
  it('configures a worker: agent activities beside yours, the codec appended once, the agent workflows bundled with yours, durability defaults unless set', async () => {
    const plugin = durableAgents({
      agents: [],
      searchAttributes: false,
      encryption: false,
      store: new FileBlobStore(join(work, 'probe-store')),
    });
    const mine = { myActivity: async () => 'mine' };
    const options = await plugin.configureWorker({
      taskQueue: 'q',
      workflowsPath: USER_WORKFLOWS,
      activities: mine,
      stickyQueueScheduleToStartTimeout: '9s',
    });
    expect(Object.keys(options.activities ?? {})).toEqual(
      expect.arrayContaining(['myActivity', 'describeAgent', 'callModel', 'runTool', 'checkApprovals']),
    );
    expect(options.stickyQueueScheduleToStartTimeout).toBe('9s'); // the user's setting wins
    expect((await plugin.configureWorker({ taskQueue: 'q' })).stickyQueueScheduleToStartTimeout).toBe(STICKY_TIMEOUT_MS);
    expect(options.dataConverter?.payloadCodecs?.filter((c) => c instanceof EncryptionCodec)).toHaveLength(1);
    // The entry exports both; applying the plugin again (the bundler does) changes nothing.
    const entry = options.workflowsPath as string;
    expect(readFileSync(entry, 'utf8')).toContain(`export * from ${JSON.stringify(USER_WORKFLOWS)}`);
    expect(readFileSync(entry, 'utf8')).toContain(`export * from ${JSON.stringify(resolve(WORKFLOWS_PATH))}`);
    expect(plugin.configureBundler({ workflowsPath: entry }).workflowsPath).toBe(entry);
    expect(combinedWorkflowsEntry(undefined)).toBe(WORKFLOWS_PATH); // createWorker: the agent workflows alone
    // A prebuilt bundle is left alone (it must hold the agent workflows already).
    expect((await plugin.configureWorker({ taskQueue: 'q', workflowBundle: { codePath: bundlePath } })).workflowsPath).toBeUndefined();
    // A user activity named like an agent activity is refused, naming it.
    await expect(plugin.configureWorker({ taskQueue: 'q', activities: { callModel: async () => 1 } })).rejects.toThrow(
      /"callModel" have the names of agent activities/,
    );
    // The client side: the codec, once, over the client's own converter.
    const c = new Client({ connection, plugins: [durableAgentsClient({ encryption: false }), plugin] });
    expect(c.options.dataConverter.payloadCodecs).toHaveLength(2);
  });

  it('a user workflow runs an agent (a child workflow, an ordinary run), waits for a signal, then calls its own activity', async () => {
    const id = testId('order');
    const order = await temporal.workflow.start(orderWithAgentWorkflow, {
      taskQueue,
      workflowId: id,
      args: [{ agent: 'helper', prompt: 'Look up order 7' }],
    });
    const state = await orderState(id, (s) => s.stage === 'waiting', 'the agent to finish');
    expect(state.agentStatus).toBe('success');
    const child = state.child as string;
    expect(child.startsWith(`${id}--helper-`)).toBe(true);
    // The agent's run reads like any run: result with its report, events ending in done, its parent in Temporal.
    const run = client.get(child);
    const result = await run.result();
    expect(result).toMatchObject({ status: 'success', finalText: 'Order 7 looked up.' });
    expect(result.report.toolCalls.map((c) => c.tool)).toEqual(['lookup']);
    const events = [];
    for await (const e of run.events()) events.push(e.type);
    expect(events.at(-1)).toBe('done');
    expect((await temporal.workflow.getHandle(child).describe()).parentExecution?.workflowId).toBe(id);
    // Nothing of the user's activity before the signal.
    expect(effects(effectsDir, id)).toEqual([]);
    await order.signal(proceedSignal, 'ops:bob');
    expect(await order.result()).toEqual({
      agentStatus: 'success',
      finalText: 'Order 7 looked up.',
      child,
      receipt: `receipt-${id}`,
      by: 'ops:bob',
    });
    expect(effects(effectsDir, id)).toEqual(['outcome success: Order 7 looked up.']);
  });

  it("the agent's approval is listed by the inbox with the user workflow as its parent, and decided from there", async () => {
    const id = testId('order-approval');
    const order = await temporal.workflow.start(orderWithAgentWorkflow, {
      taskQueue,
      workflowId: id,
      args: [{ agent: 'guarded', prompt: 'Refund order 7' }],
    });
    const waiting = await waitFor(
      async () => (await client.awaitingApproval()).find((r) => r.parent?.workflowId === id),
      'the inbox to list the agent',
    );
    expect(waiting.agent).toBe('guarded');
    expect(waiting.pending.map((p) => p.tool)).toEqual(['refund']);
    expect(waiting.parent?.runId).toBe(order.firstExecutionRunId);
    await client.get(waiting.workflowId).decide({ callId: waiting.pending[0]?.callId as string, decision: 'approve', by: 'ops:alice' });
    await orderState(id, (s) => s.stage === 'waiting', 'the agent to finish');
    await order.signal(proceedSignal, 'ops:bob');
    expect(await order.result()).toMatchObject({ agentStatus: 'success', finalText: 'Refund handled.', child: waiting.workflowId });
    const result = await client.get(waiting.workflowId).result();
    expect(result.report.toolCalls).toMatchObject([{ tool: 'refund', args: { orderId: '7', amount: 20 } }]);
  });

  it('cancelling the user workflow while its agent waits cancels the agent, which ends `cancelled` with its result', async () => {
    const id = testId('order-cancel');
    const order = await temporal.workflow.start(orderWithAgentWorkflow, {
      taskQueue,
      workflowId: id,
      args: [{ agent: 'guarded', prompt: 'Refund order 7' }],
    });
    const { child } = await orderState(id, (s) => s.child !== undefined, 'the agent to start');
    await waitFor(async () => (await client.get(child as string).pendingApprovals()).length > 0 || undefined, 'the approval');
    await order.cancel();
    await expect(order.result()).rejects.toBeInstanceOf(WorkflowFailedError);
    expect((await order.describe()).status.name).toBe('CANCELLED');
    const result = await client.get(child as string).result();
    expect(result.status).toBe('cancelled');
    expect(result.report.toolCalls).toMatchObject([{ tool: 'refund' }]);
    expect(effects(effectsDir, id)).toEqual([]); // the user's activity never ran
  });

  it('the refund example: an agent drafts the refund, a person approves, the workflow pays with its own activity', async () => {
    const lines: string[] = [];
    const outcome = await refund.main(temporal, taskQueue, (l) => lines.push(l), testId('example-refund'));
    expect(outcome).toMatchObject({ status: 'paid', amount: 25, approvedBy: 'ops:alice' });
    expect(lines).toContain('proposal: 25 (Refund 2 damaged item(s): mug, mug)');
    expect(lines).toContain('  agent: order_details({"orderId":"42"})');
  });

  it('Nexus: a workflow calls an agent through a Nexus endpoint (an operation backed by an agent run)', async () => {
    const endpoint = `agents-${randomUUID().slice(0, 8)}`;
    await connection.operatorService.createNexusEndpoint({
      spec: { name: endpoint, target: { worker: { namespace: 'default', taskQueue } } },
    });
    const id = testId('nexus-caller');
    const result = await temporal.workflow.execute(nexusCallerWorkflow, {
      taskQueue,
      workflowId: id,
      args: [{ endpoint, agent: 'helper', prompt: 'Look up order 7' }],
    });
    expect(result).toEqual({ status: 'success', finalText: 'Order 7 looked up.' });
    // The operation ran an ordinary agent run, linked from the caller's history.
    const history = await temporal.workflow.getHandle(id).fetchHistory();
    const started = history.events?.find((e) => e.nexusOperationStartedEventAttributes);
    expect(
      started?.nexusOperationStartedEventAttributes?.operationToken ?? started?.nexusOperationStartedEventAttributes?.operationId,
    ).toBeTruthy();
    const runs = [];
    for await (const w of temporal.workflow.list({ query: `WorkflowId STARTS_WITH 'nexus-helper-'` })) runs.push(w.workflowId);
    expect(runs.length).toBeGreaterThanOrEqual(1);
  });

  it('runAgent returns every ending as a result (its options reach the run), and fails the workflow clearly on malformed options', async () => {
    const capped = await temporal.workflow.execute(runAgentWorkflow, {
      taskQueue,
      workflowId: testId('run-agent'),
      args: [{ agent: 'helper', options: { input: 'Look up order 7', maxSteps: 1, budget: { timeout: '1h' } } }],
    });
    expect(capped.status).toBe('max_steps');
    expect(capped.report.toolCalls.map((c) => c.tool)).toEqual(['lookup']);
    const bad = temporal.workflow.execute(runAgentWorkflow, {
      taskQueue,
      workflowId: testId('run-agent-bad'),
      args: [{ agent: 'helper', options: { input: 'x', budget: { timeout: 'soon' } } }],
    });
    await expect(bad).rejects.toMatchObject({
      cause: {
        type: 'invalid_input',
        message: expect.stringMatching(/runAgent\("helper", options\): options\.budget\.timeout must be a positive duration/),
      },
    });
    const noInput = temporal.workflow.execute(runAgentWorkflow, {
      taskQueue,
      workflowId: testId('run-agent-bad'),
      args: [{ agent: 'helper', options: {} as { input: string } }],
    });
    await expect(noInput).rejects.toMatchObject({
      cause: { type: 'invalid_input', message: expect.stringContaining('options.input must be the user') },
    });
  });

  it('runAgent: a policy loosening an approval needs the waiver, a typo is refused (the run ends invalid_input)', async () => {
    const run = (options: RunAgentOptions) =>
      temporal.workflow.execute(runAgentWorkflow, {
        taskQueue,
        workflowId: testId('run-agent-policy'),
        args: [{ agent: 'guarded', options }],
      });
    const loosened = await run({ input: 'Refund order 7', policy: { refund: 'allow' } });
    expect(loosened).toMatchObject({
      status: 'invalid_input',
      error: { message: expect.stringMatching(/"refund": "allow", a tool that needs approval/) },
    });
    expect(loosened.report.toolCalls).toEqual([]);
    const typo = await run({ input: 'Refund order 7', policy: { refnud: 'deny' } });
    expect(typo).toMatchObject({ status: 'invalid_input', error: { message: expect.stringMatching(/did you mean refund\?/) } });
    const waived = await run({ input: 'Refund order 7', policy: { refund: 'allow' }, approvalWaiver: { by: 'ops:root' } });
    expect(waived).toMatchObject({ status: 'success', finalText: 'Refund handled.' });
    const badWaiver = run({ input: 'x', approvalWaiver: { by: '' } });
    await expect(badWaiver).rejects.toMatchObject({
      cause: { type: 'invalid_input', message: expect.stringMatching(/options\.approvalWaiver\.by must name who may approve/) },
    });
  });

  it('runAgent results are typed by the agent', () => {
    type Drafted = AgentResultOf<typeof refund.refundDrafter>;
    expectTypeOf<Extract<Drafted, { status: 'success' }>['output']>().toEqualTypeOf<{ amount: number; note: string }>();
    expectTypeOf<AgentResultOf<typeof refund.refundDrafter>>().toMatchTypeOf<AgentRunResult>();
  });
});

/** A worker process of the plugin (test/fixtures/plugin-worker.ts) on `queue`; resolves once it polls. */
function startWorkerProcess(queue: string): Promise<{ proc: ChildProcess; output: () => string; exited: Promise<unknown> }> {
  const proc = spawn(process.execPath, ['--import', 'tsx', join('test', 'fixtures', 'plugin-worker.ts')], {
    cwd: ROOT,
    env: {
      ...process.env,
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      PLUGIN_TASK_QUEUE: queue,
      PLUGIN_WORKFLOW_BUNDLE: bundlePath,
      PLUGIN_STORE_DIR: join(work, 'kill-store'),
      PLUGIN_EFFECTS_DIR: effectsDir,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(proc);
  let out = '';
  proc.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise((res) => proc.once('exit', (code, signal) => (children.delete(proc), res({ code, signal }))));
  return new Promise((res, rej) => {
    const timer = setTimeout(() => rej(new Error(`worker did not start within 60 s:\n${out}`)), 60_000);
    proc.stdout?.on('data', () => {
      if (/^ready$/m.test(out)) {
        clearTimeout(timer);
        res({ proc, output: () => out, exited });
      }
    });
    void exited.then((e) => {
      clearTimeout(timer);
      rej(new Error(`worker exited (${JSON.stringify(e)}) before it was ready:\n${out}`));
    });
  });
}

describe('a worker killed while the agent runs', () => {
  const ids: string[] = [];

  it(
    "kill -9 during the child agent's tool: a new worker process finishes the agent and the user workflow",
    { timeout: 120_000 },
    async () => {
      const queue = testId('plugin-kill');
      const first = await startWorkerProcess(queue);
      const id = testId('order-kill');
      const childId = `${id}--slow`;
      ids.push(id, childId);
      const order = await temporal.workflow.start(orderWithAgentWorkflow, {
        taskQueue: queue,
        workflowId: id,
        args: [{ agent: 'slow', prompt: 'Write slowly', childId }],
      });
      await waitFor(
        () => effects(effectsDir, childId).includes('start call_1_0') || undefined,
        `the slow tool to start; worker said:\n${first.output()}`,
      );
      first.proc.kill('SIGKILL');
      await first.exited;
      expect(effects(effectsDir, childId)).toEqual(['start call_1_0']);
      const second = await startWorkerProcess(queue);
      const state = await orderState(id, (s) => s.stage === 'waiting', 'the agent to finish on the new worker');
      expect(state.agentStatus).toBe('success');
      await order.signal(proceedSignal, 'ops:bob');
      expect(await order.result()).toMatchObject({
        agentStatus: 'success',
        finalText: 'Written slowly.',
        child: childId,
        receipt: `receipt-${id}`,
      });
      // The interrupted call ran again on the new worker (at least once: the tool started twice, finished once); the user's activity ran once.
      expect(effects(effectsDir, childId)).toEqual(['start call_1_0', 'start call_1_0', 'done call_1_0']);
      expect(effects(effectsDir, id)).toEqual(['outcome success: Written slowly.']);
      const result = await client.get(childId).result();
      expect(result.report.toolCalls[0]?.workerLosses).toBe(1);
      second.proc.kill('SIGTERM');
      await second.exited;
    },
  );

  it('the histories of the user workflow and of its agent replay against the bundle', async () => {
    expect(ids).toHaveLength(2);
    const histories = await Promise.all(
      ids.map(async (workflowId) => ({ workflowId, history: await temporal.workflow.getHandle(workflowId).fetchHistory() })),
    );
    const errors: Array<string | undefined> = [];
    for await (const r of Worker.runReplayHistories(
      {
        workflowBundle: { codePath: bundlePath },
        plugins: [
          durableAgents({ agents: [], encryption: false, searchAttributes: false, store: new FileBlobStore(join(work, 'replay-store')) }),
        ],
      },
      histories,
    ))
      errors.push(r.error?.message);
    expect(errors).toEqual([undefined, undefined]);
  });
});
