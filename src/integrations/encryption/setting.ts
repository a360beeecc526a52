/** The `encryption` option of workers and clients, resolved against the environment. */
import { Keyring } from './keyring';

/**
 * Encryption of a worker or client: a {@link Keyring}; `false` for none (payloads already encrypted then
 * fail to decode with an error naming `DURABLE_AGENT_KEYS`); unset: the keys of `DURABLE_AGENT_KEYS`, if set.
 */
export type EncryptionSetting = Keyring | false | undefined;

/**
 * The keyring an `encryption` option stands for.
 *
 * @throws {EncryptionConfigError} when the option is unset and `DURABLE_AGENT_KEYS` is set but unusable.
 */
export function resolveKeyring(setting: EncryptionSetting, env: NodeJS.ProcessEnv = process.env): Keyring | undefined {
  if (setting === false) return undefined;
  return setting ?? Keyring.fromEnv(env);
}
