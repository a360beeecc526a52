/**
 * Shipped code has no import cycle (type imports count): every .ts/.tsx outside test/, bench/, examples/,
 * scripts/, dist/ and node_modules/ reads from the ground up. Fails listing the modules on a cycle.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';
import { modulesOnCycles } from '../helpers/cycles';

const ROOT = join(__dirname, '..', '..');
const SKIP = /(^|\/)(test|tests|bench|examples|scripts|node_modules|dist)\/|\.test\.tsx?$|\.d\.ts$/;
const IMPORT = /(?:import|export)[^'"]*?from\s+['"](\.{1,2}\/[^'"]+)['"]/g;

const files = new Set(
  execFileSync('git', ['ls-files', '*.ts', '*.tsx'], { cwd: ROOT, encoding: 'utf8' })
    .split('\n')
    .filter((f) => f && !SKIP.test(f) && existsSync(join(ROOT, f))),
);

function resolve(from: string, spec: string): string | undefined {
  const base = normalize(join(dirname(from), spec)).replace(/\.js$/, '');
  return [`${base}.ts`, `${base}.tsx`, `${base}/index.ts`, base].find((c) => files.has(c));
}

const graph = new Map(
  [...files].map((f) => [
    f,
    [...readFileSync(join(ROOT, f), 'utf8').matchAll(IMPORT)]
      .map((m) => resolve(f, m[1] as string))
      .filter((d): d is string => d !== undefined && d !== f),
  ]),
);

describe('shipped code', () => {
  it('sees every layer', () => {
    expect([...files].some((f) => f.startsWith('src/agents/'))).toBe(true);
    expect([...files].some((f) => f.startsWith('src/workflows/'))).toBe(true);
    expect([...files].some((f) => f.startsWith('apps/cli/'))).toBe(true);
  });

  it('has no import cycle', () => {
    expect(modulesOnCycles(graph)).toEqual([]);
  });
});
