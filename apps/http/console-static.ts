/**
 * The web console's files (built into the package's `apps/console/dist/` by `npm run build:console`), served
 * without a token: they hold no data, and every data route still needs one. `GET /` redirects to
 * `/console/`; a path outside the folder is refused; every answer says `Cache-Control: no-cache`.
 */
import { readFile, realpath, stat } from 'node:fs/promises';
import { extname, join, resolve, sep } from 'node:path';
import type { Hono } from 'hono';

/**
 * The console's built files in this package: found from source (tsx, `apps/http/`) and from the compiled
 * `dist/apps/http/` alike. `from` is this module's folder.
 */
export function defaultConsoleDir(from = __dirname): string {
  const http = resolve(from);
  const compiled = resolve(http, '..', '..').split(sep).pop() === 'dist';
  return join(resolve(http, ...(compiled ? ['..', '..', '..'] : ['..', '..'])), 'apps', 'console', 'dist');
}

/** What the console answers while its files are not built. */
export const CONSOLE_NOT_BUILT =
  'The web console assets are not built: run `npm run build:console` (they are served from apps/console/dist/).';

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

/** The file under `root` that `relative` names, or undefined when it is outside `root` or not a file. */
async function fileUnder(root: string, relative: string): Promise<string | undefined> {
  if (relative.includes('\0')) return undefined;
  const candidate = resolve(root, `.${sep}${relative}`);
  if (candidate !== root && !candidate.startsWith(root + sep)) return undefined;
  try {
    const real = await realpath(candidate); // a link may not lead out of the folder either
    if (real !== root && !real.startsWith(root + sep)) return undefined;
    return (await stat(real)).isFile() ? real : undefined;
  } catch {
    return undefined;
  }
}

/** Add the console's routes to `app` (before any auth middleware, which they must not pass through). */
export function addConsoleRoutes<E extends object>(app: Hono<E>, consoleDir: string): void {
  const headers = { 'Cache-Control': 'no-cache', 'X-Content-Type-Options': 'nosniff' };
  let rootReal: Promise<string | undefined> | undefined;
  const root = () => (rootReal ??= realpath(resolve(consoleDir)).catch(() => undefined));

  app.get('/', (c) => c.redirect('/console/', 302));
  app.get('/console', (c) => c.redirect('/console/', 302));
  app.get('/console/*', async (c) => {
    const dir = await root();
    const index = dir ? await fileUnder(dir, 'index.html') : undefined;
    if (!dir || !index) {
      rootReal = undefined; // look again next time: the build may come later
      return c.text(CONSOLE_NOT_BUILT, 404, headers);
    }
    let relative: string;
    try {
      relative = decodeURIComponent(c.req.path.slice('/console/'.length));
    } catch {
      return c.text('bad path', 400, headers);
    }
    const file = relative === '' ? index : await fileUnder(dir, relative);
    if (!file) return c.text(`no console file "${relative}"`, 404, headers);
    const body = await readFile(file);
    return c.body(body, 200, { ...headers, 'Content-Type': CONTENT_TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream' });
  });
}
