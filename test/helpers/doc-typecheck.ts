/**
 * Type-checks the TypeScript blocks of the docs as ES modules against the repository's sources, in one
 * program: `durable-agent` and each subpath of package.json `exports` map to the entry's source
 * (`./dist/src/entry/x.d.ts` → `src/entry/x.ts`), other packages resolve from node_modules. Each page is a
 * folder of its own: its `file=` blocks are files other blocks of the page import (`./agents.js`).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import type { DocBlock } from './doc-blocks';

/** A problem in a block, located in its Markdown file. */
export interface DocProblem {
  where: string;
  message: string;
}

/** `durable-agent[/x]` → its source, from package.json `exports`. */
export function entryPaths(root: string): Record<string, string[]> {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { name: string; exports: Record<string, unknown> };
  const paths: Record<string, string[]> = {};
  for (const [key, target] of Object.entries(pkg.exports)) {
    const types = typeof target === 'object' && target !== null ? (target as Record<string, unknown>).types : undefined;
    if (typeof types !== 'string') continue;
    const source = types.replace(/^\.\/dist\//, '').replace(/\.d\.ts$/, '.ts');
    if (!existsSync(join(root, source))) continue;
    paths[key === '.' ? pkg.name : `${pkg.name}/${key.replace(/^\.\//, '')}`] = [source];
  }
  return paths;
}

/** What ESM code cannot use; the blocks must work as written in an ESM project. */
const NOT_ESM = /\brequire\s*(\(|\.resolve)|__dirname|__filename|module\.exports/;

/** Type-check the (non-fragment) TypeScript blocks; returns the problems, located in the docs. */
export function typecheckBlocks(root: string, blocks: DocBlock[]): DocProblem[] {
  const problems: DocProblem[] = [];
  const files = new Map<string, { block: DocBlock; text: string }>();
  const vroot = join(root, '.docs-code'); // virtual: nothing is written there
  for (const block of blocks) {
    const dir = join(vroot, block.doc.replace(/\.md$/, '').replace(/[^\w/-]/g, '_'));
    const name = join(dir, block.file ?? `block-${block.line}.ts`);
    if (files.has(name)) problems.push({ where: `${block.doc}:${block.line}`, message: `file=${block.file} is defined twice on the page` });
    if (NOT_ESM.test(block.code)) problems.push({ where: `${block.doc}:${block.line}`, message: 'uses require/__dirname: not ESM' });
    // Top-level await needs a module; a block without import or export is made one.
    const isModule = /^\s*(import|export)\s/m.test(block.code);
    files.set(name, { block, text: isModule ? block.code : `${block.code}\nexport {};\n` });
  }

  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    lib: ['lib.es2022.d.ts'],
    types: ['node'],
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    baseUrl: root,
    paths: entryPaths(root),
    strict: true,
    noUncheckedIndexedAccess: true,
    esModuleInterop: true,
    skipLibCheck: true,
    resolveJsonModule: true,
    noEmit: true,
    allowImportingTsExtensions: false,
  };
  const host = ts.createCompilerHost(options, true);
  const { getSourceFile, fileExists, readFile, directoryExists } = host;
  host.fileExists = (f) => files.has(f) || fileExists.call(host, f);
  host.directoryExists = (d) => d === vroot || d.startsWith(`${vroot}/`) || (directoryExists?.call(host, d) ?? true);
  host.readFile = (f) => files.get(f)?.text ?? readFile.call(host, f);
  host.getSourceFile = (f, lang, onError, create) => {
    const own = files.get(f);
    return own ? ts.createSourceFile(f, own.text, lang, true) : getSourceFile.call(host, f, lang, onError, create);
  };
  const program = ts.createProgram([...files.keys()], options, host);
  for (const [name, { block }] of files) {
    const sf = program.getSourceFile(name);
    if (!sf) continue;
    for (const d of [...program.getSyntacticDiagnostics(sf), ...program.getSemanticDiagnostics(sf)]) {
      const line = d.start === undefined ? 0 : sf.getLineAndCharacterOfPosition(d.start).line;
      problems.push({ where: `${block.doc}:${block.line + line}`, message: ts.flattenDiagnosticMessageText(d.messageText, '\n') });
    }
  }
  return problems;
}
