/**
 * core/ is the pure ground the rest stands on: its modules import each other without a cycle (type
 * imports count) and import nothing outside core/ (no Node module, no SDK).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { modulesOnCycles } from '../helpers/cycles';

const CORE = join(__dirname, '..', '..', 'src', 'core');
const IMPORT = /(?:import|export)[^'"]*?from\s+['"]([^'"]+)['"]/g;

function imports(file: string): string[] {
  return [...readFileSync(join(CORE, file), 'utf8').matchAll(IMPORT)].map((m) => m[1] as string);
}

const files = readdirSync(CORE).filter((f) => f.endsWith('.ts'));
const graph = new Map(
  files.map((f) => [
    f,
    imports(f)
      .filter((i) => i.startsWith('./'))
      .map((i) => `${i.slice(2).replace(/\.ts$/, '')}.ts`),
  ]),
);

describe('core/', () => {
  it('has no import cycle', () => {
    expect(modulesOnCycles(graph)).toEqual([]);
  });

  it('the cycle check finds a cycle when there is one', () => {
    expect(
      modulesOnCycles(
        new Map([
          ['a.ts', ['b.ts']],
          ['b.ts', ['c.ts']],
          ['c.ts', ['a.ts']],
          ['d.ts', ['a.ts']],
        ]),
      ),
    ).toEqual(['a.ts', 'b.ts', 'c.ts']);
  });

  it('imports only its own modules', () => {
    const outside = files.flatMap((f) =>
      imports(f)
        .filter((i) => !i.startsWith('./'))
        .map((i) => `${f} -> ${i}`),
    );
    expect(outside).toEqual([]);
  });
});
