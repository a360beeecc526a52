/** Running the `durable-agent` command as a child process, the way users run it. */
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { expect } from 'vitest';

/** The CLI's entry point in this repository. */
export const CLI_BIN = resolve(__dirname, '..', '..', 'apps', 'cli', 'bin', 'durable-agent.js');

/** What a CLI invocation did. */
export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Variables of the parent environment that would change what the CLI does; removed from the child's. */
const SCRUBBED = [
  'ANTHROPIC_API_KEY',
  'TEMPORAL_ADDRESS',
  'DURABLE_AGENT_DEV_PORT',
  'DURABLE_AGENT_TASK_QUEUE',
  'DURABLE_AGENT_MODEL',
  'FORCE_COLOR',
];

/** A fresh state folder for one test file. */
export function tempHome(): string {
  return mkdtempSync(join(tmpdir(), 'durable-agent-cli-'));
}

/** Options of {@link runCli} and {@link startCli}. */
export interface CliOptions {
  /** The state folder (`DURABLE_AGENT_HOME`). */
  home: string;
  env?: Record<string, string>;
  /** Killed (SIGTERM) after this long. Default 90 s. */
  timeoutMs?: number;
}

/** A CLI process still running. */
export interface RunningCli {
  child: ChildProcess;
  /** Standard output so far. */
  stdout(): string;
  /** Resolves once standard output contains `text`; rejects if the process ends first. */
  waitFor(text: string): Promise<void>;
  /** Resolves when the process has ended. */
  done: Promise<CliResult>;
}

/** Start `node bin/durable-agent.js ...args` with `home` as the state folder and no API key. */
export function startCli(args: string[], options: CliOptions): RunningCli {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of SCRUBBED) delete env[name];
  // Always the TypeScript sources of this tree, never a dist/ build that may be stale (see bin/entry.js).
  Object.assign(env, { DURABLE_AGENT_HOME: options.home, DURABLE_AGENT_FROM_SOURCE: '1' }, options.env);
  const child = spawn(process.execPath, [CLI_BIN, ...args], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: options.timeoutMs ?? 90_000,
  });
  let stdout = '';
  let stderr = '';
  const waiters: Array<() => void> = [];
  child.stdout!.setEncoding('utf8').on('data', (d: string) => {
    stdout += d;
    for (const w of [...waiters]) w();
  });
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const done = new Promise<CliResult>((resolvePromise, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolvePromise({ code, stdout, stderr }));
  });
  return {
    child,
    stdout: () => stdout,
    done,
    waitFor: (text) =>
      new Promise<void>((resolvePromise, reject) => {
        const check = () => {
          if (!stdout.includes(text)) return;
          waiters.splice(waiters.indexOf(check), 1);
          resolvePromise();
        };
        waiters.push(check);
        check();
        done.then(
          (r) => reject(new Error(`the CLI exited (${r.code}) before printing ${JSON.stringify(text)}: ${r.stdout}${r.stderr}`)),
          reject,
        );
      }),
  };
}

/** Run `node bin/durable-agent.js ...args` to completion. */
export function runCli(args: string[], options: CliOptions): Promise<CliResult> {
  return startCli(args, options).done;
}

export { freePort } from '../../apps/cli/dev-server/processes';

/** The non-empty lines of `text`. */
export function lines(text: string): string[] {
  return text.split('\n').filter((l) => l.trim() !== '');
}

/** The only stderr line of a failed invocation (which must have exited with a non-zero code). */
export function soleError(r: Pick<CliResult, 'code' | 'stderr'>): string {
  expect(r.code).not.toBe(0);
  expect(r.code).not.toBeNull();
  const errLines = lines(r.stderr);
  expect(errLines).toHaveLength(1);
  return errLines[0] as string;
}
