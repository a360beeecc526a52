/** Encryption of payloads (Temporal history) and stored content with AES-256-GCM keys from `DURABLE_AGENT_KEYS`. */
export { EncryptionConfigError, Keyring, KEYS_ENV, KEY_BYTES } from './keyring';
export type { KeyEntry } from './keyring';
export { DecryptionError, KeyringCipher, isSealed, sealedKeyId } from './cipher';
export { EncryptionCodec, ENCRYPTED_ENCODING, KEY_ID_METADATA, isEncryptedPayload } from './payload-codec';
export type { EncryptionSetting } from './setting';
export { resolveKeyring } from './setting';
