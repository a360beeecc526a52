/**
 * The package's manifest against its code: every runtime dependency is imported by a shipped file (the
 * folders `npm run build` compiles, and `bin/`), every package a shipped file imports is a runtime
 * dependency, and what only tests, benchmarks, examples and tooling import is a dev dependency. Also: the
 * lock has an entry for every optional dependency it names (else `npm install` on a clean clone rewrites
 * it and `npm ci` refuses it), the licence file, and the Node versions targeted.
 */
import { readdirSync, readFileSync, statSync, existsSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(__dirname, '..', '..');
// eslint-disable-next-line @typescript-eslint/no-require-imports -- CommonJS module shared with bin/
const { SOURCES } = require(join(ROOT, 'apps', 'cli', 'bin', 'entry.js')) as { SOURCES: string[] };

interface Manifest {
  license: string;
  engines: Record<string, string>;
  dependencies: Record<string, string>;
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
 * the codec server and history JSON, patch that copy's classes); OpenTelemetry's OTLP packages need 7. Without
 * it as our dependency, npm resolving from scratch hoists 7 and gives each Temporal package its own 8.
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

const shipped = importsUnder([...SOURCES, 'apps/cli/bin']);
const tooling = importsUnder(['test', 'bench', 'examples', 'console', 'eslint.config.mjs', 'vitest.config.mts']);

describe('dependencies', () => {
  it('every runtime dependency is imported by a shipped file (or kept for a stated reason)', () => {
    const unused = Object.keys(pkg.dependencies).filter((name) => !shipped.has(name) && !(name in KEPT_UNIMPORTED));
    expect(unused).toEqual([]);
  });

  it('every package a shipped file imports is a runtime dependency', () => {
    const missing = [...shipped.keys()].filter((name) => name !== 'durable-agent' && !(name in pkg.dependencies));
    expect(missing.map((name) => `${name} (${shipped.get(name)?.join(', ')})`)).toEqual([]);
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
