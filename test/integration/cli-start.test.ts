/**
 * Commands that only talk to the server must not load the worker runtime (@temporalio/worker, its
 * native core bridge, the workflow bundler) nor the demo's model SDKs: that is what made `--version` take
 * over a second. Checked by preloading a module that reports every module the CLI process loaded.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Client, Connection } from '@temporalio/client';
import { AgentClient } from '../../src/client';
import { runCli, tempHome } from '../helpers/cli-run';

const home = tempHome();
const address = inject('temporalAddress');
const preload = resolve(__dirname, '..', 'fixtures', 'report-modules.js');
let connection: Connection;
let finishedRun = '';

/** Heavy modules a client-only command has no use for. */
const WORKER_ONLY = ['@temporalio/worker', '@temporalio/core-bridge', '@temporalio/testing', '@anthropic-ai/sdk', 'openai', 'webpack'];

beforeAll(async () => {
  connection = await Connection.connect({ address });
  // A run that has ended (terminated: no worker needed), for `result`.
  const run = await new AgentClient(new Client({ connection }), `cli-start-${randomUUID()}`).start('assistant', { input: 'hi' });
  await run.handle.terminate('test');
  finishedRun = run.workflowId;
});
afterAll(async () => {
  await connection?.close();
});

async function loadedModules(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; modules: string[]; stdout: string; stderr: string }> {
  const file = join(home, `modules-${randomUUID()}.json`);
  const r = await runCli(args, { home, env: { ...env, NODE_OPTIONS: `--require ${preload}`, REPORT_MODULES_FILE: file } });
  return { ...r, modules: JSON.parse(readFileSync(file, 'utf8')) as string[] };
}

/** The packages of `packages` (default {@link WORKER_ONLY}) that `modules` holds files of. */
function heavy(modules: string[], packages: readonly string[] = WORKER_ONLY): string[] {
  return packages.filter((pkg) => modules.some((m) => m.includes(`${sep}node_modules${sep}${join(pkg)}${sep}`)));
}

/** Heavy modules a worker loads only when its agents use them: model SDKs, MCP, tracing, the spinner of a terminal, and Redis (`--redis-url`). */
const LOADED_ON_USE = [
  '@anthropic-ai/sdk',
  'openai',
  '@modelcontextprotocol/sdk',
  'ajv',
  '@opentelemetry/sdk-trace-base',
  '@temporalio/interceptors-opentelemetry',
  'ora',
  'ioredis',
];

describe('client-only commands load no worker code', () => {
  it.each([[['--version']], [['--help']], [['approvals', '--help']], [['result', '--help']], [['schedule', 'list', '--help']]])(
    '%j',
    async (args) => {
      const r = await loadedModules(args);
      expect(r.code).toBe(0);
      expect(r.modules.length).toBeGreaterThan(0);
      expect(heavy(r.modules)).toEqual([]);
    },
  );

  it('approvals, schedule list and result against the server', async () => {
    const approvals = await loadedModules(['approvals', '--address', address]);
    expect(approvals.stderr).toBe('');
    expect(approvals.code).toBe(0);
    expect(approvals.modules.some((m) => m.includes(join('@temporalio', 'client')))).toBe(true);
    expect(heavy(approvals.modules)).toEqual([]);

    const schedules = await loadedModules(['schedule', 'list', '--address', address]);
    expect(schedules.stderr).toBe('');
    expect(schedules.code).toBe(0);
    expect(heavy(schedules.modules)).toEqual([]);

    const result = await loadedModules(['result', finishedRun, '--address', address]);
    expect(result.stderr).toBe('error: the run was terminated\n');
    expect(heavy(result.modules)).toEqual([]);
  });
});

describe('a command hosting a worker loads only what its agents use', () => {
  it('run with no worker up: the in-process worker runs the offline demo without loading model SDKs, MCP, tracing or the spinner', async () => {
    const r = await loadedModules(['run', 'what is 2+3?', '--json', '--address', address, '--task-queue', `cli-start-${randomUUID()}`], {
      DURABLE_AGENT_WORKFLOW_BUNDLE: inject('workflowBundlePath'),
    });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const last = JSON.parse(r.stdout.trim().split('\n').at(-1) as string) as {
      type: string;
      result: { status: string; finalText: string };
    };
    expect(last.type).toBe('result');
    expect(last.result.status).toBe('success');
    expect(last.result.finalText).toContain('5');
    expect(heavy(r.modules, ['@temporalio/worker'])).toEqual(['@temporalio/worker']); // it did host the worker
    expect(heavy(r.modules, LOADED_ON_USE)).toEqual([]);
  });
});
