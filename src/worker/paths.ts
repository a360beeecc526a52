import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

/** Name of the state folder in the user's home directory. */
export const STATE_DIR_NAME = '.durable-agent';

/**
 * durable-agent's state folder, or a path inside it: `DURABLE_AGENT_HOME` when set (a relative value is
 * resolved against the working directory once, here), else `~/.durable-agent` of the user running the
 * process. The default does not depend on the directory a worker or the CLI was started from, so every
 * process of one user finds the same blob store.
 */
export function stateDir(...parts: string[]): string {
  return stateDirIn(process.env, ...parts);
}

/** {@link stateDir} as the environment `env` sets it (`DURABLE_AGENT_HOME`, else `~/.durable-agent`). */
export function stateDirIn(env: NodeJS.ProcessEnv, ...parts: string[]): string {
  const home = env.DURABLE_AGENT_HOME?.trim();
  return join(home ? resolve(home) : join(homedir(), STATE_DIR_NAME), ...parts);
}
