/**
 * The CLI's state folder (the embedded server's database and log, the demo's notes): the same folder a
 * worker keeps its file blob store in by default — `DURABLE_AGENT_HOME` when set, else
 * `~/.durable-agent` — resolved here so that commands talking only to the server load no worker code.
 */
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

/** durable-agent's state folder, or a path inside it (`DURABLE_AGENT_HOME`, a relative value resolved against the working directory). */
export function stateDir(...parts: string[]): string {
  return stateDirIn(process.env, ...parts);
}

/** {@link stateDir} as the environment `env` sets it. */
export function stateDirIn(env: NodeJS.ProcessEnv, ...parts: string[]): string {
  const home = env.DURABLE_AGENT_HOME?.trim();
  return join(home ? resolve(home) : join(homedir(), '.durable-agent'), ...parts);
}
