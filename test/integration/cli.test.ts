/**
 * The `durable-agent` command, run as a child process against the real dev server of the test run
 * (and once with no server at all, so it starts the embedded one itself).
 */
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { ContentBlock, ToolResultBlock } from '../../src/core/messages/messages';
import { outputText } from '../../src/core/messages/messages';
import type { AgentRunResult } from '../../src/core/run/result';
import { Client, Connection } from '@temporalio/client';
import { livePollers } from '../../apps/cli/pollers';
import { agentTaskQueue } from '../../src/core/run/contract';
import { DEMO_AGENT, demoWorkerConfig, OFFLINE_LABEL } from '../../apps/cli/demo';
import { isReachable } from '../../apps/cli/dev-server/dev-server';
import { freePort, runCli, soleError, startCli, tempHome } from '../helpers/cli-run';
import type { Harness } from '../helpers/harness';
import { startHarness } from '../helpers/harness';

const OFFLINE_NOTE = 'offline demo model: scripted, not an LLM; set ANTHROPIC_API_KEY to use Claude';

const home = tempHome();
const address = inject('temporalAddress');
// A task queue of this file's own: CLI runs here never meet workers of other test files.
const taskQueue = `cli-${randomUUID()}`;
const workflowId = `cli-test-${randomUUID().slice(0, 8)}`;
const cli = (args: string[], env?: Record<string, string>) => runCli(args, { home, ...(env ? { env } : {}) });
const onServer = ['--address', address, '--task-queue', taskQueue];

describe('durable-agent run', () => {
  it('runs the demo agent, printing events, the offline label and the real calculator result', async () => {
    const r = await cli(['run', 'what is 12*(3+4)? remember that the CLI test ran', '--workflow-id', workflowId, ...onServer]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const out = r.stdout;
    expect(out.includes('\u001b[')).toBe(false); // no ANSI codes when not on a terminal
    expect(out).toContain(`note: ${OFFLINE_NOTE}`);
    expect(out).toContain(`worker: starting an in-process worker on task queue "${taskQueue}"`);
    expect(out).toContain(`run ${workflowId} started`);
    // Events, in the order they happened.
    const order = [
      '[run] agent assistant, model scripted/offline-demo',
      '[step 1] calling scripted/offline-demo',
      '[step 1] tool call calculator {"expression":"12*(3+4)"}',
      '[step 1] tool result calculator ok',
      '[step 1] tool result save_note ok',
      '[step 2] calling scripted/offline-demo',
      '[done] success after 2 steps',
      'Result',
    ].map((s) => out.indexOf(s));
    expect(order.every((i) => i >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    // The answer: labelled, and built from the real tool results.
    expect(out).toContain(`    ${OFFLINE_LABEL}\n    12*(3+4) = 84\n`);
    expect(out).toMatch(/status: +success/);
    expect(out).toMatch(/steps: +2/);
    expect(out).toMatch(/step 1 +scripted\/offline-demo +\d+ ms +tool_use/);
    expect(out).toMatch(/tool calculator +step 1 +\d+ ms +\d+ B/);
    // save_note really wrote into the state folder.
    const notes = readFileSync(join(home, 'notes.md'), 'utf8');
    expect(notes).toContain('the CLI test ran');
    // Marked with the call's idempotency key: the run's first execution id and the call id.
    expect(notes).toMatch(/<!-- [0-9a-f-]{36}\/call_\d+_\d+ -->/);
  });

  it('watch follows the finished run (hosting a worker for its demo agent on the task queue given, since the run command that had one has exited)', async () => {
    const r = await cli(['watch', workflowId, ...onServer]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`worker: started an in-process worker on task queue "${taskQueue}"`);
    expect(r.stdout).toContain('[step 1] tool result calculator ok');
    expect(r.stdout).toContain('[done] success after 2 steps');
    expect(r.stdout).toContain('12*(3+4) = 84');
  });

  it('result --json prints the AgentRunResult only', async () => {
    const r = await cli(['result', workflowId, '--json', '--address', address]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const result = JSON.parse(r.stdout) as AgentRunResult;
    expect(result.status).toBe('success');
    expect(result.steps).toBe(2);
    expect(result.finalText.split('\n')[0]).toBe(OFFLINE_LABEL);
    expect(result.finalText).toContain('12*(3+4) = 84');
    expect(result.report.workflowId).toBe(workflowId);
    // The offline demo model has no price: the cost is unknown (null), not $0.
    expect(result.costUsd).toBeNull();
    expect(result.report.costUsd).toBeNull();
    expect(result.report.unpricedSteps).toBe(2);
    expect(result.report.toolCalls.map((c) => c.tool)).toEqual(['calculator', 'word_count', 'current_time', 'save_note']);
    const calcId = result.report.toolCalls[0]!.callId;
    const calc = result.messages
      .flatMap((m): ContentBlock[] => m.content)
      .find((b): b is ToolResultBlock => b.type === 'tool_result' && b.toolUseId === calcId);
    expect(calc).toMatchObject({ isError: false, output: { type: 'text' } });
    expect(JSON.parse(outputText(calc!.output))).toEqual({ expression: '12*(3+4)', result: 84 });
  });

  it('run --json prints only JSON lines (its stream events, then the result), and a non-success run exits 1', async () => {
    const r = await cli(['run', 'hello there', '--max-steps', '1', '--json', ...onServer]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(1);
    const records = r.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; result?: AgentRunResult });
    expect(records[0]?.type).toBe('run_started');
    expect(records.at(-2)?.type).toBe('done');
    expect(records.at(-1)?.type).toBe('result');
    const result = records.at(-1)!.result!;
    expect(result.status).toBe('max_steps');
    expect(result.steps).toBe(1);
  });
});

describe('durable-agent bad input: one line on stderr, non-zero exit', () => {
  it('unknown agent (the CLI hosts the worker)', async () => {
    const r = await cli(['run', 'hi', '--agent', 'nope', ...onServer]);
    expect(soleError(r)).toBe('error: unknown agent "nope" (agents: assistant)');
  });

  it('missing prompt', async () => {
    expect(soleError(await cli(['run', ...onServer]))).toBe("error: missing required argument 'prompt'");
  });

  it('empty prompt', async () => {
    expect(soleError(await cli(['run', '  ', ...onServer]))).toBe('error: the prompt is empty');
  });

  it('unreachable server at an explicit address', async () => {
    const port = await freePort();
    expect(soleError(await cli(['run', 'hi', '--address', `127.0.0.1:${port}`]))).toBe(`error: cannot reach Temporal at 127.0.0.1:${port}`);
  });

  it('unknown workflow id', async () => {
    const id = `no-such-run-${randomUUID()}`;
    expect(soleError(await cli(['cancel', id, '--address', address]))).toBe(`error: no run with workflow id "${id}"`);
    expect(soleError(await cli(['result', id, '--address', address]))).toBe(`error: no run with workflow id "${id}"`);
  });

  it('unknown command and unknown option', async () => {
    expect(soleError(await cli(['frobnicate']))).toBe("error: unknown command 'frobnicate'");
    expect(soleError(await cli(['rn', 'hi']))).toMatch(/^error: unknown command 'rn' \(Did you mean run\?\)$/);
    expect(soleError(await cli(['run', 'hi', '--bogus']))).toBe("error: unknown option '--bogus'");
    expect(soleError(await cli(['run', 'hi', '--max-steps', 'zero']))).toMatch(
      /^error: option '--max-steps <n>' argument 'zero' is invalid/,
    );
  });
});

describe('durable-agent with an external worker', () => {
  let h: Harness;
  beforeAll(async () => {
    const demo = demoWorkerConfig({});
    h = await startHarness({ agents: demo.agents, providers: demo.providers });
  });
  afterAll(async () => {
    await h?.stop();
  });

  it('uses the worker that polls the queue; a run of an agent it lacks ends invalid_input, saying which agents it has', async () => {
    const r = await cli(['run', 'hi', '--agent', 'nope', '--address', address, '--task-queue', h.taskQueue]);
    expect(r.stdout).toContain(`worker: using the worker(s) already polling task queue "${h.taskQueue}"`);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('invalid_input');
    expect(r.stdout).toContain('Unknown agent "nope". Agents on this worker: assistant.');
  });

  it('cancel of a run that has ended is one error line', async () => {
    const run = await h.client.start('assistant', { input: 'what is 1+1', workflowId: `cli-ended-${randomUUID().slice(0, 8)}` });
    await run.result();
    expect(soleError(await cli(['cancel', run.workflowId, '--address', address]))).toBe(
      `error: run "${run.workflowId}" has already ended (completed)`,
    );
  });
});

describe('durable-agent run with no server running', () => {
  it('starts the embedded dev server with its SQLite file, runs, and stops what it started', { timeout: 150_000 }, async () => {
    const port = await freePort();
    const ownHome = tempHome();
    const cliPath = inject('temporalCliPath');
    const r = await runCli(['run', 'what is 2+2?'], {
      home: ownHome,
      env: { DURABLE_AGENT_DEV_PORT: String(port), ...(cliPath ? { DURABLE_AGENT_TEMPORAL_CLI: cliPath } : {}) },
      timeoutMs: 140_000,
    });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`starting the embedded Temporal dev server on port ${port}`);
    expect(r.stdout).toContain('[done] success after 2 steps');
    expect(r.stdout).toContain('2+2 = 4');
    expect(existsSync(join(ownHome, 'temporal.db'))).toBe(true);
    // The server's own output went to its log, not into the CLI's output.
    expect(r.stdout).not.toContain('Temporal Server:');
    expect(readFileSync(join(ownHome, 'temporal.log'), 'utf8')).toContain(`localhost:${port}`);
    expect(await isReachable(`127.0.0.1:${port}`)).toBe(false);
  });
});

describe('durable-agent dev', () => {
  it('serves the demo agents until SIGINT, then stops the worker and the server it started', { timeout: 150_000 }, async () => {
    const [port, uiPort] = [await freePort(), await freePort()];
    const devHome = tempHome();
    const cliPath = inject('temporalCliPath');
    const dev = startCli(['dev', '--ui-port', String(uiPort)], {
      home: devHome,
      env: { DURABLE_AGENT_DEV_PORT: String(port), ...(cliPath ? { DURABLE_AGENT_TEMPORAL_CLI: cliPath } : {}) },
      timeoutMs: 140_000,
    });
    try {
      await dev.waitFor('Press Ctrl-C to stop.');
      expect(dev.stdout()).toContain(`Temporal UI:       http://localhost:${uiPort}`);
      expect(dev.stdout()).toMatch(new RegExp(`Temporal address: +127\\.0\\.0\\.1:${port}`));
      expect(dev.stdout()).toContain(`Model:             ${OFFLINE_NOTE}`);
      expect(await isReachable(`127.0.0.1:${uiPort}`)).toBe(true);
      // A run from another process uses dev's worker.
      const r = await runCli(['run', 'what is 6*7?', '--port', String(port)], { home: devHome });
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      // Each agent on its own task queue by default: dev's worker never takes a run of another agent.
      expect(dev.stdout()).toContain('Worker:            task queue "durable-agent.assistant", agents: assistant');
      expect(r.stdout).toContain('worker: using the worker(s) already polling task queue "durable-agent.assistant"');
      expect(r.stdout).toContain('6*7 = 42');
    } finally {
      dev.child.kill('SIGINT');
    }
    const stopped = await dev.done;
    expect(stopped.stderr).toBe('');
    expect(stopped.code).toBe(0);
    expect(stopped.stdout).toContain('stopping the worker...');
    expect(stopped.stdout).toContain('stopped the Temporal dev server');
    expect(existsSync(join(devHome, 'temporal.db'))).toBe(true);
    expect(await isReachable(`127.0.0.1:${port}`)).toBe(false);
  });

  it('--server-only starts the dev server and prints its address, with no worker, until SIGINT', { timeout: 150_000 }, async () => {
    const [port, uiPort] = [await freePort(), await freePort()];
    const cliPath = inject('temporalCliPath');
    const dev = startCli(['dev', '--server-only', '--ui-port', String(uiPort)], {
      home: tempHome(),
      env: { DURABLE_AGENT_DEV_PORT: String(port), ...(cliPath ? { DURABLE_AGENT_TEMPORAL_CLI: cliPath } : {}) },
      timeoutMs: 140_000,
    });
    try {
      await dev.waitFor('Press Ctrl-C to stop.');
      expect(dev.stdout()).toMatch(new RegExp(`Temporal address: +127\\.0\\.0\\.1:${port}`));
      expect(dev.stdout()).toContain('Worker:            none (--server-only)');
      expect(dev.stdout()).not.toContain('starting the worker');
      expect(await isReachable(`127.0.0.1:${port}`)).toBe(true);
      // Nobody polls the demo agent's queue: dev hosts no worker.
      const connection = await Connection.connect({ address: `127.0.0.1:${port}` });
      try {
        expect(await livePollers(new Client({ connection }), agentTaskQueue(DEMO_AGENT))).toEqual([]);
      } finally {
        await connection.close();
      }
    } finally {
      dev.child.kill('SIGINT');
    }
    const stopped = await dev.done;
    expect(stopped.stderr).toBe('');
    expect(stopped.code).toBe(0);
    expect(stopped.stdout).toContain('stopped the Temporal dev server');
    expect(await isReachable(`127.0.0.1:${port}`)).toBe(false);
  });
});
