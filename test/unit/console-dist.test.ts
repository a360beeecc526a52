/**
 * The committed web console (console/dist) is what its sources build to: users get it without a build
 * step, so a stale dist would ship old code.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildConsole, CONSOLE_DIST, CONSOLE_FILES } from '../../apps/console/build';

describe('console/dist', () => {
  const out = mkdtempSync(join(tmpdir(), 'durable-agent-console-'));
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it('is byte-identical to a fresh build of console/src', async () => {
    await buildConsole(out);
    for (const file of CONSOLE_FILES) {
      const fresh = readFileSync(join(out, file));
      let committed: Buffer;
      try {
        committed = readFileSync(join(CONSOLE_DIST, file));
      } catch {
        throw new Error(`console/dist/${file} is missing: run npm run build:console and commit console/dist`);
      }
      if (!fresh.equals(committed))
        throw new Error(`console/dist/${file} is stale (its sources changed): run npm run build:console and commit console/dist`);
      expect(fresh.length).toBeGreaterThan(0);
    }
  });
});
