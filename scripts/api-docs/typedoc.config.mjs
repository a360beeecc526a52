// The API reference: TypeDoc over the package's entry points, read from package.json `exports` (each
// subpath's `types`, `./dist/src/entry/<name>.d.ts`, is compiled from `src/entry/<name>.ts`).
// `npm run docs:api` writes docs/api/ (not committed); `npm run lint:api` writes nothing and fails on
// any warning: an undocumented export, a type the reference names but does not show, a broken link.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..', '..');

/** The `types` of an export target: its own, else the first of its conditions' (`import`, `require`, …). */
export function typesOf(target) {
  if (typeof target !== 'object' || target === null) return undefined;
  if (typeof target.types === 'string') return target.types;
  for (const condition of Object.values(target)) {
    const types = typesOf(condition);
    if (types) return types;
  }
  return undefined;
}

/** The source file of every subpath export that has types, in `exports` order. */
export function entryPoints(exports) {
  const files = [];
  for (const [subpath, target] of Object.entries(exports)) {
    const types = typesOf(target);
    if (types === undefined) continue;
    const match = /^\.\/dist\/(.+)\.d\.ts$/.exec(types);
    if (!match) throw new Error(`package.json exports["${subpath}"].types is not under ./dist/: ${types}`);
    files.push(join(root, `${match[1]}.ts`));
  }
  return files;
}

const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

/** @type {Partial<import('typedoc').TypeDocOptions>} */
export default {
  name: pkg.name,
  entryPoints: entryPoints(pkg.exports),
  tsconfig: join(import.meta.dirname, 'tsconfig.json'),
  out: join(root, 'docs', 'api'),
  readme: 'none',
  // `tsc --noEmit -p .` checks the types; the reference only reads them.
  skipErrorChecking: true,
  disableSources: true,
  excludePrivate: true,
  excludeInternal: true,
  validation: { notExported: true, invalidLink: true, rewrittenLink: true, notDocumented: true, unusedMergeModuleWith: true },
  // What a reader must find explained; a property or parameter may be clear from its name and type.
  requiredToBeDocumented: ['Enum', 'Variable', 'Function', 'Class', 'Interface', 'TypeAlias', 'Namespace'],
  treatWarningsAsErrors: true,
};
