/**
 * `durable-agent/redis`: live deltas over Redis Streams. `RedisDeltaPublisher` goes to
 * `createWorker({ streaming: { publisher } })`, `RedisDeltaFeed` to `AgentClient.connect({ deltas })`.
 * A separate entry so that only programs using Redis load ioredis.
 *
 * @module durable-agent/redis
 */
export { RedisDeltaPublisher, RedisDeltaFeed, DEFAULT_KEY_PREFIX, streamKey } from '../integrations/streaming/redis';
export type { RedisPublisherOptions, RedisFeedOptions, RedisFollowOptions, RedisDeltaEntry } from '../integrations/streaming/redis';

// used by the CLI and HTTP API
export { redisUnreachable } from '../integrations/streaming/redis';
export { checkRedisUrl, redact as redactRedisUrl } from '../integrations/streaming/redis-codec';
