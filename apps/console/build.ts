/**
 * Builds the web console (`console/src`, Preact) into static files with esbuild: `index.html`, `app.js`
 * and `app.css`, minified, no source maps. The built files are committed (`console/dist`), so users of the
 * package serve them without a build step; `npm run build:console` rebuilds them, and a unit test checks
 * the committed files are current.
 *
 * @example
 * ```sh
 * npm run build:console            # writes console/dist
 * npx tsx console/build.ts out/    # writes another folder
 * ```
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';

/** The console's own folder. */
export const CONSOLE_DIR = __dirname;
/** Where `npm run build:console` writes the console. */
export const CONSOLE_DIST = join(CONSOLE_DIR, 'dist');
/** The files a build writes. */
export const CONSOLE_FILES = ['index.html', 'app.js', 'app.css'] as const;

/**
 * Build the console into `outDir` (created when missing).
 * @throws the esbuild error when the sources do not compile.
 */
export async function buildConsole(outDir: string = CONSOLE_DIST): Promise<void> {
  mkdirSync(outDir, { recursive: true });
  await build({
    entryPoints: { app: join(CONSOLE_DIR, 'src', 'main.tsx') },
    outdir: outDir,
    bundle: true,
    minify: true,
    format: 'iife',
    target: ['es2022', 'chrome111', 'firefox115', 'safari16'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    legalComments: 'none',
    charset: 'utf8',
    logLevel: 'silent',
    absWorkingDir: resolve(CONSOLE_DIR, '..'),
  });
  writeFileSync(join(outDir, 'index.html'), readFileSync(join(CONSOLE_DIR, 'src', 'index.html')));
}

if (require.main === module) {
  const outDir = process.argv[2] ? resolve(process.argv[2]) : CONSOLE_DIST;
  buildConsole(outDir).then(
    () => console.log(`console built into ${outDir}`),
    (err: unknown) => {
      console.error(err instanceof Error ? err.message : err);
      process.exit(1);
    },
  );
}
