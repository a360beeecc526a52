/**
 * The built package: `tsc -p tsconfig.build.json` into a copy of the package root, then
 * `require("durable-agent/client")` through the package's self-reference. It compiles the whole build
 * (a minute or more on a busy machine), so it runs in the `integration` project, not in the unit loop;
 * test/unit/entry-points.test.ts checks the entry points from the sources.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const exec = promisify(execFile);
const ROOT = resolve(__dirname, '..', '..');

describe('the built package', () => {
  const dir = mkdtempSync(join(tmpdir(), 'durable-agent-pkg-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('builds, and `require("durable-agent/client")` through the package self-reference loads the client without the worker', async () => {
    // A copy of the package root: its package.json, the build output, and the dependencies.
    copyFileSync(join(ROOT, 'package.json'), join(dir, 'package.json'));
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
    await exec(
      process.execPath,
      [require.resolve('typescript/bin/tsc'), '-p', join(ROOT, 'tsconfig.build.json'), '--outDir', join(dir, 'dist')],
      {
        cwd: ROOT,
        timeout: 240_000,
      },
    );
    writeFileSync(
      join(dir, 'probe.js'),
      `
      const client = require('durable-agent/client');
      const root = require('durable-agent');
      const keys = Object.keys(require.cache);
      const has = (n) => keys.some((k) => k.includes('/node_modules/' + n + '/'));
      const err = new client.ApprovalRefusedError('no');
      process.stdout.write(JSON.stringify({
        client: typeof client.AgentClient, defineAgent: typeof root.defineAgent,
        worker: has('@temporalio/worker'), temporalClient: has('@temporalio/client'),
        brand: err instanceof root.DurableAgentError, code: err.code,
      }));
      `,
    );
    const { stdout } = await exec(process.execPath, [join(dir, 'probe.js')], { cwd: dir, timeout: 60_000 });
    expect(JSON.parse(stdout)).toEqual({
      client: 'function',
      defineAgent: 'function',
      worker: false,
      temporalClient: true,
      brand: true,
      code: 'approval_refused',
    });
  }, 300_000);
});
