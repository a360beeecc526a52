/** Why a run's content cannot be read by this process, for listings that show such a run instead of failing. */
import { DecryptionError } from '../integrations/encryption/cipher';
import { KEYS_ENV } from '../integrations/encryption/keyring';

/**
 * The reason `err` (from reading a run) says the run's content cannot be opened here: sealed with a key
 * this process does not hold (named by its id), or altered; `undefined` for any other failure.
 */
export function unreadableReason(err: unknown): string | undefined {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth++) {
    if (!(e instanceof DecryptionError)) continue;
    if (e.code === 'invalid_config' && e.keyId !== undefined)
      return `sealed with key ${e.keyId}, which this process does not hold: add it to ${KEYS_ENV}`;
    return e.message;
  }
  return undefined;
}
