/**
 * AES-256-GCM sealing of bytes with a {@link Keyring}, in a self-describing envelope:
 *
 * | bytes | what |
 * |---|---|
 * | 4 | magic `FF 44 41 45` (`\xFFDAE`: no UTF-8 text starts with `FF`, so stored text is never mistaken for an envelope) |
 * | 1 | version (1) |
 * | 1 | length n of the key id |
 * | n | key id (ASCII) |
 * | 12 | random IV |
 * | 16 | GCM tag |
 * | … | ciphertext |
 *
 * The header (magic to key id) is authenticated too: changing the key id or any other byte fails the tag.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { DurableAgentError } from '../../core/run/errors';
import type { BlobCipher } from '../store/blob-store';
import type { Keyring } from './keyring';
import { KEYS_ENV } from './keyring';

const MAGIC = Buffer.from([0xff, 0x44, 0x41, 0x45]);
const VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const ALGORITHM = 'aes-256-gcm';

/**
 * Sealed content that cannot be opened: its key is not held (code `invalid_config`: the fix is the
 * keys given to this process), or it fails authentication or is malformed (code `storage_error`).
 */
export class DecryptionError extends DurableAgentError {
  constructor(
    code: 'invalid_config' | 'storage_error',
    message: string,
    /** The id of the key the content says it was sealed with, when readable. */
    readonly keyId: string | undefined,
  ) {
    super(code, message);
  }
}

/** True when `bytes` start like a sealed envelope (of any version). */
export function isSealed(bytes: Uint8Array): boolean {
  return bytes.length >= MAGIC.length && MAGIC.every((b, i) => bytes[i] === b);
}

/** Seal `plain` with the keyring's first key. */
export function seal(keyring: Keyring, plain: Uint8Array): Buffer {
  const id = Buffer.from(keyring.primaryId, 'ascii');
  const header = Buffer.concat([MAGIC, Buffer.from([VERSION, id.length]), id]);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv(ALGORITHM, keyring.primaryKey, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(header);
  const body = Buffer.concat([cipher.update(plain), cipher.final()]);
  return Buffer.concat([header, iv, cipher.getAuthTag(), body]);
}

/** The header of an envelope: where its parts start. */
interface Envelope {
  keyId: string;
  header: Buffer;
  iv: Buffer;
  tag: Buffer;
  body: Buffer;
}

function parse(stored: Uint8Array, what: string): Envelope {
  const bytes = Buffer.from(stored.buffer, stored.byteOffset, stored.byteLength);
  const version = bytes[MAGIC.length];
  if (version !== VERSION)
    throw new DecryptionError(
      'storage_error',
      `${what} is sealed in envelope version ${version ?? '(missing)'}, this version of durable-agent reads version ${VERSION}: upgrade it`,
      undefined,
    );
  const idLength = bytes[MAGIC.length + 1] ?? 0;
  const idStart = MAGIC.length + 2;
  const ivStart = idStart + idLength;
  const keyId = bytes.subarray(idStart, Math.min(ivStart, bytes.length)).toString('ascii');
  if (idLength === 0 || bytes.length < ivStart + IV_BYTES + TAG_BYTES)
    throw new DecryptionError(
      'storage_error',
      `${what} is a truncated envelope (${bytes.length} bytes): it was cut or altered`,
      idLength ? keyId : undefined,
    );
  return {
    keyId,
    header: bytes.subarray(0, ivStart),
    iv: bytes.subarray(ivStart, ivStart + IV_BYTES),
    tag: bytes.subarray(ivStart + IV_BYTES, ivStart + IV_BYTES + TAG_BYTES),
    body: bytes.subarray(ivStart + IV_BYTES + TAG_BYTES),
  };
}

/** The key id an envelope names (undefined for bytes that are not one). */
export function sealedKeyId(stored: Uint8Array): string | undefined {
  if (!isSealed(stored)) return undefined;
  try {
    return parse(stored, 'content').keyId;
  } catch (err) {
    return err instanceof DecryptionError ? err.keyId : undefined;
  }
}

/**
 * Open an envelope made by {@link seal} with any key of the keyring.
 *
 * @param what names the content in error messages (e.g. `a blob`, `a Temporal payload`).
 * @throws {DecryptionError} code `invalid_config` when the keyring lacks the envelope's key id (named, with
 * `DURABLE_AGENT_KEYS`); code `storage_error` when it fails authentication (tampered, or another key under
 * that id) or is malformed.
 */
export function open(keyring: Keyring, stored: Uint8Array, what = 'content'): Buffer {
  const envelope = parse(stored, what);
  const key = keyring.key(envelope.keyId);
  if (!key) {
    throw new DecryptionError(
      'invalid_config',
      `${what} is encrypted with key id ${JSON.stringify(envelope.keyId)}, which this process does not hold (it holds ${keyring.ids.map((id) => JSON.stringify(id)).join(', ')}): add that key to ${KEYS_ENV} (keep old keys there after a rotation)`,
      envelope.keyId,
    );
  }
  try {
    const decipher = createDecipheriv(ALGORITHM, key, envelope.iv, { authTagLength: TAG_BYTES });
    decipher.setAAD(envelope.header);
    decipher.setAuthTag(envelope.tag);
    return Buffer.concat([decipher.update(envelope.body), decipher.final()]);
  } catch {
    throw new DecryptionError(
      'storage_error',
      `${what} sealed with key id ${JSON.stringify(envelope.keyId)} failed authentication: it was altered, or ${KEYS_ENV} holds a different key under that id`,
      envelope.keyId,
    );
  }
}

/**
 * A {@link BlobCipher} over a keyring, for stores: `new FileBlobStore(dir, { cipher })`,
 * `openStore(url, { cipher })`. `open` passes through bytes that are not an envelope, but a store with this
 * cipher refuses a blob that is not sealed (`isSealed`): with encryption on, plaintext in its place was swapped in.
 *
 * @example
 * ```ts
 * const cipher = new KeyringCipher(Keyring.parse(process.env.DURABLE_AGENT_KEYS!));
 * const store = openStore(process.env.DURABLE_AGENT_STORE!, { cipher });
 * ```
 */
export class KeyringCipher implements BlobCipher {
  constructor(readonly keyring: Keyring) {}

  seal(plain: Uint8Array): Uint8Array {
    return seal(this.keyring, plain);
  }

  /** @throws {DecryptionError} for an envelope whose key is not held, or that fails authentication. */
  open(stored: Uint8Array): Uint8Array {
    return isSealed(stored) ? open(this.keyring, stored, 'stored content') : stored;
  }

  /** True for an envelope: a store with this cipher refuses blobs that are not. */
  isSealed(stored: Uint8Array): boolean {
    return isSealed(stored);
  }
}
