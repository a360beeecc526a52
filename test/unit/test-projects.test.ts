/**
 * The vitest projects (vitest.config.mts) as vitest itself resolves them: `unit` starts no server and
 * builds no bundle, so `npm run test:unit` is a quick inner loop; every test file belongs to exactly one
 * project; no unit file reads what only the server-starting setups give (`inject`).
 */
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Vitest } from 'vitest/node' with { 'resolution-mode': 'import' };
import { acquire, holders } from '../setup/shared-resource';

const ROOT = join(__dirname, '..', '..');

/** Test files (relative to the root) per project name. */
let files: Map<string, string[]>;
let vitest: Vitest;

beforeAll(async () => {
  const { createVitest } = await import('vitest/node');
  vitest = await createVitest('test', { root: ROOT, config: join(ROOT, 'vitest.config.mts'), watch: false, reporters: [] });
  files = new Map(vitest.projects.map((p) => [p.name, []]));
  for (const spec of await vitest.globTestSpecifications()) {
    files.get(spec.project.name)?.push(relative(ROOT, spec.moduleId).split('\\').join('/'));
  }
}, 60_000);

afterAll(async () => {
  await vitest?.close();
});

/** Every module under test/ that `file` imports, directly or not (relative imports only), and itself. */
function testModules(file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file)) return seen;
  seen.add(file);
  const text = readFileSync(join(ROOT, file), 'utf8');
  for (const m of text.matchAll(/(?:from|import)\s*\(?\s*'(\.\.?\/[^']+)'/g)) {
    const target = relative(ROOT, resolve(dirname(join(ROOT, file)), m[1]!))
      .split('\\')
      .join('/');
    if (!target.startsWith('test/')) continue;
    const withExt = /\.(ts|js|mjs|json)$/.test(target) ? target : `${target}.ts`;
    if (withExt.endsWith('.ts')) testModules(withExt, seen);
  }
  return seen;
}

describe('the vitest projects', () => {
  it('are unit, integration, package and restart', () => {
    expect([...files.keys()].sort()).toEqual(['integration', 'package', 'restart', 'unit']);
  });

  it('the unit project and the root have no global setup: a unit run starts no server and builds no bundle', () => {
    const unit = vitest.projects.find((p) => p.name === 'unit');
    expect(unit?.config.globalSetup).toEqual([]);
    expect(vitest.config.globalSetup).toEqual([]);
  });

  it('the projects that need the dev server or the bundle set them up', () => {
    const setups = (name: string) =>
      [vitest.projects.find((p) => p.name === name)?.config.globalSetup ?? []].flat().map((f) => relative(ROOT, f).split('\\').join('/'));
    expect(setups('integration')).toEqual(['test/setup/dev-server.ts', 'test/setup/workflow-bundle.ts']);
    expect(setups('restart')).toEqual(['test/setup/temporal-cli.ts', 'test/setup/workflow-bundle.ts']);
    expect(setups('package')).toEqual(['test/setup/dev-server.ts']);
  });

  it('puts every test file in exactly one project: unit files in test/unit, test/types, test/providers', () => {
    const all = [...files.values()].flat();
    expect(new Set(all).size).toBe(all.length);
    expect(files.get('unit')!.length).toBeGreaterThan(50);
    for (const f of files.get('unit')!) expect(f).toMatch(/^test\/(unit|types|providers)\//);
    for (const f of files.get('restart')!) expect(f).toMatch(/^test\/restart\//);
    expect(files.get('package')).toEqual(['test/package/pack-install.test.ts']);
    expect(files.get('integration')).toEqual(
      expect.arrayContaining(['test/integration/loop.test.ts', 'test/replay/replay.test.ts', 'test/integration/built-package.test.ts']),
    );
  });

  it('no unit file, nor a test module it imports, reads what only the server setups provide (inject)', () => {
    const offenders: string[] = [];
    for (const f of files.get('unit')!) {
      for (const m of testModules(f)) if (/\binject\(/.test(readFileSync(join(ROOT, m), 'utf8'))) offenders.push(`${f} → ${m}`);
    }
    expect(offenders).toEqual([]);
  });

  it('no unit file runs the package build (tsconfig.build.json through tsc)', () => {
    const building = files.get('unit')!.filter((f) => /typescript\/bin\/tsc/.test(readFileSync(join(ROOT, f), 'utf8')));
    expect(building).toEqual([]);
  });
});

describe('a resource shared by several projects’ global setups', () => {
  it('starts once for every holder, and stops after the last release only', async () => {
    const key = `test-${process.pid}-${Date.now()}`;
    let starts = 0;
    let stops = 0;
    const start = async () => {
      starts += 1;
      return { value: `server ${starts}`, stop: async () => void (stops += 1) };
    };
    const [a, b] = await Promise.all([acquire(key, start), acquire(key, start)]);
    expect([a.value, b.value, starts, holders(key)]).toEqual(['server 1', 'server 1', 1, 2]);
    await a.release();
    await a.release();
    expect([stops, holders(key)]).toEqual([0, 1]);
    await b.release();
    expect([stops, holders(key)]).toEqual([1, 0]);
    const c = await acquire(key, start);
    expect([c.value, starts]).toEqual(['server 2', 2]);
    await c.release();
  });

  it('forgets a failed start, so the next holder tries again', async () => {
    const key = `test-fail-${process.pid}-${Date.now()}`;
    await expect(acquire(key, () => Promise.reject(new Error('no port')))).rejects.toThrow('no port');
    expect(holders(key)).toBe(0);
    const held = await acquire(key, async () => ({ value: 1, stop: async () => undefined }));
    expect(held.value).toBe(1);
    await held.release();
  });
});
