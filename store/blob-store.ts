import { createHash, randomUUID } from 'node:crypto';
import { mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DurableAgentError } from '../core/errors';
import type { BlobRef } from '../core/messages';

/**
 * Immutable, content-addressed storage for conversation content. The embedded default keeps blobs in
 * a local directory; a PostgreSQL or S3 store implements the same two methods.
 */
export interface BlobStore {
  /** Store `data` (idempotent) and return its content address. */
  put(data: string): Promise<BlobRef>;
  /** The data stored under `ref`; rejects with {@link BlobNotFoundError} if there is none. */
  get(ref: BlobRef): Promise<string>;
}

/** Raised when a referenced blob is missing from the store (code `storage_error`). */
export class BlobNotFoundError extends DurableAgentError {
  constructor(
    /** The missing blob. */
    readonly ref: BlobRef,
    where: string,
  ) {
    super('storage_error', `blob ${ref} not found in ${where}`);
  }
}

const REF = /^sha256-([0-9a-f]{64})$/;

/** The content address of `data`. */
export function blobRef(data: string): BlobRef {
  return `sha256-${createHash('sha256').update(data, 'utf8').digest('hex')}`;
}

function hexOf(ref: BlobRef): string {
  const m = REF.exec(ref);
  if (!m?.[1]) throw new Error(`malformed blob ref: ${JSON.stringify(ref)}`);
  return m[1];
}

/** Blobs as files under a directory, sharded by the first two hex digits. Writes are atomic (rename). */
export class FileBlobStore implements BlobStore {
  constructor(readonly dir: string) {}

  private path(ref: BlobRef): string {
    const hex = hexOf(ref);
    return join(this.dir, hex.slice(0, 2), hex.slice(2));
  }

  async put(data: string): Promise<BlobRef> {
    const ref = blobRef(data);
    const path = this.path(ref);
    try {
      await stat(path);
      return ref;
    } catch {
      // not stored yet
    }
    const dir = join(this.dir, hexOf(ref).slice(0, 2));
    await mkdir(dir, { recursive: true });
    const tmp = join(dir, `.${randomUUID()}.tmp`);
    await writeFile(tmp, data, 'utf8');
    await rename(tmp, path);
    return ref;
  }

  async get(ref: BlobRef): Promise<string> {
    try {
      return await readFile(this.path(ref), 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new BlobNotFoundError(ref, this.dir);
      throw err;
    }
  }
}

/** Blobs in memory, for tests and single-process use. */
export class MemoryBlobStore implements BlobStore {
  private readonly blobs = new Map<BlobRef, string>();

  async put(data: string): Promise<BlobRef> {
    const ref = blobRef(data);
    this.blobs.set(ref, data);
    return ref;
  }

  async get(ref: BlobRef): Promise<string> {
    const data = this.blobs.get(ref);
    if (data === undefined) throw new BlobNotFoundError(ref, 'memory');
    return data;
  }
}
