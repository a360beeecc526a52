/**
 * Worker processes of the chaos campaign: each one a separate `node` process (bench/chaos/worker.ts) in
 * a working directory of its own, all on one task queue and one shared store.
 */
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { terminate } from '../../apps/cli/dev-server/processes';

const ROOT = resolve(__dirname, '..', '..');
const WORKER_SCRIPT = join(ROOT, 'bench', 'chaos', 'worker.ts');
/** tsx's loader by absolute URL: the worker's working directory is not the project's. */
const TSX = pathToFileURL(require.resolve('tsx')).href;

/** What every worker of a fleet shares. */
export interface FleetSettings {
  /** `host:port` of the Temporal server. */
  address: string;
  taskQueue: string;
  /** Path of the prebuilt workflow bundle. */
  bundlePath: string;
  /** Store setting (a directory is made absolute here: workers run elsewhere). */
  store: string;
  /** Directory of the runs' log files. */
  logDir: string;
  /** Parent directory of the workers' working directories. */
  workDir: string;
}

/** A worker process. */
export interface WorkerProcess {
  readonly proc: ChildProcess;
  readonly pid: number;
  /** Its working directory. */
  readonly cwd: string;
  /** When it printed `ready` (epoch ms). */
  readonly readyAt: number;
  /** What it printed so far. */
  output(): string;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Whether it has exited. */
  readonly dead: boolean;
}

const children = new Set<ChildProcess>();

/** A store setting as workers in other directories must see it: directories made absolute. */
export function absoluteStore(setting: string): string {
  return /^[a-z][a-z0-9+.-]*:/i.test(setting) ? setting : resolve(setting);
}

/**
 * Start a worker process; resolves once it polls.
 *
 * @throws {Error} it exited, or did not print `ready` within `timeoutMs`; the message holds its output.
 */
export function startWorkerProcess(settings: FleetSettings, timeoutMs = 90_000): Promise<WorkerProcess> {
  const cwd = mkdtempSync(join(settings.workDir, 'worker-'));
  const proc = spawn(process.execPath, ['--import', TSX, WORKER_SCRIPT], {
    cwd,
    env: {
      ...process.env,
      TSX_TSCONFIG_PATH: join(ROOT, 'tsconfig.json'),
      DURABLE_AGENT_HOME: cwd,
      TEMPORAL_ADDRESS: settings.address,
      CHAOS_TASK_QUEUE: settings.taskQueue,
      CHAOS_WORKFLOW_BUNDLE: settings.bundlePath,
      CHAOS_STORE: absoluteStore(settings.store),
      CHAOS_LOG_DIR: settings.logDir,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(proc);
  let out = '';
  let dead = false;
  proc.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((res) =>
    proc.once('exit', (code, signal) => {
      dead = true;
      children.delete(proc);
      res({ code, signal });
    }),
  );
  return new Promise((res, rej) => {
    const timer = setTimeout(() => {
      proc.kill('SIGKILL');
      rej(new Error(`worker ${proc.pid} did not start within ${timeoutMs / 1000} s:\n${out}`));
    }, timeoutMs);
    const onData = () => {
      if (!/^ready$/m.test(out)) return;
      clearTimeout(timer);
      proc.stdout?.off('data', onData);
      const readyAt = Date.now();
      res({
        proc,
        pid: proc.pid!,
        cwd,
        readyAt,
        output: () => out,
        exited,
        get dead() {
          return dead;
        },
      });
    };
    proc.stdout?.on('data', onData);
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      rej(new Error(`worker exited (code ${code}, signal ${signal}) before it was ready:\n${out}`));
    });
  });
}

/** `kill -9` a worker; resolves once it is gone. */
export async function killWorker(w: WorkerProcess): Promise<void> {
  if (!w.dead) w.proc.kill('SIGKILL');
  await w.exited;
}

/** Stop a worker gracefully, or kill it if it does not exit within 10 s. */
export async function stopWorker(w: WorkerProcess): Promise<void> {
  await terminate(w.proc, { graceMs: 10_000 });
  await w.exited;
}

/** Kill every worker process this module started that is still alive (cleanup after a failure). */
export function killAllWorkers(): void {
  for (const proc of children) proc.kill('SIGKILL');
}
