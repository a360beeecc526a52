/**
 * The tool call's folder is a hub and spokes: `run-step.ts` drives, the spokes never import it (nor the
 * folder's `index.ts`), and a spoke imports another only for its types. Fails naming the import.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const DIR = join(__dirname, '..', '..', 'src', 'workflows', 'tool-call');
const DRIVER = 'run-step';
const IMPORT = /^(import|export)( type)? [^'"]*?from\s+['"]\.\/([^'"]+)['"]/gm;

/** Imports of a sibling module in the folder: `[from, to, typeOnly]`. */
function siblingImports(): Array<[string, string, boolean]> {
  return readdirSync(DIR)
    .filter((f) => f.endsWith('.ts'))
    .flatMap((f) =>
      [...readFileSync(join(DIR, f), 'utf8').matchAll(IMPORT)].map((m): [string, string, boolean] => [
        f.replace(/\.ts$/, ''),
        m[3]!,
        m[2] === ' type',
      ]),
    );
}

describe('src/workflows/tool-call', () => {
  it('has its driver and spokes', () => {
    const modules = readdirSync(DIR).map((f) => f.replace(/\.ts$/, ''));
    expect(modules).toEqual(
      expect.arrayContaining([DRIVER, 'index', 'context', 'gate', 'approval-desk', 'execute', 'wait-tool', 'sub-agent', 'child-approvals']),
    );
  });

  it('no spoke imports the driver or the index', () => {
    const bad = siblingImports().filter(([from, to]) => from !== 'index' && (to === DRIVER || to === 'index'));
    expect(bad.map(([from, to]) => `${from} → ${to}`)).toEqual([]);
  });

  it('spokes import one another only as types', () => {
    const bad = siblingImports().filter(([from, , typeOnly]) => from !== DRIVER && from !== 'index' && !typeOnly);
    expect(bad.map(([from, to]) => `${from} → ${to}`)).toEqual([]);
  });
});
