import { describe, expect, it } from 'vitest';
import { MemoryBlobStore } from '../../src/integrations/store/blob-store';
import { FileObjectStore } from '../../src/integrations/store/file-objects';
import { MemoryObjectStore } from '../../src/integrations/store/objects';
import { objectStoreFor, redact, StoreConfigError } from '../../src/integrations/store/open';
import { isLocalAddress, localStoreWarning } from '../../src/worker/store-warning';

describe('the store setting', () => {
  it('names a directory by path or file:// URL, memory by memory:', () => {
    expect(objectStoreFor('some/dir')).toBeInstanceOf(FileObjectStore);
    expect((objectStoreFor('file:///var/lib/agent%20blobs') as FileObjectStore).dir).toBe('/var/lib/agent blobs');
    expect(objectStoreFor('memory:')).toBeInstanceOf(MemoryObjectStore);
  });

  it('refuses an empty or unknown setting with the forms it accepts, and no password', () => {
    expect(() => objectStoreFor('  ')).toThrow(StoreConfigError);
    const err = (() => {
      try {
        objectStoreFor('ftp://user:hunter2@host/x');
      } catch (e) {
        return e as StoreConfigError;
      }
    })();
    expect(err).toMatchObject({ code: 'invalid_config' });
    expect(err?.message).toMatch(/postgres:\/\/.*s3:\/\//);
    expect(err?.message).not.toContain('hunter2');
  });

  it('redacts passwords and secret query parameters', () => {
    expect(redact('postgres://app:s3cret@db:5432/agents')).toBe('postgres://app:***@db:5432/agents');
    expect(redact('s3://b/p?endpoint=http://x&secretKey=abc')).toBe('s3://b/p?endpoint=http://x&secretKey=***');
  });
});

describe('the local-store warning', () => {
  it('knows local addresses', () => {
    for (const a of ['localhost:7233', '127.0.0.1:7233', '[::1]:7233', 'LOCALHOST:1']) expect(isLocalAddress(a), a).toBe(true);
    for (const a of ['temporal.internal:7233', '10.0.0.5:7233', 'ns.tmprl.cloud:7233']) expect(isLocalAddress(a), a).toBe(false);
  });

  it('warns for a one-machine store serving a remote Temporal, naming the fix', () => {
    const warning = localStoreWarning(new MemoryBlobStore(), 'temporal.internal:7233');
    expect(warning).toContain('temporal.internal:7233');
    expect(warning).toContain('DURABLE_AGENT_STORE=postgres://');
    expect(localStoreWarning(new MemoryBlobStore(), 'localhost:7233')).toBeUndefined();
  });

  it('does not warn for a shared store or a store that says nothing', () => {
    const shared = Object.assign(new MemoryBlobStore(), {});
    Object.defineProperty(shared, 'shared', { value: true });
    expect(localStoreWarning(shared, 'temporal.internal:7233')).toBeUndefined();
    expect(localStoreWarning({ put: async () => 'x', get: async () => 'y' }, 'temporal.internal:7233')).toBeUndefined();
  });
});
