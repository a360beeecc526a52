/**
 * Worker processes of the kill tests: a fixture script (`test/fixtures/*-worker.ts`) run with tsx on the
 * shared dev server and workflow bundle, ready once it prints `ready`. Killed with SIGKILL at the end.
 */
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '..', '..');

/** A worker process and what it printed. */
export interface WorkerProcess {
  proc: ChildProcess;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** The worker processes a test file starts; `killAll()` in its `afterAll`. */
export class WorkerProcesses {
  private readonly children = new Set<ChildProcess>();

  /** Start `test/fixtures/<fixture>` with `env` added; resolves once it prints `ready` (60 s at most). */
  start(fixture: string, env: Record<string, string>): Promise<WorkerProcess> {
    const proc = spawn(process.execPath, ['--import', 'tsx', join('test', 'fixtures', fixture)], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.children.add(proc);
    let out = '';
    proc.stdout?.on('data', (d: Buffer) => (out += d.toString()));
    proc.stderr?.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((res) =>
      proc.once('exit', (code, signal) => {
        this.children.delete(proc);
        res({ code, signal });
      }),
    );
    const w: WorkerProcess = { proc, output: () => out, exited };
    return new Promise((res, rej) => {
      const timer = setTimeout(() => rej(new Error(`worker ${fixture} did not start within 60 s:\n${out}`)), 60_000);
      proc.stdout?.on('data', () => {
        if (/^ready$/m.test(out)) {
          clearTimeout(timer);
          res(w);
        }
      });
      void exited.then(({ code, signal }) => {
        clearTimeout(timer);
        rej(new Error(`worker ${fixture} exited (code ${code}, signal ${signal}) before it was ready:\n${out}`));
      });
    });
  }

  /** SIGKILL every worker still running. */
  killAll(): void {
    for (const proc of this.children) proc.kill('SIGKILL');
  }
}
