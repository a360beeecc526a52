/**
 * The storage backends under every store: a few primitive operations on named objects, which a local
 * directory, memory, PostgreSQL and S3 each implement once. Content addressing, encryption and
 * at-most-once claims are built on top of them (`blob-store.ts`, `claims.ts`), the same for every backend.
 */

/** The two kinds of object a store keeps: immutable content-addressed blobs, and claims of tool calls. */
export type ObjectKind = 'blob' | 'claim';

/**
 * Named byte objects of two kinds. Names are `sha256-<hex>` for blobs and 64 hex digits for claims, safe
 * as file names, row keys and object keys.
 */
export interface ObjectStore {
  /** Where the objects are, for messages (a directory, `postgres://host/db`, `s3://bucket/prefix`): never a secret. */
  readonly location: string;
  /** True when workers on other machines see the same objects (PostgreSQL, S3); false for a directory or memory. */
  readonly shared: boolean;
  /** The object's bytes, or `undefined` when there is none. */
  read(kind: ObjectKind, name: string): Promise<Uint8Array | undefined>;
  /** Store the object, replacing any object of that name (blobs: idempotent, as equal names hold equal content). */
  write(kind: ObjectKind, name: string, data: Uint8Array): Promise<void>;
  /**
   * Store the object only if none of that name exists, atomically: of concurrent creators on any machine,
   * exactly one gets `true`.
   */
  create(kind: ObjectKind, name: string, data: Uint8Array): Promise<boolean>;
  /** Remove the object if it exists. */
  remove(kind: ObjectKind, name: string): Promise<void>;
  /** Release connections; the store is unusable afterwards. */
  close(): Promise<void>;
}

/** Objects in memory, for tests and single-process use. */
export class MemoryObjectStore implements ObjectStore {
  readonly location = 'memory';
  readonly shared = false;
  private readonly objects = new Map<string, Uint8Array>();

  async read(kind: ObjectKind, name: string): Promise<Uint8Array | undefined> {
    return this.objects.get(`${kind}/${name}`);
  }

  async write(kind: ObjectKind, name: string, data: Uint8Array): Promise<void> {
    this.objects.set(`${kind}/${name}`, data);
  }

  async create(kind: ObjectKind, name: string, data: Uint8Array): Promise<boolean> {
    const key = `${kind}/${name}`;
    if (this.objects.has(key)) return false;
    this.objects.set(key, data);
    return true;
  }

  async remove(kind: ObjectKind, name: string): Promise<void> {
    this.objects.delete(`${kind}/${name}`);
  }

  async close(): Promise<void> {}
}
