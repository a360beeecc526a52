import { randomUUID } from 'node:crypto';
import { link, mkdir, readFile, rename, rm, stat, unlink, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { ObjectKind, ObjectStore } from './objects';

const BLOB_NAME = /^sha256-([0-9a-f]{64})$/;
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
