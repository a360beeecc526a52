/**
 * A green test run is quiet and a red one shows its failure: vitest run (as a child process) on the
 * quiet-run fixture (test/fixtures/quiet-run), with the repository's shared test options. Its tests make
 * the noise real tests make: a Temporal warning with a stack trace, the AWS SDK's Node version notice.
 * Then CI's summary (`.ci/summary.js`) of the red run's JSON report: the failed test and its error, before
 * the last line `N passed, N failed`.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { beforeAll, afterAll, describe, expect, it } from 'vitest';

const ROOT = resolve(__dirname, '..', '..');
const VITEST = join(ROOT, 'node_modules', 'vitest', 'vitest.mjs');
const CONFIG = join('test', 'fixtures', 'quiet-run', 'vitest.config.mts');

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** Run `script` with `args` in the repository, in an environment free of this run's own settings. */
function runNode(args: string[], env: Record<string, string> = {}): Promise<Ran> {
  const clean: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    // This process's vitest, CI and test-log settings (and the AWS notice switch the test config may set):
    // the child must get only what its own config gives it.
    if (
      /^(VITEST|TINYPOOL|CI$|CI_FAILED_CHECKS$|DURABLE_AGENT_TEST_LOGS$|AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED$|NODE_ENV$|TEST$)/.test(
        name,
      )
    )
      continue;
    clean[name] = value;
  }
  Object.assign(clean, { NO_COLOR: '1', FORCE_COLOR: '0' }, env);
  return new Promise((done) => {
    execFile(process.execPath, args, { cwd: ROOT, env: clean, timeout: 90_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      done({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

const runFixture = (env: Record<string, string> = {}) => runNode([VITEST, 'run', '--config', CONFIG, '--root', ROOT], env);

let dir: string;
let green: Ran;
let red: Ran;
let verbose: Ran;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'durable-agent-quiet-run-'));
  // One after the other: the machine is shared.
  green = await runFixture();
  red = await runFixture({ QUIET_FIXTURE_FAIL: '1', QUIET_FIXTURE_JSON: join(dir, 'vitest.json') });
  verbose = await runFixture({ DURABLE_AGENT_TEST_LOGS: '1' });
}, 240_000);
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('a test run', () => {
  it('green: passes with nothing on stderr, no warning and no AWS notice anywhere', () => {
    expect(green.code, green.stdout + green.stderr).toBe(0);
    const all = green.stdout + green.stderr;
    expect(all).toContain('1 passed');
    expect(all).not.toContain('warning of the passing test');
    expect(all).not.toContain('stack of the passing test');
    expect(all).not.toContain('[WARN]');
    expect(all).not.toContain('NodeVersionSupportWarning');
    expect(green.stderr).toBe('');
  });

  it("red: shows the failing test's warnings and its error, not the passing test's warnings", () => {
    expect(red.code).not.toBe(0);
    const all = red.stdout + red.stderr;
    expect(all).toContain('warning of the failing test');
    expect(all).toContain('the value it wanted');
    expect(all).not.toContain('warning of the passing test');
    expect(all).not.toContain('NodeVersionSupportWarning');
  });

  it("with DURABLE_AGENT_TEST_LOGS=1: prints every warning, passing tests' too", () => {
    expect(verbose.code, verbose.stdout + verbose.stderr).toBe(0);
    expect(verbose.stdout + verbose.stderr).toContain('warning of the passing test');
  });
});

describe('CI summary (.ci/summary.js)', () => {
  it('lists the failed tests with the start of their errors, then ends with `N passed, N failed`', async () => {
    const summary = await runNode([join('.ci', 'summary.js'), join(dir, 'vitest.json')]);
    expect(summary.code, summary.stderr).toBe(0);
    const lines = summary.stdout.trimEnd().split('\n');
    expect(lines.at(-1)).toBe('1 passed, 1 failed');
    const failure = lines.findIndex((l) => l.includes('fails, with a warning logged before'));
    expect(failure, summary.stdout).toBeGreaterThanOrEqual(0);
    expect(lines[failure]).toContain('noisy.fixture.ts');
    expect(lines.slice(failure + 1, -1).join('\n')).toContain('the value it wanted');
    expect(summary.stdout).not.toContain('passes, with a warning logged on the way');
  });

  it('says the tests did not run when there is no report, and counts that as a failure', async () => {
    const summary = await runNode([join('.ci', 'summary.js'), join(dir, 'absent.json')]);
    expect(summary.stdout.trimEnd().split('\n').at(-1)).toBe('0 passed, 1 failed');
  });

  it('counts a failed check that ran outside vitest (CI_FAILED_CHECKS) as a failed test, listed first', async () => {
    const summary = await runNode([join('.ci', 'summary.js'), join(dir, 'vitest.json')], { CI_FAILED_CHECKS: 'package checks' });
    const lines = summary.stdout.trimEnd().split('\n');
    expect(lines.at(-1)).toBe('1 passed, 2 failed');
    expect(lines.some((l) => l.startsWith('✗ package checks'))).toBe(true);
  });

  it('counts a file that failed before any of its tests (a failed beforeAll) as a failed test', async () => {
    const report = {
      numPassedTests: 3,
      numFailedTests: 0,
      testResults: [
        { name: 'a.test.ts', status: 'passed', assertionResults: [{ status: 'passed', title: 'x', ancestorTitles: [] }] },
        { name: 'b.test.ts', status: 'failed', message: 'Error: could not start the worker', assertionResults: [] },
      ],
    };
    writeFileSync(join(dir, 'file-failed.json'), JSON.stringify(report));
    const summary = await runNode([join('.ci', 'summary.js'), join(dir, 'file-failed.json')]);
    const lines = summary.stdout.trimEnd().split('\n');
    expect(lines.at(-1)).toBe('3 passed, 1 failed');
    expect(lines).toContain('✗ b.test.ts');
  });
});
