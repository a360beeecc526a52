/**
 * The chat example (examples/chat) for the Chromium tests and the chat bench, built and run from this
 * checkout: the page built by Vite with the example's own `vite.config.ts` (React, `ai`, `@ai-sdk/react`
 * from the repository's node_modules, `durable-agent/chat-transport` resolved to its source), its web server
 * and its worker as child processes (test/fixtures/chat-example-*.mts, run by tsx, which maps
 * `durable-agent/*` to the sources through tsconfig.json's `paths`). No network, no install.
 */
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '..', '..');
/** The example's folder. */
export const CHAT_EXAMPLE = join(ROOT, 'examples', 'chat');

/**
 * Build the example's page into `outDir` (vite build, its own config; `durable-agent/chat-transport` is the
 * repository's source). Returns the time it took (ms).
 */
export async function buildChatPage(outDir: string): Promise<number> {
  const started = Date.now();
  const { build } = await import('vite');
  await build({
    root: CHAT_EXAMPLE,
    configFile: join(CHAT_EXAMPLE, 'vite.config.ts'),
    logLevel: 'warn',
    resolve: { alias: { 'durable-agent/chat-transport': join(ROOT, 'src', 'entry', 'chat-transport.ts') } },
    build: { outDir, emptyOutDir: true },
  });
  return Date.now() - started;
}

/** The workflow id of chat `chatId` (examples/chat/app.ts `chatSessionId`: one session per chat id, whoever asks). */
export function chatWorkflowId(chatId: string, _identity: string): string {
  return `chat-example:${chatId}`;
}

/** A child process of the example and what it printed. */
export interface ExampleProcess {
  readonly proc: ChildProcess;
  output(): string;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Where the example's processes run: the Temporal server, the task queue and the rest of their environment. */
export interface ExampleEnv {
  temporalAddress: string;
  taskQueue: string;
  /** Deltas over Redis Streams too (worker publishes, server reads). */
  redisUrl?: string;
}

function start(script: string, env: NodeJS.ProcessEnv, ready: RegExp, what: string): Promise<ExampleProcess> {
  const proc = spawn(process.execPath, ['--import', 'tsx', join('test', 'fixtures', script)], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((res) =>
    proc.once('exit', (code, signal) => res({ code, signal })),
  );
  const p: ExampleProcess = { proc, output: () => out, exited };
  return new Promise((res, rej) => {
    const timer = setTimeout(() => rej(new Error(`${what} did not start within 60 s:\n${out}`)), 60_000);
    proc.stdout?.on('data', () => {
      if (ready.test(out)) {
        clearTimeout(timer);
        res(p);
      }
    });
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      rej(new Error(`${what} exited (code ${code}, signal ${signal}) before it was ready:\n${out}`));
    });
  });
}

/** Start the example's worker (test/fixtures/chat-example-worker.mts); resolves once it polls. */
export function startChatWorker(
  where: ExampleEnv,
  options: { storeDir: string; workflowBundle: string; deploy?: 2; intervalMs?: number; stamped?: { pieces: number; intervalMs: number } },
): Promise<ExampleProcess> {
  return start(
    'chat-example-worker.mts',
    {
      TEMPORAL_ADDRESS: where.temporalAddress,
      CHAT_TASK_QUEUE: where.taskQueue,
      CHAT_STORE_DIR: options.storeDir,
      CHAT_WORKFLOW_BUNDLE: options.workflowBundle,
      ...(options.deploy ? { CHAT_DEPLOY: String(options.deploy) } : {}),
      ...(options.intervalMs !== undefined ? { CHAT_DEMO_INTERVAL_MS: String(options.intervalMs) } : {}),
      ...(options.stamped ? { CHAT_STAMPED: `${options.stamped.pieces}:${options.stamped.intervalMs}` } : {}),
      ...(where.redisUrl ? { CHAT_REDIS_URL: where.redisUrl } : {}),
    },
    /^ready$/m,
    'the chat worker',
  );
}

/** Start the example's web server (test/fixtures/chat-example-server.mts) on a free port; resolves with its URL. */
export async function startChatServer(where: ExampleEnv, staticDir: string): Promise<ExampleProcess & { url: string }> {
  const p = await start(
    'chat-example-server.mts',
    {
      TEMPORAL_ADDRESS: where.temporalAddress,
      CHAT_TASK_QUEUE: where.taskQueue,
      CHAT_STATIC_DIR: staticDir,
      ...(where.redisUrl ? { CHAT_REDIS_URL: where.redisUrl } : {}),
    },
    /^listening \d+$/m,
    'the chat server',
  );
  const port = /^listening (\d+)$/m.exec(p.output())![1];
  return Object.assign(p, { url: `http://127.0.0.1:${port}` });
}

/** Stop a process gracefully (SIGTERM), or kill it when it does not exit within 10 s. */
export async function stopProcess(p: ExampleProcess): Promise<void> {
  if (p.proc.exitCode !== null || p.proc.signalCode !== null) return;
  p.proc.kill('SIGTERM');
  const timeout = new Promise<'timeout'>((res) => setTimeout(() => res('timeout'), 10_000).unref());
  if ((await Promise.race([p.exited, timeout])) === 'timeout') p.proc.kill('SIGKILL');
  await p.exited;
}

/** `kill -9` a process; resolves once it is gone. */
export async function killProcess(p: ExampleProcess): Promise<void> {
  if (p.proc.exitCode !== null || p.proc.signalCode !== null) return;
  p.proc.kill('SIGKILL');
  await p.exited;
}
