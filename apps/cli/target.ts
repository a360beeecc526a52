/** Which Temporal server the CLI talks to, and where it would start its own. */
import { DEFAULT_TASK_QUEUE } from '../../src/entry/client';
import type * as RedisModule from '../../src/entry/redis';
import { CliError } from './errors';

/** Port of the default address, and of the embedded dev server unless overridden. */
export const DEFAULT_PORT = 7233;
/** Port of the Temporal UI the embedded server serves under `dev`. */
export const DEFAULT_UI_PORT = 8233;

/** Connection options every command takes (commander fills them from flags and environment). */
export interface ConnectionFlags {
  /** `--address` or `TEMPORAL_ADDRESS`. */
  address?: string;
  /** `--port` or `DURABLE_AGENT_DEV_PORT`: the embedded server's port. */
  port?: number;
  /** `--task-queue` or `DURABLE_AGENT_TASK_QUEUE`. */
  taskQueue?: string;
  /** `--namespace` or `TEMPORAL_NAMESPACE` (default `default`). */
  namespace?: string;
  /**
   * `--redis-url` or `DURABLE_AGENT_REDIS_URL` (commands that host a worker or follow runs): live deltas go
   * through Redis Streams, published by the worker, read by `run`, `tail` and `serve`.
   */
  redisUrl?: string;
}

/** The environment variable of `--redis-url`. */
export const REDIS_URL_ENV = 'DURABLE_AGENT_REDIS_URL';

/** How a banner names the task queues: `--task-queue`'s, or each agent's own. */
export function taskQueueLabel(taskQueues: readonly string[] | string | undefined): string {
  if (taskQueues === undefined) return `each agent's own (${DEFAULT_TASK_QUEUE}.<agent>)`;
  const list = typeof taskQueues === 'string' ? [taskQueues] : taskQueues;
  return `${list.length === 1 ? 'task queue' : 'task queues'} ${list.map((q) => `"${q}"`).join(', ')}`;
}

/** A resolved connection target. */
export interface Target {
  /** host:port to connect to. */
  address: string;
  /** True when the user named the address (`--address` or `TEMPORAL_ADDRESS`). */
  explicit: boolean;
  /** Port an embedded dev server would bind. */
  serverPort: number;
  /** Host an embedded dev server would bind, when the address is local. */
  serverIp: string | undefined;
  /** `--task-queue`; undefined: each agent's own queue, `durable-agent.<agent>` (`agentTaskQueue`). */
  taskQueue?: string;
  /** Redis for live deltas (checked), when configured. */
  redisUrl?: string;
  /** `--namespace`; undefined: `default` (an embedded dev server creates it when named). */
  namespace?: string;
}

const LOCAL_HOSTS: Record<string, string> = {
  localhost: '127.0.0.1',
  '127.0.0.1': '127.0.0.1',
  '0.0.0.0': '0.0.0.0',
  '[::1]': '::1',
  '::1': '::1',
};

/** Split `host:port`, checking the port. */
export function parseAddress(address: string): { host: string; port: number } {
  const idx = address.lastIndexOf(':');
  const host = idx > 0 ? address.slice(0, idx) : '';
  const port = Number(idx > 0 ? address.slice(idx + 1) : NaN);
  if (!host || !Number.isInteger(port) || port < 1 || port > 65535) throw new CliError(`invalid address "${address}": expected host:port`);
  return { host, port };
}

/**
 * The Redis URL of `--redis-url` / `DURABLE_AGENT_REDIS_URL`, checked; undefined when not set (or empty).
 * @throws {CliError} naming the option and the expected form (the password never shown).
 */
export function redisUrlOf(flags: Pick<ConnectionFlags, 'redisUrl'>): string | undefined {
  const url = flags.redisUrl?.trim();
  if (!url) return undefined; // not set, or set empty
  try {
    return redis().checkRedisUrl(url, `--redis-url (or ${REDIS_URL_ENV})`);
  } catch (err) {
    throw new CliError((err as Error).message);
  }
}

/** The Redis entry, loaded only when a Redis URL is given (it loads ioredis). */
function redis(): typeof RedisModule {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- ioredis loads only with --redis-url
  return require('../../src/entry/redis') as typeof RedisModule;
}

/** The banner line about live deltas over Redis (`--redis-url`), if configured; the password hidden. */
export function redisLine(target: Target, how: 'published to' | 'read from'): string[] {
  return target.redisUrl ? [`  Live deltas:       ${how} Redis at ${redis().redactRedisUrl(target.redisUrl)} (Redis Streams)`] : [];
}

/** Resolve flags into a target. Without an explicit address: `localhost:<dev port>`. */
export function resolveTarget(flags: ConnectionFlags): Target {
  const taskQueue = flags.taskQueue ? { taskQueue: flags.taskQueue } : {};
  const redisUrl = redisUrlOf(flags);
  const redis = { ...(redisUrl ? { redisUrl } : {}), ...(flags.namespace ? { namespace: flags.namespace } : {}) };
  if (flags.address) {
    const { host, port } = parseAddress(flags.address);
    return { address: flags.address, explicit: true, serverPort: flags.port ?? port, serverIp: LOCAL_HOSTS[host], ...taskQueue, ...redis };
  }
  const port = flags.port ?? DEFAULT_PORT;
  return { address: `localhost:${port}`, explicit: false, serverPort: port, serverIp: '127.0.0.1', ...taskQueue, ...redis };
}
