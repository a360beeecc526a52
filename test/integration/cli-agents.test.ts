/** `durable-agent run | worker | dev --agents <file>`: the CLI serves the user's own agents, not only the demo. */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { PLAIN_AGENTS_MJS, SCRIPTED_AGENTS_TS, writeModules } from '../helpers/agents-module';
import { runCli, soleError, startCli, tempHome } from '../helpers/cli-run';

const home = tempHome();
const address = inject('temporalAddress');
const dir = writeModules({
  'agents.ts': SCRIPTED_AGENTS_TS,
  'plain.mjs': PLAIN_AGENTS_MJS,
  'none.js': 'module.exports = { answer: 42 };\n',
  'broken.ts': 'export const oops = ;\n',
  'agents.txt': 'not a module\n',
});
const agentsTs = join(dir, 'agents.ts');

describe('--agents <file>', () => {
  it("run hosts the module's agents with its providers (TypeScript module, named exports)", async () => {
    const taskQueue = `cli-agents-${randomUUID()}`;
    const r = await runCli(['run', 'say hi', '--agents', agentsTs, '--agent', 'greeter', '--address', address, '--task-queue', taskQueue], {
      home,
    });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`worker: starting an in-process worker on task queue "${taskQueue}" (agents: greeter, wiper)`);
    expect(r.stdout).toContain('[run] agent greeter, model scripted/greeter');
    expect(r.stdout).toContain('[step 1] tool call greet {"who":"tester"}');
    expect(r.stdout).toContain('[step 1] tool result greet ok');
    expect(r.stdout).toContain('greeted the tester');
    expect(r.stdout).not.toContain('offline demo model');
  });

  it("an ES module with a default export array (and the module's only agent is the default --agent)", async () => {
    const r = await runCli(
      ['run', 'hi', '--agents', join(dir, 'plain.mjs'), '--address', address, '--task-queue', `cli-agents-${randomUUID()}`],
      { home },
    );
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('[run] agent plain, model plain/plain-1');
    expect(r.stdout).toContain('hello from an ES module');
  });

  it('worker --agents serves a run that run --agents starts on the same task queue', { timeout: 120_000 }, async () => {
    const taskQueue = `cli-agents-worker-${randomUUID()}`;
    const worker = startCli(['worker', '--agents', agentsTs, '--address', address, '--task-queue', taskQueue], {
      home,
      timeoutMs: 110_000,
    });
    try {
      await worker.waitFor('Press Ctrl-C to stop.');
      expect(worker.stdout()).toContain(`Worker:            task queue "${taskQueue}", agents: greeter, wiper`);
      const r = await runCli(
        ['run', 'say hi', '--agents', agentsTs, '--agent', 'greeter', '--address', address, '--task-queue', taskQueue],
        { home },
      );
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(`worker: using the worker(s) already polling task queue "${taskQueue}"`);
      expect(r.stdout).toContain('greeted the tester');
    } finally {
      worker.child.kill('SIGINT');
    }
    const stopped = await worker.done;
    expect(stopped.stderr).toBe('');
    expect(stopped.code).toBe(0);
    expect(stopped.stdout).toContain('stopping the worker...');
  });

  it('worker with no server reachable is one error line', async () => {
    expect(soleError(await runCli(['worker', '--address', '127.0.0.1:1'], { home }))).toBe(
      'error: cannot reach Temporal at 127.0.0.1:1 (start one with: durable-agent dev)',
    );
  });

  it('bad modules are one clear error line each', async () => {
    const onServer = ['--address', address, '--task-queue', `cli-agents-bad-${randomUUID()}`];
    expect(soleError(await runCli(['run', 'hi', '--agents', join(dir, 'missing.ts'), ...onServer], { home }))).toBe(
      `error: --agents ${join(dir, 'missing.ts')}: no such file`,
    );
    expect(soleError(await runCli(['run', 'hi', '--agents', join(dir, 'none.js'), ...onServer], { home }))).toBe(
      `error: --agents ${join(dir, 'none.js')}: the module exports no agents (export an array of agents as default, or agents made with defineAgent as named exports)`,
    );
    expect(soleError(await runCli(['run', 'hi', '--agents', join(dir, 'broken.ts'), ...onServer], { home }))).toMatch(
      new RegExp(
        `^error: --agents ${join(dir, 'broken.ts').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: could not load the module: .*Unexpected ";"`,
      ),
    );
    expect(soleError(await runCli(['run', 'hi', '--agents', join(dir, 'agents.txt'), ...onServer], { home }))).toBe(
      `error: --agents ${join(dir, 'agents.txt')}: expected a .ts, .js, .mjs, .cjs module`,
    );
    expect(soleError(await runCli(['run', 'hi', '--agents', agentsTs, ...onServer], { home }))).toBe(
      `error: --agents ${agentsTs} exports several agents (greeter, wiper): choose one with --agent <name>`,
    );
    expect(soleError(await runCli(['run', 'hi', '--agents', agentsTs, '--agent', 'assistant', ...onServer], { home }))).toBe(
      'error: unknown agent "assistant" (agents: greeter, wiper)',
    );
  });
});
