/**
 * A Temporal `PayloadCodec` that encrypts whole serialized payloads (data and metadata) with a
 * {@link Keyring}: what Temporal stores and shows is `encoding: binary/encrypted`, the key id, and an
 * AES-256-GCM envelope. Workers and clients that share the keys read everything as before.
 */
import type { Payload, PayloadCodec } from '@temporalio/common';
import { METADATA_ENCODING_KEY } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { DecryptionError, isSealed, open, seal } from './cipher';
import type { Keyring } from './keyring';
import { KEYS_ENV } from './keyring';

/** The `encoding` metadata of an encrypted payload. */
export const ENCRYPTED_ENCODING = 'binary/encrypted';
/** The metadata key naming the key an encrypted payload was sealed with. */
export const KEY_ID_METADATA = 'encryption-key-id';

const utf8 = new TextEncoder();
const text = new TextDecoder();
const ProtoPayload = temporal.api.common.v1.Payload;

function metadataText(payload: Payload, key: string): string | undefined {
  const value = payload.metadata?.[key];
  return value ? text.decode(value) : undefined;
}

/** True when `payload` was encrypted by an {@link EncryptionCodec}. */
export function isEncryptedPayload(payload: Payload): boolean {
  return metadataText(payload, METADATA_ENCODING_KEY) === ENCRYPTED_ENCODING;
}

/**
 * Encrypts payloads with the keyring's first key and decrypts them with any of its keys; payloads of
 * other encodings decode as they are (runs recorded before encryption was turned on stay readable).
 * Without a keyring it encrypts nothing, and an encrypted payload fails to decode with an error that
 * says how to fix it (set `DURABLE_AGENT_KEYS`), rather than as an unknown encoding.
 *
 * @example
 * ```ts
 * const codec = new EncryptionCodec(Keyring.fromEnv());
 * const client = new Client({ connection, dataConverter: { payloadCodecs: [codec] } });
 * ```
 */
export class EncryptionCodec implements PayloadCodec {
  constructor(readonly keyring: Keyring | undefined) {}

  /** Each payload sealed whole with the keyring's first key (as is without a keyring). */
  encode(payloads: Payload[]): Promise<Payload[]> {
    const keyring = this.keyring;
    if (!keyring) return Promise.resolve(payloads);
    return Promise.resolve(
      payloads.map((payload): Payload => ({
        metadata: { [METADATA_ENCODING_KEY]: utf8.encode(ENCRYPTED_ENCODING), [KEY_ID_METADATA]: utf8.encode(keyring.primaryId) },
        data: seal(keyring, ProtoPayload.encode(payload).finish()),
      })),
    );
  }

  /** @throws {DecryptionError} for an encrypted payload this codec cannot open (names the key id and `DURABLE_AGENT_KEYS`). */
  decode(payloads: Payload[]): Promise<Payload[]> {
    try {
      return Promise.resolve(payloads.map((payload) => this.decodeOne(payload)));
    } catch (err) {
      return Promise.reject(err as Error);
    }
  }

  private decodeOne(payload: Payload): Payload {
    if (!isEncryptedPayload(payload)) return payload;
    const keyId = metadataText(payload, KEY_ID_METADATA);
    const named = keyId !== undefined ? ` with key id ${JSON.stringify(keyId)}` : '';
    if (!this.keyring) {
      throw new DecryptionError(
        'invalid_config',
        `a Temporal payload is encrypted${named} and this process has no encryption keys: set ${KEYS_ENV} (the keys the workers use)`,
        keyId,
      );
    }
    const data = payload.data ?? new Uint8Array();
    if (!isSealed(data))
      throw new DecryptionError(
        'storage_error',
        `a Temporal payload marked ${ENCRYPTED_ENCODING}${named} does not hold a durable-agent envelope: it was altered, or encrypted by another codec`,
        keyId,
      );
    const decoded = ProtoPayload.decode(open(this.keyring, data, 'a Temporal payload'));
    return { metadata: decoded.metadata, data: decoded.data };
  }
}
