/**
 * Encryption keys with ids, from `DURABLE_AGENT_KEYS`: the first key encrypts what is written now, every
 * key decrypts (rotation: put a new key first, keep the old ones until nothing sealed with them is read).
 * Key material never appears in messages, `JSON.stringify` or `util.inspect`.
 */
import { randomBytes } from 'node:crypto';
import { inspect } from 'node:util';
import { DurableAgentError } from '../../core/run/errors';

/** The environment variable holding the keys: `id:base64,id:base64,…`, the first one encrypting. */
export const KEYS_ENV = 'DURABLE_AGENT_KEYS';

/** Bytes of an AES-256 key. */
export const KEY_BYTES = 32;

/** What a key id may be: 1-64 letters, digits, `_`, `.`, `-` (it is written in clear with what it seals). */
const KEY_ID = /^[A-Za-z0-9_.-]{1,64}$/;

/** An encryption setting that cannot be used (code `invalid_config`). Never holds key material. */
export class EncryptionConfigError extends DurableAgentError {
  constructor(message: string) {
    super('invalid_config', message);
  }
}

/** One key of a {@link Keyring}. */
export interface KeyEntry {
  /** Its id, stored in clear next to what it seals, so the right key is found to open it. */
  id: string;
  /** 32 bytes. */
  key: Uint8Array;
}

/**
 * The keys of a worker or client. The first one seals new content; all of them open.
 *
 * @example
 * ```ts
 * const keys = Keyring.fromEnv();                  // DURABLE_AGENT_KEYS="k2:<base64>,k1:<base64>", or undefined
 * const fresh = Keyring.parse(`k1:${Keyring.generateKey()}`);
 * ```
 */
export class Keyring {
  readonly #keys: ReadonlyMap<string, Buffer>;
  /** The id of the key that seals new content. */
  readonly primaryId: string;

  /**
   * @throws {EncryptionConfigError} no keys, an invalid or repeated id, or a key that is not 32 bytes.
   */
  constructor(entries: readonly KeyEntry[], source = 'keyring') {
    if (entries.length === 0)
      throw new EncryptionConfigError(`${source} holds no key: give at least one id:key pair, e.g. k1:<32 bytes in base64>`);
    const keys = new Map<string, Buffer>();
    entries.forEach(({ id, key }, index) => {
      const where = `${source}, key ${index + 1}`;
      checkId(id, where);
      if (keys.has(id))
        throw new EncryptionConfigError(`${where}: key id ${JSON.stringify(id)} appears twice: each key needs an id of its own`);
      if (!(key instanceof Uint8Array) || key.length !== KEY_BYTES) {
        throw new EncryptionConfigError(
          `${where} (id ${JSON.stringify(id)}): the key is ${key instanceof Uint8Array ? key.length : 0} bytes, AES-256 needs exactly ${KEY_BYTES} (make one with: openssl rand -base64 32)`,
        );
      }
      keys.set(id, Buffer.from(key));
    });
    this.#keys = keys;
    this.primaryId = entries[0]!.id;
  }

  /**
   * Parse `id:base64,id:base64,…` (spaces around entries allowed); the first key is the one that seals.
   *
   * @param source names the setting in error messages (default `DURABLE_AGENT_KEYS`).
   * @throws {EncryptionConfigError} naming the entry at fault (never its key).
   */
  static parse(spec: string, source: string = KEYS_ENV): Keyring {
    const parts = spec.split(',').map((p) => p.trim());
    if (parts.every((p) => p === ''))
      throw new EncryptionConfigError(
        `${source} is empty: give id:key pairs, e.g. k1:<32 bytes in base64> (make a key with: openssl rand -base64 32)`,
      );
    const entries = parts.map((part, index): KeyEntry => {
      const where = `${source}, key ${index + 1}`;
      const colon = part.indexOf(':');
      if (colon < 0) throw new EncryptionConfigError(`${where} is not of the form id:base64key (e.g. k1:<32 bytes in base64>)`);
      const id = part.slice(0, colon).trim();
      checkId(id, where);
      const encoded = part.slice(colon + 1).trim();
      if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(encoded))
        throw new EncryptionConfigError(`${where} (id ${JSON.stringify(id)}): the key is not base64`);
      return { id, key: Buffer.from(encoded, 'base64') };
    });
    return new Keyring(entries, source);
  }

  /**
   * The keyring of `DURABLE_AGENT_KEYS`, or undefined when it is unset or blank.
   *
   * @throws {EncryptionConfigError} when it is set but unusable.
   */
  static fromEnv(env: NodeJS.ProcessEnv = process.env): Keyring | undefined {
    const spec = env[KEYS_ENV];
    return spec === undefined || spec.trim() === '' ? undefined : Keyring.parse(spec, KEYS_ENV);
  }

  /** A new random key, base64, for `DURABLE_AGENT_KEYS`. */
  static generateKey(): string {
    return randomBytes(KEY_BYTES).toString('base64');
  }

  /** The ids of every key, the sealing one first. */
  get ids(): string[] {
    return [...this.#keys.keys()];
  }

  /** The key that seals new content. */
  get primaryKey(): Buffer {
    return this.#keys.get(this.primaryId) as Buffer;
  }

  /** The key with this id, if held. */
  key(id: string): Buffer | undefined {
    return this.#keys.get(id);
  }

  /** Ids only: key material is never serialized. */
  toJSON(): { keyIds: string[] } {
    return { keyIds: this.ids };
  }

  /** What `util.inspect` shows: the key ids, never key material. */
  [inspect.custom](): string {
    return `Keyring { keyIds: ${JSON.stringify(this.ids)} }`;
  }
}

function checkId(id: string, where: string): void {
  if (!KEY_ID.test(id)) {
    // The id is not shown: a malformed entry may be key material in the wrong place (e.g. key:id).
    throw new EncryptionConfigError(
      `${where}: the key id ${id === '' ? 'is empty' : 'is invalid'}: use 1-64 letters, digits, '_', '.' or '-' before the ':' (id:base64key)`,
    );
  }
}
