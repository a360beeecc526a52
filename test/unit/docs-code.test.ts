/**
 * The docs cannot drift from the code: every TypeScript block of README.md, CONTRIBUTING.md and docs/**
 * type-checks (strict, as an ES module) against the sources, except the few marked `fragment`; every shell
 * block names npm scripts that exist, `durable-agent` commands and flags the CLI has, and files that exist;
 * JSON blocks parse; relative links point at files of the repository.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../apps/cli/program';
import { allBlocks, docFiles, headingAnchors, relativeLinks } from '../helpers/doc-blocks';
import { shellUses } from '../helpers/doc-shell';
import { typecheckBlocks } from '../helpers/doc-typecheck';

const ROOT = join(__dirname, '..', '..');
const blocks = allBlocks(ROOT);
const TS = new Set(['ts', 'typescript']);
const SHELL = new Set(['sh', 'bash', 'shell']);
/** Blocks deliberately left uncompiled: keep them few. */
const MAX_FRAGMENTS = 3;
/** A path of the repository's own folders, in backticks or in a link: it must exist (layouts change). */
const REPO_PATH = /[`(]((?:src|apps|test|bench|examples|scripts|docs)\/[\w./-]*[\w/])[`)#]/g;
/** Links into what a build makes (the API reference, `npm run docs:api`). */
const GENERATED = /(^|\/)api\//;

function flagsOf(cmd: Command): string[] {
  return cmd.options
    .flatMap((o) => [o.long, o.short])
    .filter((f): f is string => typeof f === 'string')
    .concat('--help', '-h');
}

describe('docs code blocks', () => {
  it('finds the docs and their blocks', () => {
    expect(docFiles(ROOT)).toContain('docs/README.md');
    expect(blocks.filter((b) => TS.has(b.lang)).length).toBeGreaterThan(20);
    expect(blocks.filter((b) => SHELL.has(b.lang)).length).toBeGreaterThan(10);
  });

  it('keeps the README short: a newcomer reads it in ten minutes, the rest is in docs/', () => {
    expect(readFileSync(join(ROOT, 'README.md'), 'utf8').split('\n').length).toBeLessThanOrEqual(250);
  });

  it('has few fragments, each marked', () => {
    const fragments = blocks.filter((b) => b.fragment);
    expect(fragments.map((b) => `${b.doc}:${b.line}`).length).toBeLessThanOrEqual(MAX_FRAGMENTS);
    // A TypeScript block is compiled or marked; other languages are never fragments.
    expect(fragments.filter((b) => !TS.has(b.lang)).map((b) => `${b.doc}:${b.line}`)).toEqual([]);
  });

  it('type-checks every TypeScript block (strict, ESM) against the sources', () => {
    const problems = typecheckBlocks(
      ROOT,
      blocks.filter((b) => TS.has(b.lang) && !b.fragment),
    );
    expect(problems.map((p) => `${p.where}: ${p.message}`)).toEqual([]);
  }, 180_000);

  it('runs only npm scripts, durable-agent commands and flags, and files that exist', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    const program = buildProgram({ exitCode: 0, signal: new AbortController().signal });
    const problems: string[] = [];
    let cliUses = 0;
    for (const block of blocks.filter((b) => SHELL.has(b.lang))) {
      for (const use of shellUses(block.code)) {
        const where = `${block.doc}:${block.line + use.line}`;
        if (use.kind === 'npm-script') {
          if (!(use.script in pkg.scripts)) problems.push(`${where}: no npm script "${use.script}"`);
        } else if (use.kind === 'file') {
          if (!existsSync(join(ROOT, use.path))) problems.push(`${where}: no file ${use.path}`);
        } else {
          cliUses++;
          // Each alternative of each command word; the flags must exist on the command or its parents.
          let levels: Command[] = [program];
          for (const names of use.commands) {
            const next: Command[] = [];
            for (const name of names) {
              const found = levels.flatMap((c) => c.commands).find((c) => c.name() === name || c.aliases().includes(name));
              if (found) next.push(found);
              else problems.push(`${where}: no command "durable-agent … ${name}"`);
            }
            if (next.length === 0) break;
            levels = next;
          }
          for (const cmd of levels) {
            const known = new Set<string>();
            for (let c: Command | null = cmd; c; c = c.parent) flagsOf(c).forEach((f) => known.add(f));
            for (const flag of use.flags) if (!known.has(flag)) problems.push(`${where}: "durable-agent ${cmd.name()}" has no ${flag}`);
          }
        }
      }
    }
    expect(cliUses).toBeGreaterThan(10);
    expect(problems).toEqual([]);
  });

  it('names only repository paths that exist', () => {
    const named = docFiles(ROOT).flatMap((doc) =>
      readFileSync(join(ROOT, doc), 'utf8')
        .split('\n')
        .flatMap((line, i) =>
          [...line.matchAll(REPO_PATH)].map((m) => ({ doc, path: (m[1] as string).replace(/[.,:]$/, ''), line: i + 1 })),
        ),
    );
    expect(named.length).toBeGreaterThan(50);
    expect(named.filter(({ path }) => !existsSync(join(ROOT, path))).map(({ doc, path, line }) => `${doc}:${line}: ${path}`)).toEqual([]);
  });

  it('parses every JSON block', () => {
    const bad = blocks
      .filter((b) => b.lang === 'json')
      .filter((b) => {
        try {
          JSON.parse(b.code);
          return false;
        } catch {
          return true;
        }
      });
    expect(bad.map((b) => `${b.doc}:${b.line}`)).toEqual([]);
  });

  it('links only to files and headings that exist', () => {
    const broken = docFiles(ROOT).flatMap((doc) =>
      relativeLinks(readFileSync(join(ROOT, doc), 'utf8'))
        .filter((l) => !GENERATED.test(l.target))
        .filter((l) => {
          const path = l.target === '' ? join(ROOT, doc) : join(ROOT, dirname(doc), l.target);
          if (!existsSync(path)) return true;
          return l.anchor !== undefined && path.endsWith('.md') && !headingAnchors(readFileSync(path, 'utf8')).has(l.anchor);
        })
        .map((l) => `${doc}:${l.line}: ${l.target}${l.anchor ? `#${l.anchor}` : ''}`),
    );
    expect(broken).toEqual([]);
  });
});
