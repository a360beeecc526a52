/** Content-addressed blob storage (store/blob-store.ts). */
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BlobStore } from '../../src/integrations/store/blob-store';
import { BlobNotFoundError, blobRef, FileBlobStore, MemoryBlobStore } from '../../src/integrations/store/blob-store';

let root: string;
let n = 0;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'durable-agent-blobs-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** A fresh directory under the test root. */
function freshDir(): string {
  return join(root, `store-${++n}`);
}

/** Every file under `dir`, relative paths. */
async function files(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(dir.length + 1))
    .sort();
}

const sha256 = (data: string) => createHash('sha256').update(Buffer.from(data, 'utf8')).digest('hex');

const MISSING = `sha256-${'0'.repeat(64)}`;
const MALFORMED = [
  '',
  'abc',
  'sha256-xyz',
  `sha256-${'A'.repeat(64)}`,
  `sha1-${'a'.repeat(40)}`,
  `sha256-${'a'.repeat(63)}`,
  '../../etc/passwd',
  `sha256-${'a'.repeat(64)}/..`,
];

const stores: Array<[string, () => BlobStore]> = [
  ['FileBlobStore', () => new FileBlobStore(freshDir())],
  ['MemoryBlobStore', () => new MemoryBlobStore()],
];

describe.each(stores)('%s contract', (_name, make) => {
  it('names data by the SHA-256 of its UTF-8 bytes and gives it back', async () => {
    const store = make();
    const data = 'héllo 日本 😀\n{"json": true}';
    const ref = await store.put(data);
    expect(ref).toBe(`sha256-${sha256(data)}`);
    expect(ref).toBe(blobRef(data));
    expect(await store.get(ref)).toBe(data);
    expect(await store.get(await store.put(''))).toBe('');
  });

  it('gives different data different refs and equal data the same ref', async () => {
    const store = make();
    const a = await store.put('a');
    expect(await store.put('b')).not.toBe(a);
    expect(await store.put('a')).toBe(a);
  });

  it('rejects a missing blob with BlobNotFoundError', async () => {
    const err = await make()
      .get(MISSING)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BlobNotFoundError);
    expect(err).toMatchObject({ name: 'BlobNotFoundError', ref: MISSING });
    expect((err as Error).message).toContain(MISSING);
  });
});

describe('FileBlobStore', () => {
  it('stores a blob as one file sharded by the first two hex digits', async () => {
    const dir = freshDir();
    const store = new FileBlobStore(dir);
    const ref = await store.put('sharded');
    const hex = sha256('sharded');
    expect(await files(dir)).toEqual([join(hex.slice(0, 2), hex.slice(2))]);
    expect(await readFile(join(dir, hex.slice(0, 2), hex.slice(2)), 'utf8')).toBe('sharded');
    expect(ref).toBe(`sha256-${hex}`);
  });

  it('is idempotent: putting the same data again (even concurrently) leaves one file and no temp files', async () => {
    const dir = freshDir();
    const store = new FileBlobStore(dir);
    const data = 'x'.repeat(100_000);
    const refs = await Promise.all(Array.from({ length: 12 }, () => store.put(data)));
    refs.push(await store.put(data));
    expect(new Set(refs).size).toBe(1);
    expect(await files(dir)).toHaveLength(1);
    expect(await store.get(refs[0] as string)).toBe(data);
  });

  it('leaves no temporary files behind', async () => {
    const dir = freshDir();
    const store = new FileBlobStore(dir);
    await Promise.all(Array.from({ length: 40 }, (_, i) => store.put(`blob ${i % 25}`)));
    const all = await files(dir);
    expect(all).toHaveLength(25);
    expect(all.filter((f) => f.endsWith('.tmp') || f.split(/[\\/]/).some((part) => part.startsWith('.')))).toEqual([]);
  });

  it('reads blobs another instance wrote to the same directory', async () => {
    const dir = freshDir();
    const ref = await new FileBlobStore(dir).put('shared');
    expect(await new FileBlobStore(dir).get(ref)).toBe('shared');
  });

  it('rejects malformed refs without touching the file system', async () => {
    const store = new FileBlobStore(freshDir());
    for (const ref of MALFORMED) {
      const err = await store.get(ref).catch((e: unknown) => e);
      expect(err, ref).toBeInstanceOf(Error);
      expect(err, ref).not.toBeInstanceOf(BlobNotFoundError);
      expect((err as Error).message, ref).toMatch(/malformed blob ref/);
    }
  });
});
