/**
 * The package's entry points: `durable-agent` (definitions and types), `durable-agent/client`,
 * `durable-agent/worker`, `durable-agent/workflow` and one per optional part (`/anthropic`, `/openai`,
 * `/ai-sdk`, `/postgres`, `/s3`, `/redis`, `/otel`, `/mcp`) and the chat's (`/chat`, `/chat-transport`). A process that only starts runs or decides
 * approvals must not load the worker's native code, the root must load no Temporal connection code at all,
 * and no entry loads an optional peer other than its own. Each entry's source module is
 * loaded in a fresh Node process (through tsx) and the packages it pulled in are read from
 * `require.cache` (every @temporalio package is CommonJS, so all of them show up there).
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { promisify } from 'node:util';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const exec = promisify(execFile);
const ROOT = resolve(__dirname, '..', '..');
const WATCHED = [
  '@temporalio/worker',
  '@temporalio/core-bridge',
  '@temporalio/client',
  'zod',
  'openai',
  '@anthropic-ai/sdk',
  '@ai-sdk/provider',
  'pg',
  '@aws-sdk/client-s3',
  'ioredis',
  '@modelcontextprotocol/sdk',
  '@temporalio/interceptors-opentelemetry',
  '@opentelemetry/sdk-trace-node',
  '@opentelemetry/exporter-trace-otlp-http',
  'hono',
  'commander',
  'ora',
] as const;

/** The optional peers among the watched packages (durable-agent's `peerDependencies`). */
const PEERS = WATCHED.filter(
  (name) =>
    name in (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { peerDependencies: Record<string, string> }).peerDependencies,
);

/** The runtime export names of each entry loaded so far (by {@link packagesLoadedBy}). */
const exportsOf = new Map<string, string[]>();

/** The watched packages a fresh process has loaded after requiring `file` (a source path relative to the root). */
async function packagesLoadedBy(file: string): Promise<Record<string, boolean>> {
  const script = `
    const entry = require(${JSON.stringify(join(ROOT, file))});
    const keys = Object.keys(require.cache);
    const loaded = {};
    for (const name of ${JSON.stringify(WATCHED)}) loaded[name] = keys.some((k) => k.includes('/node_modules/' + name + '/'));
    process.stdout.write(JSON.stringify({ loaded, exports: Object.keys(entry) }));
  `;
  const { stdout } = await exec(process.execPath, ['--import', 'tsx', '-e', script], { cwd: ROOT, timeout: 60_000 });
  const { loaded, exports } = JSON.parse(stdout) as { loaded: Record<string, boolean>; exports: string[] };
  expect(exports.length, `${file} exports something`).toBeGreaterThan(0);
  exportsOf.set(file, exports);
  return loaded;
}

describe('what each entry loads', () => {
  it('the root entry loads neither @temporalio/worker nor @temporalio/client', async () => {
    const loaded = await packagesLoadedBy('src/entry/index.ts');
    expect(loaded['@temporalio/worker']).toBe(false);
    expect(loaded['@temporalio/core-bridge']).toBe(false);
    expect(loaded['@temporalio/client']).toBe(false);
    expect(loaded.zod).toBe(true); // definitions need zod: proves the check sees what is loaded
  });

  it('the client entry loads @temporalio/client but not the worker, zod or the provider SDKs', async () => {
    const loaded = await packagesLoadedBy('src/entry/client.ts');
    expect(loaded['@temporalio/client']).toBe(true);
    expect(loaded['@temporalio/worker']).toBe(false);
    expect(loaded['@temporalio/core-bridge']).toBe(false);
    expect(loaded.zod).toBe(false);
    expect(loaded.openai).toBe(false);
    expect(loaded['@anthropic-ai/sdk']).toBe(false);
    expect(loaded.ioredis).toBe(false);
  });

  it('the root and client entries load no optional peer', async () => {
    expect(PEERS).toContain('@temporalio/worker');
    expect(PEERS.length).toBeGreaterThan(10);
    for (const file of ['src/entry/index.ts', 'src/entry/client.ts']) {
      const loaded = await packagesLoadedBy(file);
      expect(
        PEERS.filter((name) => loaded[name]),
        file,
      ).toEqual([]);
    }
  });

  it.each([
    ['anthropic', '@anthropic-ai/sdk'],
    ['openai', 'openai'],
    ['ai-sdk', '@ai-sdk/provider'],
    ['postgres', 'pg'],
    ['s3', '@aws-sdk/client-s3'],
    ['redis', 'ioredis'],
    ['otel', '@opentelemetry/sdk-trace-node'],
    ['mcp', '@modelcontextprotocol/sdk'],
  ])('the %s entry loads no optional peer but %s, and that only when used', async (entry, own) => {
    const loaded = await packagesLoadedBy(`src/entry/${entry}.ts`);
    expect(PEERS.filter((name) => loaded[name] && name !== own)).toEqual([]);
    expect(loaded[own]).toBe(false);
  });

  it('the chat entry (server side of useChat: given an AgentClient) loads zod, but not the worker and no optional peer', async () => {
    const loaded = await packagesLoadedBy('src/entry/chat.ts');
    expect(loaded.zod).toBe(true);
    expect(loaded['@temporalio/worker']).toBe(false);
    expect(PEERS.filter((name) => loaded[name])).toEqual([]);
  });

  it('the chat-transport entry (runs in the browser) loads none of the watched packages: no Temporal, no zod, no peer', async () => {
    const loaded = await packagesLoadedBy('src/entry/chat-transport.ts');
    expect(WATCHED.filter((name) => loaded[name])).toEqual([]);
  });

  it('the webhooks entry (receivers of approval notifications) loads none of the watched packages: no Temporal, no zod, no peer', async () => {
    const loaded = await packagesLoadedBy('src/entry/webhooks.ts');
    expect(WATCHED.filter((name) => loaded[name])).toEqual([]);
  });

  it('the workflow entry (workflow code) loads neither the worker, the client nor zod', async () => {
    const loaded = await packagesLoadedBy('src/entry/workflow.ts');
    expect(loaded['@temporalio/worker']).toBe(false);
    expect(loaded['@temporalio/client']).toBe(false);
    expect(loaded.zod).toBe(false);
  });

  it('the worker entry loads the worker (so the checks above can fail), but no model SDK, MCP or tracing until an agent uses them', async () => {
    const loaded = await packagesLoadedBy('src/entry/worker.ts');
    expect(loaded['@temporalio/worker']).toBe(true);
    expect(loaded['@anthropic-ai/sdk']).toBe(false);
    expect(loaded.openai).toBe(false);
    expect(loaded['@modelcontextprotocol/sdk']).toBe(false);
    expect(loaded['@temporalio/interceptors-opentelemetry']).toBe(false);
    // It lists the root's values (not `export *`, which ESM importers of the CommonJS build would not see).
    await packagesLoadedBy('src/entry/index.ts');
    const worker = new Set(exportsOf.get('src/entry/worker.ts'));
    expect(exportsOf.get('src/entry/index.ts')?.filter((name) => !worker.has(name))).toEqual([]);
  });
});

interface PackageJson {
  name: string;
  main: string;
  types: string;
  exports: Record<string, string | { types: string; default: string }>;
  typesVersions: Record<string, Record<string, string[]>>;
}
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as PackageJson;

/** Every file `tsc -p tsconfig.build.json` emits, relative to the root with `./`. */
function buildOutputs(): Set<string> {
  const parsed = ts.getParsedCommandLineOfConfigFile(
    join(ROOT, 'tsconfig.build.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      },
    },
  );
  if (!parsed) throw new Error('tsconfig.build.json did not parse');
  const out = new Set<string>();
  for (const file of parsed.fileNames) {
    for (const o of ts.getOutputFileNames(parsed, file, false)) out.add(`./${relative(ROOT, o).split('\\').join('/')}`);
  }
  return out;
}

describe('package.json points at what the build emits', () => {
  const outputs = buildOutputs();
  const norm = (p: string) => (p.startsWith('./') ? p : `./${p}`);

  it('has the entries, each with its typesVersions path', () => {
    const subpaths = [
      './ai-sdk',
      './anthropic',
      './chat',
      './chat-transport',
      './client',
      './mcp',
      './openai',
      './otel',
      './postgres',
      './redis',
      './s3',
      './webhooks',
      './worker',
      './workflow',
    ];
    expect(Object.keys(pkg.exports).sort()).toEqual(['.', './package.json', ...subpaths].sort());
    expect(Object.keys(pkg.typesVersions['*'] ?? {}).sort()).toEqual(subpaths.map((p) => p.slice(2)));
    for (const p of subpaths)
      expect(pkg.typesVersions['*']?.[p.slice(2)], p).toEqual([(pkg.exports[p] as { types: string }).types.slice(2)]);
  });

  it('every export target, main, types and typesVersions is a file tsconfig.build.json emits', () => {
    const targets: string[] = [pkg.main, pkg.types];
    for (const [key, value] of Object.entries(pkg.exports)) {
      if (key === './package.json') continue;
      if (typeof value === 'string') targets.push(value);
      else targets.push(value.types, value.default);
    }
    for (const paths of Object.values(pkg.typesVersions['*'] ?? {})) targets.push(...paths);
    expect(targets.length).toBeGreaterThan(8);
    for (const t of targets) expect(outputs.has(norm(t)), `${t} is emitted by tsconfig.build.json`).toBe(true);
  });

  it('each entry has both its types and its code, from the same source module', () => {
    for (const [key, value] of Object.entries(pkg.exports)) {
      if (typeof value === 'string') continue;
      expect(value.types.replace(/\.d\.ts$/, ''), key).toBe(value.default.replace(/\.js$/, ''));
    }
  });
});
