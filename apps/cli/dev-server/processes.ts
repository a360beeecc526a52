/** Small helpers for the local servers that tests and benches start (Temporal, Redis, PostgreSQL, S3, llama.cpp). */
import type { ChildProcess } from 'node:child_process';
import { spawnSync } from 'node:child_process';
import { createServer } from 'node:net';

/** A TCP port free on 127.0.0.1 right now (the OS picks it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/**
 * Stop a child process: `signal` (default SIGTERM) first, SIGKILL after `graceMs` (default 5 s).
 * Resolves once it has exited; at once if it already has.
 */
export function terminate(child: ChildProcess, options: { signal?: NodeJS.Signals; graceMs?: number } = {}): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill('SIGKILL'), options.graceMs ?? 5000);
    child.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    child.kill(options.signal ?? 'SIGTERM');
  });
}

/** What a started server process has printed (its last 4,000 characters) and whether it has exited. */
export interface WatchedChild {
  /** The end of what it wrote to stdout and stderr. */
  output(): string;
  /** How it ended (`exited (1)`, `exited (SIGKILL)`, a spawn error), or undefined while it runs. */
  exited(): string | undefined;
}

/** Keep the end of a child's output and note its exit, for error messages when it fails to start. */
export function watchChild(child: ChildProcess): WatchedChild {
  let output = '';
  let exited: string | undefined;
  const keep = (b: Buffer) => (output = (output + b.toString()).slice(-4000));
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  child.once('exit', (code, signal) => (exited = `exited (${code ?? signal})`));
  child.once('error', (err) => (exited = err.message));
  return { output: () => output, exited: () => exited };
}

/**
 * Run an installer step (`cmd args…`) to completion, logging the command and, if it fails, the last
 * lines it printed. Returns whether it succeeded.
 */
export function runLogged(cmd: string, args: string[], log: (line: string) => void, extraEnv: NodeJS.ProcessEnv = {}): boolean {
  log(`$ ${[cmd, ...args].join(' ')}`);
  const r = spawnSync(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8', env: { ...process.env, ...extraEnv } });
  if (r.error || r.status !== 0) {
    const why = r.error ? r.error.message : (r.stderr || r.stdout || '').trim().split('\n').slice(-3).join(' | ');
    log(`  failed: ${why}`);
    return false;
  }
  return true;
}
