/**
 * The API reference (`npm run docs:api`, TypeDoc over the package's entry points) builds from the TSDoc
 * without a warning: every export documented, every type the reference names shown, every link resolved.
 * Its entry points are read from package.json `exports`, so a new subpath is documented and checked too.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const root = resolve(__dirname, '..', '..');
const CONFIG = join('scripts', 'api-docs', 'typedoc.config.mjs');
const typedoc = join(root, 'node_modules', 'typedoc', 'bin', 'typedoc');

/** Runs TypeDoc with the reference's options (and `args`); its output, colours off. */
async function runTypedoc(args: string[]): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [typedoc, '--options', CONFIG, ...args], {
      cwd: root,
      env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
      maxBuffer: 16 * 1024 * 1024,
    });
    return { code: 0, output: stdout + stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : 1, output: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}

describe('API reference', () => {
  it('documents every subpath export that has types, from its source in src/entry', async () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { exports: Record<string, unknown> };
    // A subpath's `types`, or the first of its conditions' (`{ import: { types, default }, require: … }`).
    const typesOf = (target: unknown): string | undefined => {
      if (typeof target !== 'object' || target === null) return undefined;
      const own = (target as { types?: unknown }).types;
      return typeof own === 'string'
        ? own
        : Object.values(target)
            .map(typesOf)
            .find((t) => t !== undefined);
    };
    const sources = Object.values(pkg.exports).flatMap((target) => {
      const types = typesOf(target);
      return types ? [join(root, types.replace(/^\.\/dist\//, '').replace(/\.d\.ts$/, '.ts'))] : [];
    });
    expect(sources.length).toBeGreaterThanOrEqual(5);
    for (const file of sources) expect(existsSync(file), file).toBe(true);

    const { code, output } = await runTypedoc(['--showConfig']);
    expect(code, output).toBe(0);
    // `--showConfig` prints the options as `util.inspect` does: `entryPoints: [ 'a', 'b' ],`.
    const listed = /entryPoints: \[([^\]]*)\]/.exec(output)?.[1];
    expect(listed, output).toBeDefined();
    const entryPoints = [...(listed ?? '').matchAll(/'([^']+)'/g)].map((m) => resolve(root, m[1]!));
    expect(entryPoints).toEqual(sources);
  }, 60_000);

  it('builds with no warning', async () => {
    const { code, output } = await runTypedoc(['--emit', 'none']);
    expect(
      output.split('\n').filter((line) => /warning|error/i.test(line)),
      output,
    ).toEqual([]);
    expect(code, output).toBe(0);
  }, 120_000);
});
