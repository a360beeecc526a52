/** The error of a store setting that cannot be used, and the redaction of settings for messages. */
import { DurableAgentError } from '../../core/run/errors';

/** A store setting that cannot be used (code `invalid_config`). */
export class StoreConfigError extends DurableAgentError {
  constructor(message: string) {
    super('invalid_config', message);
  }
}

/** A store setting with any password removed, for messages. */
export function redact(setting: string): string {
  return setting.replace(/\/\/([^/@:]*):[^/@]*@/, '//$1:***@').replace(/([?&](?:secret|password|key)[^=]*=)[^&]*/gi, '$1***');
}
