/**
 * The client and worker API on the real dev server: abortable event iteration, typed errors (run not
 * found, refused decision), connection settings from Temporal's environment configuration, and
 * `close()` releasing exactly the connections each side opened.
 */
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { Connection } from '@temporalio/client';
import type { NativeConnection } from '@temporalio/worker';
import { AgentClient, ApprovalRefusedError, RunNotFoundError } from '../../src/client';
import type { AgentRun } from '../../src/client';
import { DurableAgentError } from '../../src/core/run/errors';
import type { AgentEvent } from '../../src/core/events/events';
import { MemoryBlobStore } from '../../src/integrations/store/blob-store';
import { createWorker } from '../../src/worker';
import { ScriptedAgents } from '../helpers/agents';
import type { Harness } from '../helpers/harness';
import { startHarness, testId } from '../helpers/harness';
import { deploy } from '../helpers/tools';

const S = new ScriptedAgents();
const waits = S.add('waits', [{ toolCalls: [{ name: 'deploy', args: { service: 'api' } }] }, { text: 'deployed' }], { tools: [deploy] });
const plain = S.add('plain', [{ text: 'hello there' }], { tools: [deploy] });

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ agents: S.agents, providers: { scripted: S.provider } });
});
afterAll(async () => {
  await h?.stop();
});

/** Every Temporal connection variable, restored after each test that changes them. */
const TEMPORAL_VARS = [
  'TEMPORAL_ADDRESS',
  'TEMPORAL_NAMESPACE',
  'TEMPORAL_PROFILE',
  'TEMPORAL_CONFIG_FILE',
  'TEMPORAL_API_KEY',
  'TEMPORAL_TLS',
];
const savedEnv = Object.fromEntries(TEMPORAL_VARS.map((k) => [k, process.env[k]]));
afterEach(() => {
  for (const [k, v] of Object.entries(savedEnv)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
});
function useEnv(vars: Record<string, string>): void {
  for (const k of TEMPORAL_VARS) delete process.env[k];
  Object.assign(process.env, vars);
}

async function waitForPending(run: AgentRun): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if ((await run.pendingApprovals()).length) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no pending approval on ${run.workflowId}`);
}

describe('runs start with a short workflow task timeout', () => {
  it('5 s, so a worker killed holding a workflow task delays its run at most that long', async () => {
    const run = await h.client.start(plain, { input: 'hi', workflowId: testId('wtt') });
    await run.result();
    const started = (await run.handle.fetchHistory()).events?.[0]?.workflowExecutionStartedEventAttributes;
    expect(Number(started?.workflowTaskTimeout?.seconds ?? 0)).toBe(5);
  });
});

describe('run.events({ signal })', () => {
  it('returns promptly when aborted during the poll wait (not after pollMs)', async () => {
    const run = await h.client.start(waits, { input: 'deploy', workflowId: testId('abort-events') });
    await waitForPending(run); // the run now waits for a person: no new events for as long as we like
    const controller = new AbortController();
    const seen: AgentEvent[] = [];
    const started = Date.now();
    const iterate = (async () => {
      for await (const e of run.events({ pollMs: 60_000, signal: controller.signal })) seen.push(e);
      return Date.now();
    })();
    await new Promise((r) => setTimeout(r, 1000)); // let it read everything and fall into the 60 s wait
    const abortedAt = Date.now();
    controller.abort();
    const ended = await Promise.race([iterate, new Promise<'still waiting'>((r) => setTimeout(() => r('still waiting'), 10_000))]);
    expect(ended, 'the iteration ended after the abort').not.toBe('still waiting');
    expect((ended as number) - abortedAt).toBeLessThan(2000);
    expect((ended as number) - started).toBeLessThan(60_000);
    expect(seen.map((e) => e.type)).toContain('approval_requested');
    await run.cancel();
    expect((await run.result()).status).toBe('cancelled');
  });

  it('an already aborted signal yields nothing', async () => {
    const run = await h.client.start(plain, { input: 'hi', workflowId: testId('pre-aborted') });
    await run.result();
    const seen: AgentEvent[] = [];
    for await (const e of run.events({ signal: AbortSignal.abort() })) seen.push(e);
    expect(seen).toEqual([]);
    const all: AgentEvent[] = [];
    for await (const e of run.events()) all.push(e);
    expect(all.at(-1)?.type).toBe('done');
  });
});

describe('typed errors', () => {
  it('a workflow id with no run gives RunNotFoundError (code run_not_found)', async () => {
    const run = h.client.get(testId('no-such-run'));
    for (const attempt of [() => run.result(), () => run.snapshot(), () => run.pendingApprovals(), () => run.cancel()]) {
      const err = await attempt().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(RunNotFoundError);
      expect(err).toBeInstanceOf(DurableAgentError);
      expect(err).toMatchObject({ code: 'run_not_found', workflowId: run.workflowId });
    }
    await expect(
      (async () => {
        for await (const e of run.events()) void e;
      })(),
    ).rejects.toBeInstanceOf(RunNotFoundError);
  });

  it('a refused decision is an ApprovalRefusedError (code approval_refused), a DurableAgentError', async () => {
    const run = await h.client.start(waits, { input: 'deploy', workflowId: testId('refused') });
    await waitForPending(run);
    const err = await run.decide({ callId: 'no-such-call', decision: 'approve', by: 'ops:test' }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ApprovalRefusedError);
    expect(err).toBeInstanceOf(DurableAgentError);
    expect(err).toMatchObject({ code: 'approval_refused', name: 'ApprovalRefusedError' });
    expect((err as Error).message).toMatch(/no-such-call/);
    const [pending] = await run.pendingApprovals();
    expect(pending).toMatchObject({ tool: 'deploy', args: { service: 'api' } });
    await run.decide({ callId: pending!.callId, decision: 'approve', by: 'ops:test' });
    expect(await run.result()).toMatchObject({ status: 'success', finalText: 'deployed' });
  });

  it('start() rejects a missing agent name or input before calling the server', async () => {
    await expect(h.client.start('', { input: 'x' })).rejects.toMatchObject({
      code: 'invalid_input',
      message: expect.stringMatching(/agent/),
    });
    // @ts-expect-error -- input missing on purpose
    await expect(h.client.start(plain, {})).rejects.toMatchObject({
      code: 'invalid_input',
      message: expect.stringMatching(/options\.input/),
    });
  });
});

describe('AgentClient.connect and close', () => {
  it('connects with TEMPORAL_ADDRESS and TEMPORAL_NAMESPACE from the environment, and close() closes that connection', async () => {
    useEnv({ TEMPORAL_ADDRESS: inject('temporalAddress'), TEMPORAL_NAMESPACE: 'default' });
    const client = await AgentClient.connect({ taskQueue: h.taskQueue });
    expect(client.temporal.options.namespace).toBe('default');
    const run = await client.start(plain, { input: 'hi', workflowId: testId('env-connect') });
    expect(await run.result()).toMatchObject({ status: 'success', finalText: 'hello there' });
    await client.close();
    await client.close(); // twice is fine
    await expect(client.temporal.workflowService.getSystemInfo({})).rejects.toThrow();
    await expect(client.get(run.workflowId).snapshot()).rejects.toThrow();
  });

  it('takes the namespace from the environment, and explicit options win', async () => {
    useEnv({ TEMPORAL_ADDRESS: '127.0.0.1:1', TEMPORAL_NAMESPACE: 'from-env' });
    const client = await AgentClient.connect({ address: inject('temporalAddress'), taskQueue: h.taskQueue });
    try {
      expect(client.temporal.options.namespace).toBe('from-env');
      await client.temporal.workflowService.getSystemInfo({}); // reached the explicit address, not the variable's
    } finally {
      await client.close();
    }
    const explicit = await AgentClient.connect({ address: inject('temporalAddress'), namespace: 'default' });
    expect(explicit.temporal.options.namespace).toBe('default');
    await explicit.close();
  });

  it('leaves a connection it was given open', async () => {
    const connection = await Connection.connect({ address: inject('temporalAddress') });
    try {
      const client = await AgentClient.connect({ connection, taskQueue: h.taskQueue });
      await client.close();
      await connection.workflowService.getSystemInfo({}); // still open
      const run = await client.start(plain, { input: 'hi', workflowId: testId('given-connection') });
      expect((await run.result()).status).toBe('success');
    } finally {
      await connection.close();
    }
  });
});

describe('AgentWorker.close', () => {
  const bundle = () => ({ codePath: inject('workflowBundlePath') });

  /** True when the worker's connection refuses calls (it was closed). */
  async function connectionClosed(connection: NativeConnection | undefined): Promise<boolean> {
    expect(connection).toBeDefined();
    return connection!.workflowService.getSystemInfo({}).then(
      () => false,
      () => true,
    );
  }

  it('a worker connected from the environment runs a run; close() stops it and closes its connection', async () => {
    useEnv({ TEMPORAL_ADDRESS: inject('temporalAddress'), TEMPORAL_NAMESPACE: 'default' });
    const taskQueue = testId('env-worker');
    const worker = await createWorker({
      agents: S.agents,
      providers: { scripted: S.provider },
      store: new MemoryBlobStore(),
      taskQueue,
      workflowBundle: bundle(),
    });
    expect(worker.namespace).toBe('default');
    const connection = worker.worker.connection;
    const running = worker.run();
    const run = await new AgentClient(h.temporal, taskQueue).start(plain, { input: 'hi', workflowId: testId('env-worker-run') });
    expect(await run.result()).toMatchObject({ status: 'success', finalText: 'hello there' });
    expect(await connectionClosed(connection)).toBe(false);
    await worker.close();
    await running;
    expect(worker.worker.getState()).toBe('STOPPED');
    expect(await connectionClosed(connection)).toBe(true);
    await worker.close(); // twice is fine
  });

  it('run() ending (shutdown) closes the connection the worker opened', async () => {
    const worker = await createWorker({
      agents: S.agents,
      address: inject('temporalAddress'),
      taskQueue: testId('shutdown-worker'),
      workflowBundle: bundle(),
    });
    const connection = worker.worker.connection;
    const running = worker.run();
    await new Promise((r) => setTimeout(r, 200));
    worker.shutdown();
    await running;
    expect(await connectionClosed(connection)).toBe(true);
  });

  it('close() of a worker that never ran releases its connection', async () => {
    const worker = await createWorker({
      agents: S.agents,
      address: inject('temporalAddress'),
      taskQueue: testId('idle-worker'),
      workflowBundle: bundle(),
    });
    const connection = worker.worker.connection;
    await worker.close();
    expect(await connectionClosed(connection)).toBe(true);
  });

  it('a connection passed in stays open', async () => {
    const worker = await createWorker({
      agents: S.agents,
      connection: h.worker.worker.connection!,
      taskQueue: testId('shared-conn'),
      workflowBundle: bundle(),
    });
    const running = worker.run();
    await worker.close();
    await running;
    expect(await connectionClosed(h.worker.worker.connection)).toBe(false);
  });
});
