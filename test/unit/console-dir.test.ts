/** The HTTP API finds the console's built files from its source folder and from the compiled dist/ alike. */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultConsoleDir } from '../../apps/http/console-static';

const ROOT = join(__dirname, '..', '..');
const CONSOLE = join(ROOT, 'apps', 'console', 'dist');

describe('defaultConsoleDir', () => {
  it('finds apps/console/dist from the source folder', () => {
    expect(defaultConsoleDir()).toBe(CONSOLE);
    expect(existsSync(join(defaultConsoleDir(), 'index.html'))).toBe(true);
  });

  it('finds apps/console/dist from the compiled folder', () => {
    expect(defaultConsoleDir(join(ROOT, 'dist', 'apps', 'http'))).toBe(CONSOLE);
  });
});
