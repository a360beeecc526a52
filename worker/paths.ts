import { join, resolve } from 'node:path';

/** The project-local state folder (`DURABLE_AGENT_HOME`, default `./.durable-agent`), or a path inside it. */
export function stateDir(...parts: string[]): string {
  return join(resolve(process.env.DURABLE_AGENT_HOME ?? '.durable-agent'), ...parts);
}
