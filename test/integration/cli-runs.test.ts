/** `durable-agent runs`, `report` and `approvals --watch` as child processes against the real dev server. */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { AgentRunResult } from '../../src/core/run/result';
import { ScriptedAgents } from '../helpers/agents';
import { CLI_BIN, lines, runCli, soleError, startCli, tempHome } from '../helpers/cli-run';
import { waitForPending } from '../helpers/events';
import type { Harness } from '../helpers/harness';
import { startHarness, testId } from '../helpers/harness';
import { deploy, echo } from '../helpers/tools';

const home = tempHome();
const address = inject('temporalAddress');
const cli = (args: string[]) => runCli([...args, '--address', address], { home });

const S = new ScriptedAgents();
// Two steps and a tool call, priced (below); the second agent runs out of steps, unpriced.
S.add(
  'cli_runs_alpha',
  [
    { toolCalls: [{ name: 'echo', args: { text: 'hi' } }], usage: { inputTokens: 120, outputTokens: 30 } },
    { text: 'done', usage: { inputTokens: 200, outputTokens: 10 } },
  ],
  { tools: [echo] },
);
S.add('cli_runs_beta', () => ({ toolCalls: [{ name: 'echo', args: { text: 'again' } }] }), { tools: [echo], maxSteps: 1 });
S.add('cli_runs_gate', [{ toolCalls: [{ name: 'deploy', args: { service: 'api' } }] }, { text: 'deployed' }], { tools: [deploy] });

let h: Harness;
let alpha: { id: string; result: AgentRunResult };
let beta: { id: string; result: AgentRunResult };

beforeAll(async () => {
  h = await startHarness({
    agents: S.agents,
    providers: { scripted: S.provider },
    prices: { cli_runs_alpha: { input: 1000, output: 2000, cacheRead: 0, cacheWrite: 0 } },
  });
  const a = await h.client.start('cli_runs_alpha', { input: 'go', workflowId: testId('cli-runs-alpha') });
  alpha = { id: a.workflowId, result: await a.result() };
  const b = await h.client.start('cli_runs_beta', { input: 'go', workflowId: testId('cli-runs-beta') });
  beta = { id: b.workflowId, result: await b.result() };
}, 60_000);
afterAll(async () => {
  await h?.stop();
});

interface Listed {
  workflowId: string;
  agent?: string;
  status: string;
  steps?: number;
  costUsd?: number;
}

/** `runs --json` with `args`, retried while visibility catches up, until `ready` holds. */
async function listed(args: string[], ready: (runs: Listed[]) => boolean): Promise<Listed[]> {
  let runs: Listed[] = [];
  for (let i = 0; i < 30; i++) {
    const r = await cli(['runs', ...args, '--json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    runs = JSON.parse(r.stdout) as Listed[];
    if (ready(runs)) return runs;
    await new Promise((res) => setTimeout(res, 300));
  }
  return runs;
}

/** `promise`, or a failure showing `output()` when it takes longer than `ms`. */
async function within<T>(ms: number, promise: Promise<T>, output: () => string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>(
    (_, reject) => (timer = setTimeout(() => reject(new Error(`not within ${ms} ms; output so far:\n${output()}`)), ms)),
  );
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

describe('durable-agent runs', () => {
  it('lists finished runs newest first with agent, status, steps and cost; filters by agent and status', async () => {
    expect(alpha.result.status).toBe('success');
    expect(beta.result.status).toBe('max_steps');
    // The namespace is shared with every other test file (their runs end max_steps too, and start all the
    // time), so each check is filtered by this file's agents: a later alpha run shows the order.
    const later = await h.client.start('cli_runs_alpha', { input: 'go', workflowId: testId('cli-runs-alpha-later') });
    expect((await later.result()).status).toBe('success');
    const alphas = await listed(['--agent', 'cli_runs_alpha'], (runs) =>
      [alpha.id, later.workflowId].every((id) => runs.some((r) => r.workflowId === id && r.status !== 'running')),
    );
    // Newest first: the later run started after alpha.
    expect(alphas.map((r) => r.workflowId)).toEqual([later.workflowId, alpha.id]);
    expect(alphas[1]).toMatchObject({
      workflowId: alpha.id,
      agent: 'cli_runs_alpha',
      status: 'success',
      steps: 2,
      costUsd: alpha.result.costUsd,
    });
    expect(alpha.result.costUsd).toBeGreaterThan(0);
    const betas = await listed(['--agent', 'cli_runs_beta'], (runs) =>
      runs.some((r) => r.workflowId === beta.id && r.status !== 'running'),
    );
    expect(betas.map((r) => r.workflowId)).toEqual([beta.id]);
    // No price for beta's model: its cost is unknown, not zero.
    expect(betas[0]).toMatchObject({ workflowId: beta.id, agent: 'cli_runs_beta', status: 'max_steps', steps: 1 });
    expect(betas[0]).not.toHaveProperty('costUsd');

    // A status filter alone: beta (and other files' runs that ended max_steps), never alpha.
    const byStatus = await listed(['--status', 'max_steps', '--since', '1h', '--limit', '100'], (runs) =>
      runs.some((r) => r.workflowId === beta.id),
    );
    expect(byStatus.map((r) => r.workflowId)).toContain(beta.id);
    expect(byStatus.map((r) => r.workflowId)).not.toContain(alpha.id);
    expect(byStatus.every((r) => r.status === 'max_steps')).toBe(true);
    expect(await listed(['--agent', 'cli_runs_alpha', '--status', 'max_steps'], () => true)).toEqual([]);

    const table = await cli(['runs', '--agent', 'cli_runs_beta']);
    expect(table.code).toBe(0);
    const [header, , row, ...rest] = lines(table.stdout);
    expect(header).toMatch(/^workflow id\s+agent\s+status\s+started\s+steps\s+cost$/);
    expect(row).toMatch(new RegExp(`^${beta.id}\\s+cli_runs_beta\\s+max_steps\\s+\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\dZ\\s+1\\s+—$`));
    expect(rest).toEqual([]);
  }, 120_000);

  it('rejects an unknown status, naming the valid ones, and a bad --since', async () => {
    const bad = soleError(await cli(['runs', '--status', 'finished']));
    expect(bad).toMatch(
      /^error: --status "finished" is not a run status; use one of: running, awaiting_approval, awaiting_message, success, max_steps, .*budget_exceeded/,
    );
    expect(soleError(await cli(['runs', '--since', 'yesterday']))).toBe(
      'error: --since "yesterday" is not a duration: give one like 30m, 24h or 7d',
    );
    expect(soleError(await cli(['runs', '--limit', '0']))).toMatch(/^error: option '--limit <n>' argument '0' is invalid/);
  }, 60_000);
});

describe('start time', () => {
  it('runs and report load no worker code (they only talk to the server)', async () => {
    const preload = resolve(__dirname, '..', 'fixtures', 'report-modules.js');
    for (const args of [
      ['runs', '--agent', 'cli_runs_alpha'],
      ['report', alpha.id],
    ]) {
      const file = join(home, `modules-${randomUUID()}.json`);
      const r = await runCli([...args, '--address', address], {
        home,
        env: { NODE_OPTIONS: `--require ${preload}`, REPORT_MODULES_FILE: file },
      });
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      const modules = JSON.parse(readFileSync(file, 'utf8')) as string[];
      expect(modules.some((m) => m.includes(join('@temporalio', 'client')))).toBe(true);
      const heavy = ['@temporalio/worker', '@temporalio/core-bridge', '@temporalio/testing', '@anthropic-ai/sdk', 'openai', 'webpack'];
      expect(heavy.filter((pkg) => modules.some((m) => m.includes(`${sep}node_modules${sep}${join(pkg)}${sep}`)))).toEqual([]);
    }
  }, 60_000);
});

describe('durable-agent report', () => {
  it('prints the steps and tool calls of a finished run as tables, with the numbers of result.report', async () => {
    const report = alpha.result.report;
    const json = await cli(['report', alpha.id, '--json']);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual(report);

    const r = await cli(['report', alpha.id]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const out = lines(r.stdout);
    expect(out[0]).toContain(`Run ${alpha.id}`);
    expect(out).toContain('  status: success');
    expect(report.steps).toHaveLength(2);
    const stepsAt = out.indexOf('Steps (2)');
    expect(out[stepsAt + 1]).toMatch(/^\s+step\s+turn\s+model\s+latency\s+stop reason\s+tokens in\s+tokens out\s+cost\s+attempts$/);
    for (const [i, s] of report.steps.entries()) {
      const cells = (out[stepsAt + 3 + i] as string).trim().split(/\s{2,}/);
      expect(cells).toEqual([
        String(s.step),
        String(s.turn),
        `scripted/cli_runs_alpha`,
        `${s.latencyMs} ms`,
        s.stopReason,
        String(s.usage.inputTokens),
        String(s.usage.outputTokens),
        `$${(s.costUsd as number).toFixed(4)}`,
        String(s.attempts),
      ]);
    }
    expect(report.steps.map((s) => [s.usage.inputTokens, s.usage.outputTokens])).toEqual([
      [120, 30],
      [200, 10],
    ]);
    const toolsAt = out.indexOf('Tool calls (1)');
    expect(out[toolsAt + 1]).toMatch(/^\s+step\s+call id\s+tool\s+latency\s+status\s+attempts$/);
    const call = report.toolCalls[0]!;
    expect((out[toolsAt + 3] as string).trim().split(/\s{2,}/)).toEqual([
      String(call.step),
      call.callId,
      'echo',
      `${call.latencyMs} ms`,
      'ok',
      String(call.attempts),
    ]);
    expect(out).toContain(`  usage:          320 input / 40 output tokens`);
    expect(out).toContain(`  cost:           $${report.costUsd!.toFixed(4)}`);
    expect(out).toContain('  unpriced steps: 0');
    expect(out).toContain('  compactions:    0');

    // An unpriced run: its costs are unknown, never $0.
    const b = lines((await cli(['report', beta.id])).stdout);
    expect(b).toContain(`  cost:           — (no price for this model in the worker's price table)`);
    expect(b).toContain('  unpriced steps: 1');
    expect(soleError(await cli(['report', 'no-such-run']))).toBe('error: no run with workflow id "no-such-run"');
  }, 60_000);
});

describe('durable-agent approvals --watch', () => {
  it('shows a call waiting for approval, and drops it within seconds once decided through the client; a running run has no report yet', async () => {
    const watcher = startCli(['approvals', '--watch', '--address', address], { home });
    try {
      await watcher.waitFor('watching the approvals inbox');
      const run = await h.client.start('cli_runs_gate', { input: 'deploy', workflowId: testId('cli-runs-gate') });
      const [pending] = await waitForPending(run);
      const callId = pending!.callId;
      await watcher.waitFor(`+ ${run.workflowId}  (agent cli_runs_gate)  ${callId}  deploy({"service":"api"})`);

      // While it waits, `runs` knows it as awaiting approval, and as not ended.
      const awaiting = await listed(['--agent', 'cli_runs_gate', '--status', 'awaiting_approval'], (runs) =>
        runs.some((r) => r.workflowId === run.workflowId),
      );
      expect(awaiting.find((r) => r.workflowId === run.workflowId)).toMatchObject({
        status: 'awaiting_approval',
        agent: 'cli_runs_gate',
        steps: 1,
      });
      expect(awaiting.find((r) => r.workflowId === run.workflowId)).not.toHaveProperty('costUsd');
      const notEnded = await listed(['--status', 'running'], (runs) => runs.some((r) => r.workflowId === run.workflowId));
      expect(notEnded.map((r) => r.workflowId)).toContain(run.workflowId);
      expect(notEnded.map((r) => r.workflowId)).not.toContain(alpha.id);

      const running = await cli(['report', run.workflowId]);
      expect(running.code).toBe(2);
      expect(running.stdout).toContain(`Run ${run.workflowId} is still running`);
      expect(running.stdout).toContain(`pending approvals: deploy (${callId})`);

      await run.decide({ callId, decision: 'approve', by: 'ops:tester' });
      const decidedAt = Date.now();
      await within(10_000, watcher.waitFor(`- ${run.workflowId}  ${callId}  deploy: no longer waiting`), () => watcher.stdout());
      expect(Date.now() - decidedAt).toBeLessThan(5_000);
      expect((await run.result()).status).toBe('success');
      // Each change is printed once, however many rounds pass.
      await new Promise((res) => setTimeout(res, 2_500));
      expect(watcher.stdout().split(`+ ${run.workflowId}`).length).toBe(2);
      expect(watcher.stdout().split(`- ${run.workflowId}`).length).toBe(2);
    } finally {
      watcher.child.kill('SIGTERM');
    }
    const ended = await watcher.done;
    expect(ended.stderr).toBe('');
  }, 120_000);

  it('on a terminal, redraws the list in place: the waiting call, then the list without it', async () => {
    // A real pseudo-terminal: util-linux `script` runs the CLI with its stdout on a pty.
    const env: NodeJS.ProcessEnv = { ...process.env, DURABLE_AGENT_HOME: home, DURABLE_AGENT_FROM_SOURCE: '1', TERM: 'xterm' };
    delete env.TEMPORAL_ADDRESS;
    const command = [process.execPath, CLI_BIN, 'approvals', '--watch', '--address', address].map((a) => `'${a}'`).join(' ');
    const child = spawn('script', ['-qfec', command, '/dev/null'], { env, stdio: ['pipe', 'pipe', 'pipe'], timeout: 90_000 });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    const until = async (test: () => boolean, what: string) => {
      for (let i = 0; i < 200 && !test(); i++) await new Promise((res) => setTimeout(res, 100));
      if (!test()) throw new Error(`no ${what} on the terminal; it shows:\n${out}`);
    };
    const CLEAR = '\u001b[H\u001b[2J';
    try {
      await until(() => out.includes('watching: refreshed every 1 s'), 'first drawing');
      const run = await h.client.start('cli_runs_gate', { input: 'deploy', workflowId: testId('cli-runs-tty') });
      const [pending] = await waitForPending(run);
      const callId = pending!.callId;
      // The inbox spans the namespace: other test files' runs wait on `call_1_0 deploy(...)` too, so wait for this run's own entry.
      const entry = `${run.workflowId}  (agent cli_runs_gate, 1 pending)\n  ${callId}  deploy({"service":"api"})`;
      await until(() => (out.split(CLEAR).at(-1) ?? '').replace(/\r/g, '').includes(entry), 'drawing with the waiting call');
      await run.decide({ callId, decision: 'deny', by: 'ops:tester', reason: 'not now' });
      await until(
        () => !(out.split(CLEAR).at(-1) ?? '').includes(run.workflowId) && (out.split(CLEAR).at(-1) ?? '').includes('watching:'),
        'drawing without the decided call',
      );
      await run.result();
    } finally {
      child.kill('SIGTERM');
    }
  }, 120_000);
});
