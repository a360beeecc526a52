/**
 * A throwaway `redis-server` for tests: its own free port, no persistence, a temporary folder; stopped
 * (and restarted, to test outages) by the test. Found as `DURABLE_AGENT_REDIS_SERVER`, else
 * `redis-server` on PATH (Debian/Ubuntu: `apt-get install redis-server`; macOS: `brew install redis`).
 * Under CI (`CI=true`, set by `.ci/run`, which installs it) a missing server fails the tests; elsewhere
 * they are skipped with a warning saying what to install.
 */
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import Redis from 'ioredis';
import { describeNeeding } from './component';
import { executable } from '../../apps/cli/dev-server/temporal-cli';
import { freePort, terminate, watchChild } from '../../apps/cli/dev-server/processes';

/** Environment variable naming an explicit redis-server binary. */
export const REDIS_SERVER_ENV = 'DURABLE_AGENT_REDIS_SERVER';

/** What to install when redis-server is missing. */
export const REDIS_INSTALL_HINT =
  'install redis-server (Debian/Ubuntu: apt-get install redis-server; macOS: brew install redis) or set DURABLE_AGENT_REDIS_SERVER to its path';

/** The redis-server binary, or undefined when there is none. */
export function findRedisServer(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const explicit = env[REDIS_SERVER_ENV];
  if (explicit) return executable(explicit) ? explicit : undefined;
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir && executable(join(dir, 'redis-server'))) return join(dir, 'redis-server');
  }
  return undefined;
}

/**
 * `describe(name, fn)` when redis-server is there. Otherwise, under CI, a suite whose one test fails
 * naming what is missing; locally, a skipped suite and a warning saying what to install.
 */
export function describeWithRedis(name: string, fn: () => void): void {
  describeNeeding(name, 'redis-server', findRedisServer() ? undefined : `redis-server not found: ${REDIS_INSTALL_HINT}`, fn);
}

/** A running throwaway redis-server. */
export interface RedisServer {
  /** `redis://127.0.0.1:<port>` */
  readonly url: string;
  readonly port: number;
  /** Stop the server (its data goes with it); it can be started again on the same port. */
  stop(): Promise<void>;
  /** Start it again after {@link stop}, on the same port (empty). */
  start(): Promise<void>;
  /** Stop it and remove its folder. */
  close(): Promise<void>;
}

/**
 * Start a redis-server on a free port of 127.0.0.1 and wait until it answers PING.
 *
 * @throws when redis-server is missing, exits at once, or does not answer within 10 s (with its output).
 */
export async function startRedisServer(): Promise<RedisServer> {
  const bin = findRedisServer();
  if (!bin) throw new Error(`redis-server not found: ${REDIS_INSTALL_HINT}`);
  const dir = mkdtempSync(join(tmpdir(), 'durable-agent-redis-'));
  const port = await freePort();
  let child: ChildProcess | undefined;
  const server: RedisServer = {
    url: `redis://127.0.0.1:${port}`,
    port,
    async start() {
      if (child) return;
      child = await launch(bin, port, dir);
    },
    async stop() {
      const c = child;
      child = undefined;
      if (c) await terminate(c);
    },
    async close() {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await server.start();
  return server;
}

async function launch(bin: string, port: number, dir: string): Promise<ChildProcess> {
  const child = spawn(
    bin,
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--daemonize', 'no'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const watched = watchChild(child);
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (watched.exited()) throw new Error(`redis-server on port ${port} ${watched.exited()}:\n${watched.output()}`);
    if (await answersPing(port)) return child;
    await new Promise((r) => setTimeout(r, 50));
  }
  await terminate(child);
  throw new Error(`redis-server on port ${port} did not answer PING within 10 s:\n${watched.output()}`);
}

async function answersPing(port: number): Promise<boolean> {
  const redis = new Redis({
    host: '127.0.0.1',
    port,
    lazyConnect: true,
    retryStrategy: () => null,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
  });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    return (await redis.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    redis.disconnect();
  }
}
