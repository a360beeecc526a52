/**
 * A real model in the loop: Gemma 3 270M (base) served by llama.cpp on this machine, through the
 * OpenAI-compatible provider, on the real dev server. One server for the whole file. The tests assert
 * the protocol and the loop's guarantees (calls streamed and assembled, executed once, results fed back,
 * cut-off calls never run, usage, deltas, a killed worker's step redone), never the model's wording.
 */
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import type { AgentRun } from '../../src/client';
import { AgentClient } from '../../src/client';
import type { StreamEvent } from '../../src/client/live';
import { TextAccumulator } from '../../src/client/live';
import type { AgentRunResult } from '../../src/core/run/result';
import { LOCAL_MODEL_PROVIDER, localModelProvider } from '../../apps/cli/demo/local-model-provider';
import { LOCAL_MODEL_ID } from '../../apps/cli/dev-server/local-model';
import {
  COUNT_PROMPT,
  executions,
  LOCAL_CALC_AGENT,
  LOCAL_COUNT_AGENT,
  LOCAL_CUT_AGENT,
  localModelAgents,
} from '../fixtures/local-model-agents';
import type { Harness } from '../helpers/harness';
import { startHarness, testId } from '../helpers/harness';
import { runCli, tempHome } from '../helpers/cli-run';
import { describeWithLocalModel } from '../helpers/local-model';

const ROOT = resolve(__dirname, '..', '..');
const work = mkdtempSync(join(tmpdir(), 'durable-agent-local-model-'));
/**
 * Runs a test may start when it needs the model to call a tool. At temperature 0 the model almost
 * always calls it, but its output is not the same across prompt-cache states, so a test gets a bounded
 * number of tries; every run, tried or kept, must keep the loop's guarantees.
 */
const TRIES = 3;

/** Stream a run to its end; its events and result. */
async function streamed(run: AgentRun): Promise<{ events: StreamEvent[]; result: AgentRunResult }> {
  const events: StreamEvent[] = [];
  for await (const e of run.stream()) events.push(e);
  return { events, result: await run.result() };
}

/** Tool-argument text streamed for call 0 of `step` (attempt 1). */
function streamedArguments(events: StreamEvent[], step: number): { tool?: string; json: string } {
  let json = '';
  let tool: string | undefined;
  for (const e of events) {
    if (e.type !== 'delta' || e.step !== step || e.delta.type !== 'tool_args' || e.delta.call !== 0) continue;
    json += e.delta.json;
    tool ??= e.delta.tool;
  }
  return { ...(tool ? { tool } : {}), json };
}

/** Whether `text` parses as JSON. */
function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** What holds for every run of the calculator agents, whatever the model said. */
function expectLoopGuarantees(result: AgentRunResult, effectsDir: string): void {
  const calls = result.report.toolCalls;
  // Every call the report lists ran exactly once; nothing ran that the report does not list.
  expect(executions(effectsDir, result.report.workflowId)).toEqual(
    calls.filter((c) => !c.isError || c.attempts > 0).map((c) => (c.args as { expression: string }).expression),
  );
  expect(result.usage.inputTokens).toBeGreaterThan(0);
  expect(result.usage.outputTokens).toBeGreaterThan(0);
  for (const step of result.report.steps) {
    expect(step).toMatchObject({ provider: LOCAL_MODEL_PROVIDER, model: LOCAL_MODEL_ID });
    expect(step.usage.inputTokens).toBeGreaterThan(0);
    expect(step.usage.outputTokens).toBeGreaterThan(0);
  }
}

describeWithLocalModel('a real local model (Gemma 3 270M on llama.cpp)', (server) => {
  const effectsDir = mkdtempSync(join(work, 'effects-'));
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      agents: localModelAgents(effectsDir),
      providers: { [LOCAL_MODEL_PROVIDER]: localModelProvider(server().baseURL) },
    });
  });
  afterAll(async () => {
    await h?.stop();
  });

  it(
    'tool cycle: the call streams, its arguments assemble, the tool runs once, its result goes back, the run succeeds; usage and token deltas reach the client',
    { timeout: 120_000 },
    async () => {
      const seen: string[] = [];
      for (let i = 1; i <= TRIES; i++) {
        const run = await h.client.start(LOCAL_CALC_AGENT, { input: 'What is 12*(3+4)?', workflowId: testId('lm-cycle') });
        const { events, result } = await streamed(run);
        expectLoopGuarantees(result, effectsDir);
        seen.push(`${result.status} after ${result.report.toolCalls.length} call(s)`);
        if (result.status !== 'success' || result.report.toolCalls.length === 0) continue;

        // Step 1 streamed a call, piece by piece; the pieces add up to the arguments the tool received.
        const first = result.report.toolCalls[0]!;
        expect(first.step).toBe(1);
        const args = streamedArguments(events, 1);
        expect(args.tool).toBe('calculator');
        expect(events.filter((e) => e.type === 'delta' && e.step === 1).length).toBeGreaterThan(1);
        // Live deltas may miss the call's last pieces (the activity ends between two reads of its
        // heartbeat: README, "Live streaming"); what came is the start of the arguments, and whole when complete.
        expect(args.json.length).toBeGreaterThan(0);
        expect(JSON.stringify(first.args).replace(/\s/g, '').startsWith(args.json.replace(/\s/g, ''))).toBe(true);
        if (isJson(args.json)) expect(JSON.parse(args.json)).toEqual(first.args);
        // The result went back to the model: the message after the call holds it, and the model answered.
        const callAt = result.messages.findIndex(
          (m) => m.role === 'assistant' && m.content.some((b) => b.type === 'tool_use' && b.id === first.callId),
        );
        expect(result.messages[callAt + 1]?.content).toContainEqual(
          expect.objectContaining({ type: 'tool_result', toolUseId: first.callId }),
        );
        expect(result.steps).toBeGreaterThanOrEqual(2);
        // Real text deltas of the last step reach the client and show exactly the final text.
        const text = new TextAccumulator();
        for (const e of events) text.push(e);
        expect(text.textOf(result.steps)).toBe(result.finalText);
        return;
      }
      throw new Error(`no successful tool cycle in ${TRIES} runs (${seen.join('; ')})`);
    },
  );

  it('a call cut off by the output limit (finish_reason "length") never executes', { timeout: 120_000 }, async () => {
    const seen: string[] = [];
    for (let i = 1; i <= TRIES; i++) {
      const run = await h.client.start(LOCAL_CUT_AGENT, { input: 'What is 12*(3+4)?', workflowId: testId('lm-cut') });
      const { events, result } = await streamed(run);
      expectLoopGuarantees(result, effectsDir);
      expect(result.status).toBe('max_tokens');
      expect(result.report.steps[0]?.stopReason).toBe('max_tokens');
      expect(result.report.toolCalls.filter((c) => c.attempts > 0)).toEqual([]);
      expect(executions(effectsDir, run.workflowId)).toEqual([]);
      const args = streamedArguments(events, 1);
      seen.push(args.json ? `call cut at ${JSON.stringify(args.json)}` : 'no call started');
      // Tried until the cut-off answer was a call (arguments streamed), not text.
      if (args.tool === 'calculator' && args.json.length > 0) return;
    }
    throw new Error(`the model started no call in ${TRIES} runs (${seen.join('; ')})`);
  });

  it(
    'the worker killed mid-generation: the step is redone by another worker, the cut attempt voided, the text shown equal to the transcript',
    { timeout: 120_000 },
    async () => {
      const queue = testId('lm-kill');
      const store = mkdtempSync(join(work, 'store-'));
      const first = await startWorker(queue, store, effectsDir, server().baseURL);
      const run = await new AgentClient(h.temporal, queue).start(LOCAL_COUNT_AGENT, { input: COUNT_PROMPT, workflowId: queue });
      const events: StreamEvent[] = [];
      const text = new TextAccumulator();
      let second: WorkerProcess | undefined;
      for await (const e of run.stream()) {
        events.push(e);
        text.push(e);
        if (!second && events.filter((x) => x.type === 'delta').length >= 5) {
          first.proc.kill('SIGKILL');
          await first.exited;
          second = await startWorker(queue, store, effectsDir, server().baseURL);
        }
      }
      if (second) await stopWorker(second);
      const result = await run.result();
      expect(second, 'the worker was killed mid-generation').toBeDefined();
      // Counting to 200 is longer than the cap: the redone step ends at the output limit, or by itself.
      expect(['max_tokens', 'success']).toContain(result.status);
      expect(events).toContainEqual(expect.objectContaining({ type: 'attempt_voided', step: 1, attempt: 1 }));
      expect(events).toContainEqual(expect.objectContaining({ type: 'retrying', step: 1, attempt: 1, errorType: 'worker_lost' }));
      expect(result.report.steps).toHaveLength(1);
      expect(result.report.steps[0]).toMatchObject({ attempts: 1, workerLosses: 1 });
      expect(result.finalText.length).toBeGreaterThan(0);
      expect(text.textOf(1)).toBe(result.finalText);
      const durable = events.filter((e) => 'seq' in e);
      expect(durable.map((e) => ('seq' in e ? e.seq : -1))).toEqual(durable.map((_, i) => i));
    },
  );

  it(
    'durable-agent run --local-model: the demo agent on its own throwaway local server, labelled as a tiny local model, server stopped after',
    { timeout: 120_000 },
    async () => {
      const queue = testId('lm-cli');
      const r = await runCli(['run', '--local-model', '--address', inject('temporalAddress'), '--task-queue', queue, 'What is 12*(3+4)?'], {
        home: tempHome(),
        timeoutMs: 110_000,
      });
      expect(r.stderr).toBe('');
      expect(r.stdout).toContain('note: tiny local model (Gemma 3 270M base, llama.cpp)');
      expect(r.stdout).toContain('[step 1] calling local/gemma-3-270m');
      expect(r.stdout).toMatch(/^\[done\] /m);
      const url = /local model: llama\.cpp server at (\S+)/.exec(r.stdout)?.[1];
      expect(url).toBeDefined();
      await expect(fetch(`${url}/models`)).rejects.toThrow();
    },
  );
});

/** A worker process and what it printed. */
interface WorkerProcess {
  proc: ChildProcess;
  exited: Promise<unknown>;
}

const children = new Set<ChildProcess>();
afterAll(() => {
  for (const c of children) c.kill('SIGKILL');
});

/** Start a local-model worker process on `taskQueue`; resolves once it polls. */
function startWorker(taskQueue: string, storeDir: string, effectsDir: string, baseURL: string): Promise<WorkerProcess> {
  const proc = spawn(process.execPath, ['--import', 'tsx', join('test', 'fixtures', 'local-model-worker.ts')], {
    cwd: ROOT,
    env: {
      ...process.env,
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      LM_TASK_QUEUE: taskQueue,
      LM_WORKFLOW_BUNDLE: inject('workflowBundlePath'),
      LM_STORE_DIR: storeDir,
      LM_EFFECTS_DIR: effectsDir,
      LM_BASE_URL: baseURL,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(proc);
  let out = '';
  proc.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise((res) =>
    proc.once('exit', (code, signal) => {
      children.delete(proc);
      res({ code, signal });
    }),
  );
  return new Promise((res, rej) => {
    const timer = setTimeout(() => rej(new Error(`worker did not start within 60 s:\n${out}`)), 60_000);
    proc.stdout?.on('data', () => {
      if (/^ready$/m.test(out)) {
        clearTimeout(timer);
        res({ proc, exited });
      }
    });
    void exited.then(() => {
      clearTimeout(timer);
      rej(new Error(`worker exited before it was ready:\n${out}`));
    });
  });
}

async function stopWorker(w: WorkerProcess): Promise<void> {
  if (w.proc.exitCode !== null || w.proc.signalCode !== null) return;
  w.proc.kill('SIGTERM');
  const timer = setTimeout(() => w.proc.kill('SIGKILL'), 10_000);
  await w.exited;
  clearTimeout(timer);
}
