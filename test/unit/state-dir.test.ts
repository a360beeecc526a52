/** The default state folder (blob store, notes, dev server data) does not depend on the working directory. */
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { stateDir } from '../../src/worker/paths';
import { stateDir as cliStateDir } from '../../apps/cli/state-dir';

const cwd = process.cwd();
const saved = process.env.DURABLE_AGENT_HOME;
const dirs: string[] = [];

function tempDir(): string {
  const d = realpathSync(mkdtempSync(join(tmpdir(), 'durable-agent-cwd-')));
  dirs.push(d);
  return d;
}

beforeEach(() => {
  delete process.env.DURABLE_AGENT_HOME;
});
afterEach(() => {
  process.chdir(cwd);
  if (saved === undefined) delete process.env.DURABLE_AGENT_HOME;
  else process.env.DURABLE_AGENT_HOME = saved;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('stateDir', () => {
  it('gives the same default path from two different working directories: ~/.durable-agent', () => {
    process.chdir(tempDir());
    const first = stateDir('blobs');
    process.chdir(tempDir());
    const second = stateDir('blobs');
    expect(second).toBe(first);
    expect(first).toBe(join(homedir(), '.durable-agent', 'blobs'));
    expect(stateDir()).toBe(join(homedir(), '.durable-agent'));
  });

  it('uses DURABLE_AGENT_HOME when set (a relative value resolved against the working directory)', () => {
    const home = tempDir();
    process.env.DURABLE_AGENT_HOME = home;
    expect(stateDir('blobs')).toBe(join(home, 'blobs'));
    const base = tempDir();
    process.chdir(base);
    process.env.DURABLE_AGENT_HOME = 'state';
    expect(stateDir('temporal.db')).toBe(join(base, 'state', 'temporal.db'));
  });

  it('ignores an empty DURABLE_AGENT_HOME', () => {
    process.env.DURABLE_AGENT_HOME = '  ';
    expect(stateDir()).toBe(join(homedir(), '.durable-agent'));
  });
});

describe("the CLI's stateDir (resolved without loading worker code)", () => {
  it("names the worker's folder, with and without DURABLE_AGENT_HOME", () => {
    expect(cliStateDir('temporal.db')).toBe(stateDir('temporal.db'));
    expect(cliStateDir()).toBe(stateDir());
    const base = tempDir();
    process.chdir(base);
    for (const home of [base, 'state', '  ']) {
      process.env.DURABLE_AGENT_HOME = home;
      expect(cliStateDir('notes.md')).toBe(stateDir('notes.md'));
    }
  });
});
