/**
 * Loading the user's agents from a module (`--agents ./agents.ts`): its default export (an array of
 * agents) or its named exports that are agents, and optionally `providers`. TypeScript modules are
 * compiled with tsx, registered only when a `.ts` file is loaded.
 */
import { existsSync, statSync } from 'node:fs';
import { extname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { AnyAgent } from '../../src/entry/index';
import type { ModelProvider } from '../../src/entry/index';
import { CliError, errorMessage } from './errors';
import type * as TsxApi from 'tsx/cjs/api';
import { loadPeer, PEERS } from '../../src/integrations/optional-peer';

/** What an agents module provides. */
export interface AgentsModule {
  agents: AnyAgent[];
  /** Extra or replacement model providers by name (the module's `providers` export). */
  providers: Record<string, ModelProvider>;
}

/** File types `--agents` accepts. */
export const AGENTS_MODULE_EXTENSIONS = ['.ts', '.js', '.mjs', '.cjs'] as const;

function isAgent(value: unknown): value is AnyAgent {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { kind?: unknown }).kind === 'agent' &&
    typeof (value as { name?: unknown }).name === 'string'
  );
}

function isProvider(value: unknown): value is ModelProvider {
  return typeof value === 'object' && value !== null && typeof (value as { generate?: unknown }).generate === 'function';
}

/** Make `require` compile `.ts` files (a no-op when tsx is registered already, e.g. running from source). */
function registerTypeScript(): void {
  if (require.extensions['.ts']) return;
  // Loaded only for .ts agent modules; missing, it says to install tsx (or compile the module to .js).
  loadPeer<typeof TsxApi>(PEERS.tsx, 'tsx/cjs/api').register();
}

async function importModule(path: string): Promise<Record<string, unknown>> {
  const ext = extname(path);
  if (ext === '.mjs') return (await import(pathToFileURL(path).href)) as Record<string, unknown>;
  if (ext === '.ts') registerTypeScript();
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- CommonJS (or tsx-compiled) module of the user's
  return require(path) as Record<string, unknown>;
}

/** The agents of a module's exports. @throws {CliError} when it exports none, or something that is not an agent. */
export function agentsOf(moduleExports: Record<string, unknown>, label: string): AgentsModule {
  let agents: AnyAgent[];
  const def = moduleExports.default;
  if (Array.isArray(def)) {
    const bad = def.findIndex((a) => !isAgent(a));
    if (bad >= 0)
      throw new CliError(`--agents ${label}: item ${bad} of the default export is not an agent (define agents with defineAgent)`);
    agents = def as AnyAgent[];
  } else {
    agents = [...new Set(Object.values(moduleExports).filter(isAgent))];
  }
  if (agents.length === 0) {
    throw new CliError(
      `--agents ${label}: the module exports no agents (export an array of agents as default, or agents made with defineAgent as named exports)`,
    );
  }
  const names = new Set<string>();
  for (const a of agents) {
    if (names.has(a.name)) throw new CliError(`--agents ${label}: two agents are named "${a.name}"`);
    names.add(a.name);
  }
  const providers: Record<string, ModelProvider> = {};
  const exported = moduleExports.providers;
  if (exported !== undefined) {
    if (typeof exported !== 'object' || exported === null || Array.isArray(exported)) {
      throw new CliError(`--agents ${label}: the "providers" export must be an object of model providers by name`);
    }
    for (const [name, p] of Object.entries(exported)) {
      if (!isProvider(p))
        throw new CliError(`--agents ${label}: providers.${name} is not a model provider (an object with a generate method)`);
      providers[name] = p;
    }
  }
  return { agents, providers };
}

/**
 * Load the agents module at `file` (relative to the working directory).
 * @throws {CliError} one line naming the file and what is wrong: missing, not a module type it can load,
 * failing to load (a syntax error, a throwing import), or exporting no agents.
 * @example await loadAgentsModule('./agents.ts') // { agents: [assistant], providers: { ollama } }
 */
export async function loadAgentsModule(file: string): Promise<AgentsModule> {
  const path = resolve(file);
  if (!existsSync(path) || !statSync(path).isFile()) throw new CliError(`--agents ${file}: no such file`);
  const ext = extname(path);
  if (!(AGENTS_MODULE_EXTENSIONS as readonly string[]).includes(ext)) {
    throw new CliError(`--agents ${file}: expected a ${AGENTS_MODULE_EXTENSIONS.join(', ')} module`);
  }
  let moduleExports: Record<string, unknown>;
  try {
    moduleExports = await importModule(path);
  } catch (err) {
    throw new CliError(`--agents ${file}: could not load the module: ${errorMessage(err)}`);
  }
  return agentsOf(moduleExports, file);
}
