/** A throwaway redis-server for the benches (test/helpers/redis.ts is the tests' own; it needs vitest). */
import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { freePort } from '../apps/cli/dev-server/processes';

/** The redis-server binary: `DURABLE_AGENT_REDIS_SERVER`, else `redis-server` on PATH; undefined if none. */
export function findRedisServer(): string | undefined {
  const candidates = [
    process.env.DURABLE_AGENT_REDIS_SERVER,
    ...(process.env.PATH ?? '')
      .split(delimiter)
      .filter(Boolean)
      .map((d) => join(d, 'redis-server')),
  ];
  return candidates.find((c): c is string => {
    if (!c) return false;
    try {
      accessSync(c, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/** Start a throwaway redis-server (no persistence) on a free port; resolves once it accepts connections. */
export async function startRedis(bin: string, dir: string): Promise<{ url: string; stop: () => Promise<void> }> {
  const port = await freePort();
  const child = spawn(bin, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`redis-server did not start within 10 s: ${output}`)), 10_000);
    child.stdout!.on('data', (d: Buffer) => {
      output += d.toString();
      if (output.includes('Ready to accept connections')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited (${code}): ${output}`));
    });
  });
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  return { url: `redis://127.0.0.1:${port}`, stop };
}
