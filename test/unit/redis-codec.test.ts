/** The pure parts of the Redis Streams transport: keys, entry encoding, reply parsing, option checks. */
import { describe, expect, it } from 'vitest';
import type { LiveDelta } from '../../src/core/events/stream';
import {
  DEFAULT_KEY_PREFIX,
  checkRedisUrl,
  decodeDelta,
  encodeDelta,
  entriesOf,
  entriesOfRange,
  isStreamId,
  lastIdOf,
  lastReadIdOf,
  newestProgress,
  redact,
  streamKey,
} from '../../src/integrations/streaming/redis-codec';
import { RedisDeltaFeed, RedisDeltaPublisher } from '../../src/integrations/streaming/redis';
import { REDIS_SERVER_ENV, findRedisServer } from '../helpers/redis';

const text: LiveDelta = { workflowId: 'wf-1', step: 2, attempt: 3, n: 7, delta: { type: 'text', text: 'héllo "quoted"\n' } };
const args: LiveDelta = {
  workflowId: 'wf-1',
  step: 1,
  attempt: 1,
  n: 0,
  delta: { type: 'tool_args', call: 1, tool: 'echo', json: '{"te' },
};

const progress = (callId: string, attempt: number, n: number): LiveDelta => ({
  workflowId: 'wf-1',
  step: 2,
  attempt,
  n,
  callId,
  delta: { type: 'tool_progress', tool: 'scan', message: `${callId} ${attempt}.${n}`, fraction: 0.25, data: { files: n } },
});

describe('redis codec: tool progress', () => {
  it('round-trips a progress update with its call id', () => {
    const d = progress('call-1', 2, 5);
    expect(decodeDelta('wf-1', ['d', encodeDelta(d)])).toEqual(d);
  });

  it('reads no progress without a call id, no model delta with one, and no progress out of bounds', () => {
    const p = progress('c', 1, 0);
    for (const v of [
      { step: 2, attempt: 1, n: 0, delta: p.delta },
      { step: 2, attempt: 1, n: 0, callId: 'c', delta: { type: 'text', text: 'x' } },
      { step: 2, attempt: 1, n: 0, callId: 'c', delta: { ...p.delta, fraction: 2 } },
      { step: 2, attempt: 1, n: 0, callId: 'c', delta: { type: 'tool_progress', tool: 'scan' } },
    ])
      expect(decodeDelta('wf-1', ['d', JSON.stringify(v)])).toBeUndefined();
  });

  it('picks the newest progress of each call for a late reader: newest attempt, then number; in stream order', () => {
    const entries = [
      { id: '1-0', delta: progress('a', 1, 0) },
      { id: '2-0', delta: progress('b', 1, 0) },
      { id: '3-0', delta: text },
      { id: '4-0', delta: progress('a', 2, 0) },
      { id: '5-0', delta: progress('b', 1, 1) },
      { id: '6-0', delta: progress('a', 1, 1) }, // an older attempt read late
    ];
    expect(newestProgress(entries).map((e) => e.id)).toEqual(['4-0', '5-0']);
    expect(newestProgress([{ id: '1-0', delta: text }])).toEqual([]);
  });
});

describe('redis codec', () => {
  it('names one stream per run under the prefix', () => {
    expect(streamKey('run-1')).toBe(`${DEFAULT_KEY_PREFIX}run-1`);
    expect(streamKey('run-1', 'p:')).toBe('p:run-1');
  });

  it('round-trips every kind of delta, the workflow id coming from the key', () => {
    for (const d of [text, args, { ...text, delta: { type: 'thinking' as const, text: 'hmm' } }]) {
      const stored = encodeDelta(d);
      expect(stored).not.toContain('wf-1');
      expect(decodeDelta('wf-1', ['d', stored])).toEqual(d);
    }
  });

  it('reads nothing from entries that are not deltas', () => {
    const bad = [
      ['d', 'not json'],
      ['other', encodeDelta(text)],
      ['d', JSON.stringify({ step: 1, attempt: 1, n: -1, delta: { type: 'text', text: 'x' } })],
      ['d', JSON.stringify({ step: 1, attempt: 1.5, n: 0, delta: { type: 'text', text: 'x' } })],
      ['d', JSON.stringify({ step: 1, attempt: 1, n: 0, delta: { type: 'image', text: 'x' } })],
      ['d', JSON.stringify({ step: 1, attempt: 1, n: 0, delta: { type: 'tool_args', call: 0, json: 3 } })],
      ['d', 'null'],
      [],
    ];
    for (const fields of bad) expect(decodeDelta('wf', fields)).toBeUndefined();
  });

  it("parses an XREAD reply: the stream's readable entries, in order; the last id read includes unreadable ones", () => {
    const key = streamKey('wf-1');
    const reply = [
      [
        key,
        [
          ['1-0', ['d', encodeDelta(text)]],
          ['1-1', ['d', 'junk']],
          ['2-0', ['d', encodeDelta(args)]],
          ['3-0', ['d', '{']],
        ],
      ],
      ['other-key', [['9-0', ['d', encodeDelta(text)]]]],
    ];
    expect(entriesOf(reply, key, 'wf-1')).toEqual([
      { id: '1-0', delta: text },
      { id: '2-0', delta: args },
    ]);
    expect(lastReadIdOf(reply, key)).toBe('3-0');
    expect(entriesOf(null, key, 'wf-1')).toEqual([]);
    expect(lastReadIdOf(null, key)).toBeUndefined();
    expect(entriesOfRange([['5-0', ['d', encodeDelta(text)]], 'junk'], 'wf-1')).toEqual([{ id: '5-0', delta: text }]);
  });

  it('starts from the last entry a stream holds, or from 0-0 when it holds none', () => {
    expect(lastIdOf([['17-3', ['d', '{}']]])).toBe('17-3');
    expect(lastIdOf([])).toBe('0-0');
    expect(lastIdOf(null)).toBe('0-0');
  });

  it('knows a stream id', () => {
    for (const id of ['0-0', '1700000000000-12', '1700000000000']) expect(isStreamId(id)).toBe(true);
    for (const id of ['', '$', '>', '-1', '1-', 'abc', '1-2-3']) expect(isStreamId(id)).toBe(false);
  });

  it('accepts redis:// and rediss:// URLs and names the option and the expected form otherwise', () => {
    expect(checkRedisUrl('redis://localhost:6379', 'x')).toBe('redis://localhost:6379');
    expect(checkRedisUrl('rediss://user:pw@cache.example:6380/2', 'x')).toBe('rediss://user:pw@cache.example:6380/2');
    expect(() => checkRedisUrl(undefined, 'RedisDeltaFeed: url')).toThrow(
      /RedisDeltaFeed: url: a Redis URL is required, e.g. redis:\/\/localhost:6379/,
    );
    expect(() => checkRedisUrl('localhost:6379', 'opt')).toThrow(/opt: .*scheme localhost:.*expected redis:\/\/host:port/);
    expect(() => checkRedisUrl('http://localhost:6379', 'opt')).toThrow(/scheme http:/);
    expect(() => checkRedisUrl('not a url', 'opt')).toThrow(/"not a url" is not a URL/);
  });

  it('keeps passwords out of messages', () => {
    expect(redact('redis://user:secret@host:1')).toBe('redis://user:***@host:1');
    expect(redact('redis://:secret@host:1')).toBe('redis://:***@host:1');
    expect(redact('redis://host:1')).toBe('redis://host:1');
    expect(() => checkRedisUrl('ftp://u:secret@host', 'opt')).toThrow(/u:\*\*\*@host/);
  });
});

describe('redis transport options', () => {
  it('refuses a bad URL or bound at construction, naming the option (and connects to nothing)', () => {
    expect(() => new RedisDeltaPublisher({ url: 'localhost' })).toThrow(/RedisDeltaPublisher: url/);
    expect(() => new RedisDeltaPublisher({ url: 'redis://h:1', maxLen: 0 })).toThrow(
      /RedisDeltaPublisher: maxLen must be a positive integer \(got 0\)/,
    );
    expect(() => new RedisDeltaPublisher({ url: 'redis://h:1', ttlSeconds: 1.5 })).toThrow(/ttlSeconds/);
    expect(() => new RedisDeltaFeed({ url: '' })).toThrow(/RedisDeltaFeed: url: a Redis URL is required/);
    expect(() => new RedisDeltaFeed({ url: 'redis://h:1', blockMs: -5 })).toThrow(/RedisDeltaFeed: blockMs/);
  });

  it('a publisher that never published closes at once', async () => {
    await new RedisDeltaPublisher({ url: 'redis://127.0.0.1:1' }).close();
  });
});

describe('finding redis-server for tests', () => {
  it('takes an explicit binary only when it is executable', () => {
    expect(findRedisServer({ [REDIS_SERVER_ENV]: 'no/such/redis-server', PATH: '' })).toBeUndefined();
    expect(findRedisServer({ [REDIS_SERVER_ENV]: process.execPath, PATH: '' })).toBe(process.execPath);
    expect(findRedisServer({ PATH: '' })).toBeUndefined();
  });
});
