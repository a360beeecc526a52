/**
 * Live deltas over Redis Streams: low latency and many watchers, with deltas never in Temporal history.
 * Workers append each delta to one stream per run (`XADD`, trimmed to about `maxLen` entries, expiring
 * `ttlSeconds` after its last delta); each client follows a run with `XREAD BLOCK` on a connection of its
 * own and resumes from the last stream id it saw when the connection comes back. Durable events still
 * come from the workflow: Redis is only for what is live.
 */
import type Redis from 'ioredis';
import type * as IoRedis from 'ioredis';
import type { RedisOptions } from 'ioredis';
import { loadPeer, PEERS } from '../optional-peer';
import type { LiveDelta } from '../../core/events/stream';
import { sleep } from '../../client/abortable';
import type { RedisDeltaEntry } from './redis-codec';
import {
  DEFAULT_KEY_PREFIX,
  checkRedisUrl,
  encodeDelta,
  entriesOf,
  isStreamId,
  lastIdOf,
  entriesOfRange,
  lastReadIdOf,
  newestProgress,
  redact,
  streamKey,
} from './redis-codec';
import type { DeltaFeed, DeltaPublisher, FollowOptions } from './transport';

export type { RedisDeltaEntry } from './redis-codec';
export { DEFAULT_KEY_PREFIX, streamKey } from './redis-codec';

/** ioredis, loaded by the first publisher, feed or check made: importing this module needs no ioredis. */
function ioredis(): typeof IoRedis {
  return loadPeer<typeof IoRedis>(PEERS.redis);
}

/** A connection to Redis at `url`. */
function newRedis(url: string, options: RedisOptions): Redis {
  return new (ioredis().Redis)(url, options);
}

/** Options of a {@link RedisDeltaPublisher}. */
export interface RedisPublisherOptions {
  /** `redis://[user:password@]host:port[/db]` (or `rediss://` for TLS). */
  url: string;
  /** Prefix of the streams' keys (one stream per run: prefix + workflow id). Default `durable-agent:deltas:`. */
  keyPrefix?: string;
  /** Entries a run's stream keeps, about (`XADD … MAXLEN ~`): a reader further behind sees a gap. Default 10,000. */
  maxLen?: number;
  /** Seconds a run's stream lives after its last delta (`EXPIRE`, renewed on every write). Default 3,600. */
  ttlSeconds?: number;
  /** Deltas held while Redis is unreachable; past it the oldest are dropped. Default 10,000. */
  maxBuffered?: number;
  /** How long {@link RedisDeltaPublisher.close} waits to send what is buffered. Default 2,000 ms. */
  closeTimeoutMs?: number;
  /** Where problems are reported (at most one line per kind of problem every 10 s). Default `console.warn`. */
  log?: (message: string) => void;
  /** More ioredis options (TLS, timeouts…); `url` wins over host and port given here. */
  redis?: RedisOptions;
}

/** Options of a {@link RedisDeltaFeed}. */
export interface RedisFeedOptions {
  /** `redis://[user:password@]host:port[/db]` (or `rediss://` for TLS). */
  url: string;
  /** Prefix of the streams' keys: the publisher's. Default `durable-agent:deltas:`. */
  keyPrefix?: string;
  /** Longest wait of one `XREAD BLOCK` (it is issued again at once). Default 5,000 ms. */
  blockMs?: number;
  /** Entries read at most per `XREAD`. Default 1,000. */
  count?: number;
  /** More ioredis options (TLS, timeouts…); `url` wins over host and port given here. */
  redis?: RedisOptions;
}

/** Options of one {@link RedisDeltaFeed.entries} subscription. */
export interface RedisFollowOptions extends FollowOptions {
  /**
   * Read the entries after this stream id (one a previous subscription yielded), so a reader that comes
   * back gets what it missed, as long as the stream still holds it; `0-0` reads all the stream holds.
   * Default: only what is added from now on.
   */
  after?: string;
}

/** How long to wait before reading again after a failed read (the connection also reconnects by itself). */
const READ_RETRY_MS = 200;
/** Deltas sent per pipeline. */
const BATCH = 1000;
/** Interval between two reports of the same kind of problem. */
const LOG_EVERY_MS = 10_000;

/**
 * Why Redis at `url` does not answer a PING within `timeoutMs`, or undefined when it does. Live deltas
 * are best-effort, so callers report an unreachable Redis as a warning: runs and their durable events
 * do not depend on it.
 */
export async function redisUnreachable(url: string, timeoutMs = 2000): Promise<string | undefined> {
  const redis = newRedis(url, {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
    connectionName: 'durable-agent:check',
  });
  redis.on('error', () => undefined); // the failed connect below says why
  try {
    await redis.connect();
    await redis.ping();
    return undefined;
  } catch (err) {
    return err instanceof Error && err.message ? err.message : String(err);
  } finally {
    redis.disconnect();
  }
}

/**
 * Publishes every delta of the worker's streaming model calls (and its running tools' progress updates)
 * to Redis Streams. `publish` only buffers (it never throws and never waits); buffered deltas go out in
 * pipelines on one connection, in the order they came, so each attempt's deltas are in the stream in the
 * order of their numbers. While Redis is
 * unreachable deltas wait in a bounded buffer, then the oldest are dropped: model calls never fail or
 * slow down because of Redis, and readers see the gap by the numbers (and get each step whole from the
 * durable events). The connection opens on the first delta.
 *
 * Call {@link close} after the worker has stopped: it sends what is buffered and quits the connection.
 *
 * @throws {TypeError} from the constructor when `url` or a bound is not valid, naming the option.
 * @example
 * ```ts
 * const publisher = new RedisDeltaPublisher({ url: 'redis://localhost:6379' });
 * const worker = await createWorker({ agents, streaming: { publisher } });
 * await worker.run();
 * await publisher.close();
 * ```
 */
export class RedisDeltaPublisher implements DeltaPublisher {
  private readonly url: string;
  private readonly prefix: string;
  private readonly maxLen: number;
  private readonly ttlSeconds: number;
  private readonly maxBuffered: number;
  private readonly closeTimeoutMs: number;
  private readonly log: Throttled;
  private redis: Redis | undefined;
  private buffer: LiveDelta[] = [];
  private scheduled = false;
  private waitingForReady = false;
  private inflight: Promise<void> | undefined;
  private closing: Promise<void> | undefined;
  private dropped = 0;

  constructor(private readonly options: RedisPublisherOptions) {
    this.url = checkRedisUrl(options?.url, 'RedisDeltaPublisher: url');
    this.prefix = options.keyPrefix ?? DEFAULT_KEY_PREFIX;
    this.maxLen = positive(options.maxLen, 10_000, 'RedisDeltaPublisher: maxLen');
    this.ttlSeconds = positive(options.ttlSeconds, 3600, 'RedisDeltaPublisher: ttlSeconds');
    this.maxBuffered = positive(options.maxBuffered, 10_000, 'RedisDeltaPublisher: maxBuffered');
    this.closeTimeoutMs = positive(options.closeTimeoutMs, 2000, 'RedisDeltaPublisher: closeTimeoutMs');
    this.log = new Throttled(options.log ?? ((m) => console.warn(m)));
    ioredis(); // a missing ioredis fails here, not in the first publish (which never throws)
  }

  /** Queue a delta for Redis. Never throws, never waits; after {@link close}, deltas are dropped. */
  publish(delta: LiveDelta): void {
    if (this.closing) return;
    try {
      this.buffer.push(delta);
      if (this.buffer.length > this.maxBuffered) {
        const over = this.buffer.length - this.maxBuffered;
        this.buffer.splice(0, over);
        this.drop(over, 'Redis is not keeping up or unreachable');
      }
      this.schedule();
    } catch (err) {
      this.log.report('publish', `Redis delta publisher: ${message(err)}`);
    }
  }

  /** Send what is buffered (waiting at most `closeTimeoutMs`), then quit the connection. Safe to call twice. */
  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    // Deltas published just before close may not have opened the connection yet.
    const redis = this.buffer.length ? this.connection() : this.redis;
    if (!redis) return;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, this.closeTimeoutMs)));
    await Promise.race([this.drain(redis), timeout]);
    clearTimeout(timer);
    if (this.buffer.length) this.drop(this.buffer.length, 'closed before Redis took them');
    this.buffer = [];
    if (redis.status === 'ready') await redis.quit().catch(() => redis.disconnect());
    else redis.disconnect();
  }

  /** Send everything buffered while the connection is up. */
  private async drain(redis: Redis): Promise<void> {
    while (this.inflight || this.buffer.length) {
      if (this.inflight) await this.inflight;
      else if (redis.status === 'ready') await this.flush();
      else if (redis.status === 'end') return;
      else await readyOrAfter(redis, 100);
    }
  }

  private connection(): Redis {
    if (this.redis) return this.redis;
    const redis = newRedis(this.url, {
      ...this.options.redis,
      lazyConnect: true,
      // Never queue commands while disconnected (the buffer here is bounded; ioredis's is not), and give
      // up on a pipeline caught by a disconnection after a few reconnection attempts.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 5,
      connectionName: 'durable-agent:publisher',
    });
    redis.on('error', (err: unknown) =>
      this.log.report(
        'connection',
        `Redis delta publisher (${redact(this.url)}): ${message(err)}; deltas wait (at most ${this.maxBuffered}) and model calls go on`,
      ),
    );
    redis.connect().catch(() => undefined); // failures come as 'error' events; ioredis keeps reconnecting
    this.redis = redis;
    return redis;
  }

  private schedule(): void {
    if (this.scheduled || this.inflight) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      if (!this.inflight && this.buffer.length) void this.flush();
    });
  }

  /** Send the buffer in pipelines, in order; one flush at a time. */
  private flush(): Promise<void> {
    const redis = this.connection();
    if (redis.status !== 'ready') {
      if (!this.waitingForReady) {
        this.waitingForReady = true;
        redis.once('ready', () => {
          this.waitingForReady = false;
          this.schedule();
        });
      }
      return Promise.resolve();
    }
    this.inflight = this.send(redis).finally(() => {
      this.inflight = undefined;
      if (this.buffer.length && !this.closing) this.schedule();
    });
    return this.inflight;
  }

  private async send(redis: Redis): Promise<void> {
    while (this.buffer.length && redis.status === 'ready') {
      const batch = this.buffer.splice(0, BATCH);
      const pipeline = redis.pipeline();
      const keys = new Set<string>();
      for (const d of batch) {
        const key = streamKey(d.workflowId, this.prefix);
        keys.add(key);
        pipeline.xadd(key, 'MAXLEN', '~', this.maxLen, '*', 'd', encodeDelta(d));
      }
      for (const key of keys) pipeline.expire(key, this.ttlSeconds);
      try {
        const results = (await pipeline.exec()) ?? [];
        const failed = results.filter(([err]) => err).length;
        const first = results.find(([err]) => err)?.[0];
        if (failed) this.log.report('write', `Redis delta publisher: ${failed} of ${results.length} writes failed: ${message(first)}`);
      } catch (err) {
        this.drop(batch.length, message(err));
      }
    }
  }

  private drop(count: number, why: string): void {
    this.dropped += count;
    this.log.report(
      'dropped',
      `Redis delta publisher: ${this.dropped} deltas dropped so far (${why}); readers see the gap and get each step whole from the run's events`,
    );
  }
}

/**
 * Follows runs' live deltas in Redis Streams (written by a {@link RedisDeltaPublisher}). Each
 * subscription has a connection of its own, blocked in `XREAD`, which it quits when it ends; when the
 * connection drops, it reconnects and reads on from the last stream id it saw, so nothing still in the
 * stream is missed or repeated. Hundreds of readers of one run cost Redis one blocked connection each.
 *
 * A subscription ends when its signal aborts (`run.stream()` aborts it when the run is done).
 *
 * @throws {TypeError} from the constructor when `url` or a bound is not valid, naming the option.
 * @example
 * ```ts
 * const client = await AgentClient.connect({ deltas: new RedisDeltaFeed({ url: 'redis://localhost:6379' }) });
 * for await (const chunk of client.get(workflowId).textStream()) process.stdout.write(chunk.text);
 * ```
 */
export class RedisDeltaFeed implements DeltaFeed {
  private readonly url: string;
  private readonly prefix: string;
  private readonly blockMs: number;
  private readonly count: number;

  constructor(private readonly options: RedisFeedOptions) {
    this.url = checkRedisUrl(options?.url, 'RedisDeltaFeed: url');
    this.prefix = options.keyPrefix ?? DEFAULT_KEY_PREFIX;
    this.blockMs = positive(options.blockMs, 5000, 'RedisDeltaFeed: blockMs');
    this.count = positive(options.count, 1000, 'RedisDeltaFeed: count');
    ioredis(); // a missing ioredis fails here, not in the first follow
  }

  /**
   * The run's deltas from now on (or after `after`), until `signal` aborts. Without `after`, the newest
   * progress update of each tool call among the stream's last `count` entries comes first, so a reader
   * attaching while a tool runs sees where it stands.
   */
  async *follow(workflowId: string, options: RedisFollowOptions = {}): AsyncGenerator<LiveDelta> {
    for await (const entry of this.entries(workflowId, options)) yield entry.delta;
  }

  /**
   * Like {@link follow}, with each delta's stream id: keep the last one to come back later with `after`.
   *
   * @throws {TypeError} when `after` is not a stream id (`<ms>-<seq>`).
   */
  async *entries(workflowId: string, { signal, after }: RedisFollowOptions = {}): AsyncGenerator<RedisDeltaEntry> {
    if (after !== undefined && !isStreamId(after))
      throw new TypeError(
        `RedisDeltaFeed: after "${after}" is not a stream id; pass the id of an entry read before (e.g. 1700000000000-0), or 0-0 for all the stream holds`,
      );
    if (signal?.aborted) return;
    const key = streamKey(workflowId, this.prefix);
    const redis = newRedis(this.url, {
      ...this.options.redis,
      lazyConnect: true,
      // Wait through disconnections: the read is sent again once reconnected, from the same id.
      maxRetriesPerRequest: null,
      autoResendUnfulfilledCommands: true,
      connectionName: 'durable-agent:feed',
    });
    redis.on('error', () => undefined); // it reconnects by itself; a read that fails is tried again below
    const stop = () => redis.disconnect();
    signal?.addEventListener('abort', stop, { once: true });
    try {
      let last = after;
      while (!signal?.aborted) {
        let reply: unknown;
        try {
          if (last === undefined) {
            // From now on, but with the newest progress of the tool calls still running (among the last entries).
            const newest = await redis.xrevrange(key, '+', '-', 'COUNT', this.count);
            last = lastIdOf(newest);
            for (const entry of newestProgress(entriesOfRange(newest, workflowId).reverse())) {
              yield entry;
              if (signal?.aborted) return;
            }
            continue;
          }
          reply = await redis.xread('COUNT', this.count, 'BLOCK', this.blockMs, 'STREAMS', key, last);
        } catch {
          if (signal?.aborted || (await sleep(READ_RETRY_MS, signal))) return;
          if (redis.status === 'end') redis.connect().catch(() => undefined);
          continue;
        }
        for (const entry of entriesOf(reply, key, workflowId)) {
          last = entry.id;
          yield entry;
          if (signal?.aborted) return;
        }
        last = lastReadIdOf(reply, key) ?? last;
      }
    } finally {
      signal?.removeEventListener('abort', stop);
      redis.disconnect();
    }
  }
}

/** Resolves when `redis` is ready, or after `ms`. */
function readyOrAfter(redis: Redis, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      redis.off('ready', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    redis.once('ready', done);
  });
}

/** Reports each kind of problem at most once every {@link LOG_EVERY_MS}. */
class Throttled {
  private readonly last = new Map<string, number>();
  constructor(private readonly sink: (message: string) => void) {}

  report(kind: string, text: string): void {
    const now = Date.now();
    if (now - (this.last.get(kind) ?? -Infinity) < LOG_EVERY_MS) return;
    this.last.set(kind, now);
    try {
      this.sink(text);
    } catch {
      // a broken logger must not break model calls either
    }
  }
}

function positive(value: number | undefined, fallback: number, option: string): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value <= 0) throw new TypeError(`${option} must be a positive integer (got ${String(value)})`);
  return value;
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
