/**
 * The package's manifest against its code: every base dependency is imported by a shipped file (the
 * folders `npm run build` compiles, and `bin/`), every package a shipped file imports is a base or an
 * optional peer dependency, optional peers are loaded only through the optional-peer loader (or by the
 * files behind the entry that needs them), and what only tests, benchmarks, examples and tooling import
 * is a dev dependency. Also: the
 * lock has an entry for every optional dependency it names (else `npm install` on a clean clone rewrites
 * it and `npm ci` refuses it), the licence file, and the Node versions targeted.
 */
import { readdirSync, readFileSync, statSync, existsSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { PEERS } from '../../src/integrations/optional-peer';

const ROOT = resolve(__dirname, '..', '..');
// eslint-disable-next-line @typescript-eslint/no-require-imports -- CommonJS module shared with bin/
const { SOURCES } = require(join(ROOT, 'apps', 'cli', 'bin', 'entry.js')) as { SOURCES: string[] };

interface Manifest {
  license: string;
  engines: Record<string, string>;
  dependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
  devDependencies: Record<string, string>;
}
interface LockEntry {
  optional?: boolean;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Manifest;

/**
 * Runtime dependencies no shipped file imports, kept on purpose, with the reason. protobufjs: Temporal's
 * @temporalio/common, proto and worker need one shared protobufjs 8 (`proto-utils`' JSON helpers, used by
 * the codec server and history JSON, patch that copy's classes); OpenTelemetry's OTLP exporter (an optional
 * peer, and a dev dependency here) needs 7. Without 8 as our own dependency, npm resolving from scratch (this
 * repository, or a project that installs the OTLP exporter beside durable-agent) may hoist 7 and give each
 * Temporal package its own 8. It costs nothing: @temporalio/common depends on it anyway.
 */
const KEPT_UNIMPORTED: Record<string, string> = { protobufjs: 'one protobufjs 8 hoisted for @temporalio/*' };

/** The .ts/.js/.mjs files under `path` (a file or a folder), `node_modules` and `dist` left out. */
function sourceFiles(path: string): string[] {
  if (!existsSync(path)) return [];
  if (!statSync(path).isDirectory()) return /\.(ts|tsx|js|cjs|mjs|mts)$/.test(path) ? [path] : [];
  return readdirSync(path)
    .filter((name) => name !== 'node_modules' && name !== 'dist')
    .flatMap((name) => sourceFiles(join(path, name)));
}

const BUILTIN = new Set(builtinModules);

/** The package names `file` imports or requires (static, dynamic, type-only), Node's own modules left out. */
function importedPackages(file: string): string[] {
  const names = new Set<string>();
  // TypeScript's own pre-processor: imports, exports from, dynamic imports and require calls, not comments.
  const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  for (const { fileName: specifier } of importedFiles) {
    if (specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('node:')) continue;
    const parts = specifier.split('/');
    const name = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? specifier);
    if (!BUILTIN.has(name)) names.add(name);
  }
  return [...names];
}

/** package name → the files (relative) that import it, over `roots`. */
function importsUnder(roots: string[]): Map<string, string[]> {
  const found = new Map<string, string[]>();
  for (const file of roots.flatMap((r) => sourceFiles(join(ROOT, r)))) {
    for (const name of importedPackages(file)) found.set(name, [...(found.get(name) ?? []), file.slice(ROOT.length + 1)]);
  }
  return found;
}

/**
 * Optional peers that shipped files may import as values (not through the loader), and where: the files
 * behind the entry that needs them (the worker's runtime, the CLI and HTTP products). Every other peer is
 * loaded only by `loadPeer` (src/integrations/optional-peer.ts) and imported elsewhere as types only.
 */
const STATIC_PEERS: Record<string, readonly string[]> = {
  '@temporalio/worker': ['src/worker/', 'apps/cli/'],
  '@temporalio/testing': ['apps/cli/'],
  commander: ['apps/cli/'],
  hono: ['apps/cli/', 'apps/http/'],
  '@hono/node-server': ['apps/http/'],
  // Workflow code: bundled (by webpack, not required) only into a tracing worker's bundle, after
  // src/integrations/telemetry/worker-tracing.ts loaded the package through the loader.
  '@temporalio/interceptors-opentelemetry': ['src/integrations/telemetry/workflow-interceptors.ts'],
  // The bin runs the TypeScript sources through tsx only in a checkout without a current dist/.
  tsx: ['apps/cli/bin/durable-agent.js'],
  // Types only: the browser's chat transport implements the AI SDK's `ChatTransport` (nothing is loaded).
  ai: ['src/browser/'],
};

/** The package of an import specifier (`@scope/name` or `name`). */
function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? specifier);
}

/** The packages `file` imports as values (type-only imports and exports left out), `require` calls included. */
function valueImports(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const names = new Set<string>();
  const add = (node: ts.Expression | undefined) => {
    if (node && ts.isStringLiteral(node) && !node.text.startsWith('.') && !node.text.startsWith('node:')) names.add(packageOf(node.text));
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) {
      const clause = node.importClause;
      const bindings = clause?.namedBindings;
      const typeOnly =
        clause !== undefined &&
        (clause.isTypeOnly ||
          (!clause.name && bindings !== undefined && ts.isNamedImports(bindings) && bindings.elements.every((e) => e.isTypeOnly)));
      if (!typeOnly) add(node.moduleSpecifier);
    } else if (ts.isExportDeclaration(node)) {
      if (!node.isTypeOnly) add(node.moduleSpecifier);
    } else if (
      ts.isCallExpression(node) &&
      (node.expression.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(node.expression) && node.expression.text === 'require'))
    ) {
      add(node.arguments[0]);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return [...names].filter((name) => !BUILTIN.has(name));
}

const shipped = importsUnder([...SOURCES, 'apps/cli/bin']);
const shippedFiles = [...SOURCES, 'apps/cli/bin'].flatMap((r) => sourceFiles(join(ROOT, r)));
const peers = Object.keys(pkg.peerDependencies);
// eslint-disable-next-line @typescript-eslint/no-require-imports -- the CLI's peers: CommonJS module shared with bin/
const { CLI_PEERS } = require(join(ROOT, 'apps', 'cli', 'bin', 'peers.js')) as { CLI_PEERS: string[] };
const tooling = importsUnder(['test', 'bench', 'examples', 'console', 'eslint.config.mjs', 'vitest.config.mts']);

describe('dependencies', () => {
  it('every runtime dependency is imported by a shipped file (or kept for a stated reason)', () => {
    const unused = Object.keys(pkg.dependencies).filter((name) => !shipped.has(name) && !(name in KEPT_UNIMPORTED));
    expect(unused).toEqual([]);
  });

  it('every package a shipped file imports is a base dependency or an optional peer', () => {
    const missing = [...shipped.keys()].filter(
      (name) => name !== 'durable-agent' && !(name in pkg.dependencies) && !(name in pkg.peerDependencies),
    );
    expect(missing.map((name) => `${name} (${shipped.get(name)?.join(', ')})`)).toEqual([]);
  });

  it('every peer dependency is optional, is a dev dependency (the tests use it) and is used by a shipped file', () => {
    expect(peers.length).toBeGreaterThan(10);
    for (const name of peers) {
      expect(pkg.peerDependenciesMeta[name]?.optional, `${name} is optional`).toBe(true);
      expect(pkg.devDependencies[name], `${name} is a dev dependency`).toBe(pkg.peerDependencies[name]);
      expect(shipped.has(name), `${name} is imported by a shipped file`).toBe(true);
      expect(name in pkg.dependencies, `${name} is not also a base dependency`).toBe(false);
    }
  });

  it('optional peers are loaded by the loader, or imported as values only behind the entry that needs them', () => {
    const misplaced: string[] = [];
    for (const file of shippedFiles) {
      const rel = file.slice(ROOT.length + 1);
      for (const name of valueImports(file)) {
        if (!(name in pkg.peerDependencies)) continue;
        if (!(STATIC_PEERS[name] ?? []).some((where) => rel.startsWith(where))) misplaced.push(`${name} (${rel})`);
      }
    }
    expect(misplaced).toEqual([]);
    // Every other peer is one the loader (or the CLI's check) knows: its missing-peer error names it.
    const loaded = new Set([...Object.values(PEERS).map((p) => p.packageName), ...CLI_PEERS]);
    expect(peers.filter((name) => !loaded.has(name) && !(STATIC_PEERS[name] ?? []).some((where) => where.endsWith('/')))).toEqual([]);
    expect([...loaded].filter((name) => !(name in pkg.peerDependencies))).toEqual([]);
  });

  it('the one loader is the only shipped code with an eslint-disabled require of a package', () => {
    const requiring = shippedFiles.filter(
      (file) => /no-require-imports/.test(readFileSync(file, 'utf8')) && /require\((?!['"`.]|path\))/.test(readFileSync(file, 'utf8')),
    );
    expect(requiring.map((f) => f.slice(ROOT.length + 1))).toEqual(['src/integrations/optional-peer.ts']);
  });

  it("every import of a Temporal package's internals (`@temporalio/*/lib/…`) says, just above, why no public API does", () => {
    const unexplained: string[] = [];
    for (const file of shippedFiles) {
      const lines = readFileSync(file, 'utf8').split('\n');
      lines.forEach((line, i) => {
        if (
          /^import .*'@temporalio\/[a-z-]+\/lib\//.test(line) &&
          !/^\/\/ Deep import/.test(
            lines
              .slice(0, i)
              .reverse()
              .find((l) => !/^import /.test(l)) ?? '',
          )
        ) {
          unexplained.push(`${file.slice(ROOT.length + 1)}:${i + 1}`);
        }
      });
    }
    expect(unexplained).toEqual([]);
  });

  it('what only tests, benchmarks, examples and tooling import is a dev dependency', () => {
    const misplaced = Object.keys(pkg.dependencies).filter((name) => !shipped.has(name) && tooling.has(name));
    expect(misplaced).toEqual([]);
  });
});

describe('package-lock.json', () => {
  it('has an entry for every dependency and optional dependency a locked package names', () => {
    const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> };
    /** Node's lookup: `<dir>/node_modules/<name>`, then each enclosing node_modules folder up to the root. */
    const resolves = (from: string, name: string): boolean => {
      let dir = from;
      for (;;) {
        if (`${dir ? `${dir}/` : ''}node_modules/${name}` in lock.packages) return true;
        if (!dir) return false;
        const at = dir.lastIndexOf('node_modules/');
        dir = at <= 0 ? '' : dir.slice(0, at - 1);
      }
    };
    const absent: string[] = [];
    for (const [path, entry] of Object.entries(lock.packages)) {
      for (const name of Object.keys({ ...entry.dependencies, ...entry.optionalDependencies })) {
        if (!resolves(path, name)) absent.push(`${name} (of ${path || 'the root'})`);
      }
    }
    expect(absent).toEqual([]);
  });
});

describe('licence', () => {
  it('has the MIT licence package.json names', () => {
    expect(pkg.license).toBe('MIT');
    const text = readFileSync(join(ROOT, 'LICENSE'), 'utf8');
    expect(text).toMatch(/^MIT License\n\nCopyright \(c\) 2026 durable-agent contributors\n/);
    expect(text).toContain('THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND');
  });
});

describe('platform', () => {
  it('targets Node 22 or newer, with its types', () => {
    expect(pkg.engines.node).toBe('>=22');
    expect(pkg.devDependencies['@types/node']).toMatch(/^\^22\./);
    expect(readFileSync(join(ROOT, 'deploy', 'Dockerfile'), 'utf8')).toMatch(/^FROM node:22-/m);
  });
});
