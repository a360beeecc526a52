import { createHash } from 'node:crypto';
import { DurableAgentError } from '../../core/run/errors';
import type { BlobRef } from '../../core/messages/messages';
import { FileObjectStore } from './file-objects';
import type { ObjectStore } from './objects';
import { MemoryObjectStore } from './objects';

/**
 * Immutable, content-addressed storage for conversation content. {@link AgentStore} implements it over
 * any backend (a local directory by default, PostgreSQL, S3); tests may implement the two methods.
 */
export interface BlobStore {
  /** Store `data` (idempotent) and return its content address. */
  put(data: string): Promise<BlobRef>;
  /** The data stored under `ref`; rejects with {@link BlobNotFoundError} if there is none. */
  get(ref: BlobRef): Promise<string>;
}

/**
 * Turns bytes into what a store keeps and back (encryption at rest). `open` must accept what `seal` of
 * any earlier key produced, and should pass through bytes that were stored before sealing was turned on.
 */
export interface BlobCipher {
  /** The bytes to store for `plain`. */
  seal(plain: Uint8Array): Uint8Array;
  /** @throws when the bytes are sealed with a key this cipher does not hold, or were tampered with. */
  open(stored: Uint8Array): Uint8Array;
  /**
   * Whether `stored` is what {@link seal} makes. When given, an {@link AgentStore} refuses a blob that is
   * not: with encryption on, content not sealed was swapped in (or stored before encryption was turned on).
   */
  isSealed?(stored: Uint8Array): boolean;
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

/**
 * Raised when a stored blob is not what its name says (code `storage_error`): its content does not hash to
 * its name, or, in a store that seals what it keeps, it is not sealed. Swapped or altered content is never
 * returned.
 */
export class BlobIntegrityError extends DurableAgentError {
  constructor(
    /** The blob whose content was refused. */
    readonly ref: BlobRef,
    /** The store that holds it (kind and location, never a secret): `file store /var/lib/…`, `S3 store s3://…`. */
    readonly store: string,
    reason: string,
  ) {
    super('storage_error', `blob ${ref} in the ${store} ${reason}: it was replaced or altered in the store, and is not used`);
  }
}

/** A store's kind and location for messages (`file store <dir>`, `PostgreSQL store postgres://host:port/db`, …). */
export function storeName(objects: Pick<ObjectStore, 'location'>): string {
  const { location } = objects;
  if (location.startsWith('postgres://') || location.startsWith('postgresql://')) return `PostgreSQL store ${location}`;
  if (location.startsWith('s3://')) return `S3 store ${location}`;
  if (location === 'memory') return 'memory store';
  return `file store ${location}`;
}

const REF = /^sha256-([0-9a-f]{64})$/;

/** The content address of `data`. */
export function blobRef(data: string): BlobRef {
  return `sha256-${createHash('sha256').update(data, 'utf8').digest('hex')}`;
}

function checkRef(ref: BlobRef): void {
  if (!REF.test(ref)) throw new Error(`malformed blob ref: ${JSON.stringify(ref)}`);
}

/** Who took a claim, kept with it (for people reading an "outcome unknown" case). */
export interface ClaimRecord {
  /** The claimed key (the call's idempotency key). */
  key: string;
  /** The activity attempt that took it. */
  attempt: number;
  /** When it was taken (ISO time of the worker). */
  at: string;
  /** The worker identity that took it. */
  holder: string;
}

/** The claim this attempt took: it may execute. */
export interface ClaimTaken {
  kind: 'claimed';
}
/** An earlier attempt took the claim and never recorded a result: the call may or may not have taken effect. */
export interface ClaimInDoubt {
  kind: 'in_doubt';
  claim: ClaimRecord;
}
/** An earlier attempt executed the call and recorded its result; the result is returned, nothing runs again. */
export interface ClaimSettled {
  kind: 'settled';
  claim: ClaimRecord;
  /** What that attempt recorded. */
  result: string;
}
/** What {@link ClaimStore.claim} found. */
export type ClaimState = ClaimTaken | ClaimInDoubt | ClaimSettled;

/**
 * Claims of at-most-once tool calls, in a store every worker of a run shares: a claim is written before the
 * tool executes, so an attempt that finds one does not execute again.
 */
export interface ClaimStore {
  /** Take the claim of `key`, atomically across workers, or report the claim found. */
  claim(key: string, taker: Omit<ClaimRecord, 'key' | 'at'>): Promise<ClaimState>;
  /** Record the result of the execution holding the claim of `key`. */
  settle(key: string, result: string): Promise<void>;
  /** Drop the claim of `key` (the execution failed without effect); a later attempt may claim it again. */
  release(key: string): Promise<void>;
}

/** Everything a worker stores: content-addressed blobs and tool claims, over one backend. */
export interface Store extends BlobStore, ClaimStore {
  /** Where, for messages (never a secret). */
  readonly location: string;
  /** True when workers on other machines read the same content. */
  readonly shared: boolean;
  /** Release the backend's connections. */
  close(): Promise<void>;
}

/** Options of {@link AgentStore}. */
export interface AgentStoreOptions {
  /**
   * Encrypt what is stored (blobs and claims). With a cipher that tells sealed bytes ({@link BlobCipher.isSealed}),
   * a blob that is not sealed is refused, one stored before encryption was turned on included.
   */
  cipher?: BlobCipher;
}

interface StoredClaim extends ClaimRecord {
  v: 1;
  result?: string;
}

const utf8 = new TextEncoder();
const text = new TextDecoder('utf-8', { fatal: false });

/**
 * A {@link Store} over an {@link ObjectStore}: blobs named by the SHA-256 of their content, claims named
 * by the SHA-256 of their key, everything sealed by the cipher when one is given.
 */
export class AgentStore implements Store {
  private readonly cipher: BlobCipher | undefined;

  constructor(
    readonly objects: ObjectStore,
    options: AgentStoreOptions = {},
  ) {
    this.cipher = options.cipher;
  }

  get location(): string {
    return this.objects.location;
  }

  get shared(): boolean {
    return this.objects.shared;
  }

  async put(data: string): Promise<BlobRef> {
    const ref = blobRef(data);
    await this.objects.write('blob', ref, this.seal(utf8.encode(data)));
    return ref;
  }

  /**
   * @throws {BlobNotFoundError} when there is no blob `ref`.
   * @throws {BlobIntegrityError} when its content does not hash to `ref`, or, with a cipher, is not sealed.
   */
  async get(ref: BlobRef): Promise<string> {
    checkRef(ref);
    const stored = await this.objects.read('blob', ref);
    if (stored === undefined) throw new BlobNotFoundError(ref, this.location);
    if (this.cipher?.isSealed && !this.cipher.isSealed(stored)) {
      throw new BlobIntegrityError(
        ref,
        storeName(this.objects),
        'is not sealed, though this store encrypts what it keeps (DURABLE_AGENT_KEYS)',
      );
    }
    let plain: Uint8Array;
    try {
      plain = this.open(stored);
    } catch (err) {
      // Altered or malformed sealed content (a missing key, `invalid_config`, is not the content's fault).
      if (err instanceof DurableAgentError && err.code === 'storage_error')
        throw new BlobIntegrityError(ref, storeName(this.objects), `does not open (${err.message})`);
      throw err;
    }
    const hash = createHash('sha256').update(plain).digest('hex');
    if (`sha256-${hash}` !== ref) {
      // No text starts with 0xFF, an envelope does: a store without keys reading sealed content says so.
      if (!this.cipher && stored[0] === 0xff)
        throw new DurableAgentError(
          'invalid_config',
          `blob ${ref} in the ${storeName(this.objects)} is encrypted, and this store has no keys to open it: set DURABLE_AGENT_KEYS`,
        );
      throw new BlobIntegrityError(ref, storeName(this.objects), `holds content whose SHA-256 is ${hash}`);
    }
    return text.decode(plain);
  }

  async claim(key: string, taker: Omit<ClaimRecord, 'key' | 'at'>): Promise<ClaimState> {
    const name = claimName(key);
    const record: StoredClaim = { v: 1, key, attempt: taker.attempt, holder: taker.holder, at: new Date().toISOString() };
    if (await this.objects.create('claim', name, this.sealJson(record))) return { kind: 'claimed' };
    const found = await this.objects.read('claim', name);
    // Released between our create and read: try once more (a third party's retry).
    if (found === undefined)
      return (await this.objects.create('claim', name, this.sealJson(record)))
        ? { kind: 'claimed' }
        : this.claimFound(key, await this.objects.read('claim', name));
    return this.claimFound(key, found);
  }

  async settle(key: string, result: string): Promise<void> {
    const name = claimName(key);
    const found = await this.objects.read('claim', name);
    const base = found ? this.parseClaim(key, found) : { key, attempt: 0, holder: '', at: new Date().toISOString() };
    const record: StoredClaim = { v: 1, key, attempt: base.attempt, holder: base.holder, at: base.at, result };
    await this.objects.write('claim', name, this.sealJson(record));
  }

  async release(key: string): Promise<void> {
    await this.objects.remove('claim', claimName(key));
  }

  close(): Promise<void> {
    return this.objects.close();
  }

  private claimFound(key: string, found: Uint8Array | undefined): ClaimState {
    if (found === undefined) return { kind: 'in_doubt', claim: { key, attempt: 0, holder: '', at: '' } };
    const stored = this.parseClaim(key, found);
    const claim: ClaimRecord = { key, attempt: stored.attempt, holder: stored.holder, at: stored.at };
    return stored.result !== undefined ? { kind: 'settled', claim, result: stored.result } : { kind: 'in_doubt', claim };
  }

  private parseClaim(key: string, stored: Uint8Array): StoredClaim {
    // With encryption on, a claim that is not sealed was swapped in (or written before): it proves an attempt
    // took the claim, but its recorded result is not trusted.
    if (this.cipher?.isSealed && !this.cipher.isSealed(stored)) return { v: 1, key, attempt: 0, holder: '', at: '' };
    try {
      const parsed = JSON.parse(text.decode(this.open(stored))) as StoredClaim;
      if (parsed.key !== key) throw new Error(`it belongs to key ${JSON.stringify(parsed.key)}`);
      return parsed;
    } catch (err) {
      // An unreadable claim still proves an attempt took it: in doubt, never "free".
      if (err instanceof SyntaxError) return { v: 1, key, attempt: 0, holder: '', at: '' };
      throw err;
    }
  }

  private sealJson(value: StoredClaim): Uint8Array {
    return this.seal(utf8.encode(JSON.stringify(value)));
  }

  private seal(plain: Uint8Array): Uint8Array {
    return this.cipher ? this.cipher.seal(plain) : plain;
  }

  private open(stored: Uint8Array): Uint8Array {
    return this.cipher ? this.cipher.open(stored) : stored;
  }
}

/** The object name of a claim key. */
export function claimName(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** The embedded default: blobs and claims as files under a directory, for one machine. */
export class FileBlobStore extends AgentStore {
  constructor(
    readonly dir: string,
    options: AgentStoreOptions = {},
  ) {
    super(new FileObjectStore(dir), options);
  }
}

/** Blobs and claims in memory, for tests and single-process use. */
export class MemoryBlobStore extends AgentStore {
  constructor(options: AgentStoreOptions = {}) {
    super(new MemoryObjectStore(), options);
  }
}
