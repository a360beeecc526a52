/** Which build bin/durable-agent.js runs: dist/ when it is present and not older than the sources. */
import { mkdirSync, mkdtempSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';

// eslint-disable-next-line @typescript-eslint/no-require-imports -- the launcher is plain CommonJS
const { chooseEntry, SOURCES } = require('../../apps/cli/bin/entry.js') as {
  chooseEntry(root: string, env?: Record<string, string>): { kind: 'dist' | 'source'; path: string };
  SOURCES: string[];
};

/** A package folder with the given files, each with a modification time in seconds. */
function layout(files: Record<string, number>): string {
  const root = mkdtempSync(join(tmpdir(), 'durable-agent-entry-'));
  for (const [file, mtime] of Object.entries(files)) {
    const path = join(root, file);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, '');
    utimesSync(path, mtime, mtime);
  }
  return root;
}

const kind = (root: string, env: Record<string, string> = {}) => chooseEntry(root, env).kind;

describe('chooseEntry', () => {
  it('watches every folder the build compiles (tsconfig.build.json), so a change in any of them makes dist/ stale', () => {
    const build = JSON.parse(readFileSync(join(__dirname, '..', '..', 'tsconfig.build.json'), 'utf8')) as { include: string[] };
    expect([...SOURCES].sort()).toEqual([...build.include].sort());
  });
  it('runs dist/ when it is newer than every source', () => {
    expect(kind(layout({ 'apps/cli/main.ts': 100, 'src/core/loop.ts': 200, 'dist/apps/cli/main.js': 300 }))).toBe('dist');
  });
  it('runs the sources when any source is newer than dist/', () => {
    expect(kind(layout({ 'apps/cli/main.ts': 100, 'src/core/nested/deep.ts': 400, 'dist/apps/cli/main.js': 300 }))).toBe('source');
  });
  it('runs the sources without dist/, and dist/ without sources (an installed package)', () => {
    expect(kind(layout({ 'apps/cli/main.ts': 100 }))).toBe('source');
    expect(kind(layout({ 'dist/apps/cli/main.js': 100 }))).toBe('dist');
  });
  it('DURABLE_AGENT_FROM_SOURCE=1 forces the sources, =0 forces dist/', () => {
    expect(kind(layout({ 'apps/cli/main.ts': 100, 'dist/apps/cli/main.js': 300 }), { DURABLE_AGENT_FROM_SOURCE: '1' })).toBe('source');
    expect(kind(layout({ 'apps/cli/main.ts': 400, 'dist/apps/cli/main.js': 300 }), { DURABLE_AGENT_FROM_SOURCE: '0' })).toBe('dist');
  });
  it('ignores files that are not TypeScript sources of the build (tests, docs)', () => {
    expect(kind(layout({ 'apps/cli/main.ts': 100, 'apps/cli/README.md': 900, 'test/x.ts': 900, 'dist/apps/cli/main.js': 300 }))).toBe(
      'dist',
    );
  });
});
