/**
 * The Chromium the browser tests drive (Debian's `chromium`, through playwright-core's `executablePath`):
 * `DURABLE_AGENT_CHROMIUM`, else `/usr/bin/chromium`, else `chromium` on PATH; and why it is missing.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/** The Chromium to drive, or undefined when there is none. */
export function chromiumPath(): string | undefined {
  const named = process.env.DURABLE_AGENT_CHROMIUM;
  if (named) return named;
  if (existsSync('/usr/bin/chromium')) return '/usr/bin/chromium';
  try {
    return execFileSync('which', ['chromium'], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
}

/** Why `path` cannot be driven, or undefined when it can. */
export function chromiumMissing(path: string | undefined): string | undefined {
  if (!path) return 'Chromium is not installed: apt-get install chromium (or set DURABLE_AGENT_CHROMIUM to a Chromium binary)';
  if (!existsSync(path)) return `DURABLE_AGENT_CHROMIUM names ${path}, which does not exist`;
  return undefined;
}
