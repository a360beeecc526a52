import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { link, mkdir, readFile, rename, rm, stat, unlink, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { ObjectKind, ObjectStore } from './objects';

const BLOB_NAME = /^sha256-([0-9a-f]{64})$/;

/**
 * Blobs up to this size are written with synchronous calls: on a local disk a small write takes tens
 * of microseconds, and the same steps through `fs/promises` (each a trip to libuv's thread pool and
 * back) cost several times the CPU (on the 2-core machine this is built on, about 60 µs against
 * 150–270 µs for a 1 KB blob), which a worker pays for every message and transcript link it stores.
 * Larger blobs stay asynchronous, so a big tool output never holds the event loop.
 */
export const SYNC_WRITE_MAX_BYTES = 64 * 1024;
const CLAIM_NAME = /^[0-9a-f]{64}$/;

/**
 * Objects as files under one directory (the embedded default, for one machine). Blobs are sharded by the
 * first two hex digits of their address (`ab/cdef…`), claims live under `claims/`. Writes are atomic:
 * a temporary file renamed (replace) or hard-linked (create, which fails if the name exists).
 */
export class FileObjectStore implements ObjectStore {
  readonly shared = false;
  readonly location: string;
  /** Directories this store made (or found) already: a write into one skips its `mkdir`. */
  private readonly made = new Set<string>();

  constructor(readonly dir: string) {
    this.location = resolve(dir);
  }

  private path(kind: ObjectKind, name: string): { dir: string; file: string } {
    if (kind === 'blob') {
      const hex = BLOB_NAME.exec(name)?.[1];
      if (!hex) throw new Error(`malformed blob ref: ${JSON.stringify(name)}`);
      const dir = join(this.dir, hex.slice(0, 2));
      return { dir, file: join(dir, hex.slice(2)) };
    }
    if (!CLAIM_NAME.test(name)) throw new Error(`malformed claim name: ${JSON.stringify(name)}`);
    const dir = join(this.dir, 'claims');
    return { dir, file: join(dir, name) };
  }

  async read(kind: ObjectKind, name: string): Promise<Uint8Array | undefined> {
    try {
      return await readFile(this.path(kind, name).file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  }

  async write(kind: ObjectKind, name: string, data: Uint8Array): Promise<void> {
    const { dir, file } = this.path(kind, name);
    if (kind === 'blob' && data.length <= SYNC_WRITE_MAX_BYTES) return this.writeSmallBlob(dir, file, data);
    if (kind === 'blob' && (await exists(file))) return;
    const tmp = await this.temp(dir, data);
    await rename(tmp, file);
  }

  async create(kind: ObjectKind, name: string, data: Uint8Array): Promise<boolean> {
    const { dir, file } = this.path(kind, name);
    const tmp = await this.temp(dir, data);
    try {
      await link(tmp, file);
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw err;
    } finally {
      await unlink(tmp).catch(() => undefined);
    }
  }

  async remove(kind: ObjectKind, name: string): Promise<void> {
    await rm(this.path(kind, name).file, { force: true });
  }

  async close(): Promise<void> {}

  /** A small blob, written with synchronous calls (see {@link SYNC_WRITE_MAX_BYTES}): the same steps as {@link temp} and a rename. */
  private writeSmallBlob(dir: string, file: string, data: Uint8Array): void {
    if (existsSync(file)) return;
    const tmp = join(dir, `.${randomUUID()}.tmp`);
    if (!this.made.has(dir)) {
      mkdirSync(dir, { recursive: true });
      this.made.add(dir);
    }
    try {
      writeFileSync(tmp, data);
    } catch (err) {
      // The directory went away since (someone emptied the store): make it again.
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      mkdirSync(dir, { recursive: true });
      writeFileSync(tmp, data);
    }
    renameSync(tmp, file);
  }

  private async temp(dir: string, data: Uint8Array): Promise<string> {
    const tmp = join(dir, `.${randomUUID()}.tmp`);
    if (!this.made.has(dir)) {
      await mkdir(dir, { recursive: true });
      this.made.add(dir);
    }
    try {
      await writeFile(tmp, data);
    } catch (err) {
      // The directory went away since (someone emptied the store): make it again.
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      await mkdir(dir, { recursive: true });
      await writeFile(tmp, data);
    }
    return tmp;
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}
