/**
 * The secrets a worker holds, for the redaction of everything leaving its activities: model providers'
 * keys, MCP servers' `headers` and `env` values, passwords in store URLs, `DURABLE_AGENT_KEYS` key
 * material, and credential-named variables of its environment (`*_API_KEY`, `*_TOKEN`, `*_SECRET*`,
 * `*PASSWORD*`, AWS credentials…). Gathered on demand: providers read keys lazily, AI SDK models are
 * resolved at their first call.
 */
import type { AgentRegistry } from '../agents/registry';
import { Redactor } from '../core/messages/redact';
import type { Keyring } from '../integrations/encryption/keyring';
import type { McpServer } from '../integrations/mcp/server';
import type { ModelProvider } from '../integrations/providers/types';

/** Names of environment variables whose values are credentials (not `PWD`, `SSH_AUTH_SOCK`: paths). */
export const CREDENTIAL_ENV =
  /(?:^|_)(?:API_?KEYS?|KEYS?|TOKENS?|SECRETS?|PASSWORD|PASSWD|PASS|CREDENTIALS?)(?:_|$)|SECRET|PASSWORD|^PGPASS/i;

const decoded = (raw: string): string => {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
};

/** The password of a URL-like value (`postgres://user:pass@host`, `redis://:pass@host`), if any. */
export function urlPassword(value: string): string | undefined {
  return urlCredentials(value)[0];
}

/**
 * The secrets of a URL-like value's credentials: its password and `user:password` (whose base64 is a
 * Basic-auth header), or none.
 */
export function urlCredentials(value: string): string[] {
  const m = /^[a-z][a-z0-9+.-]*:\/\/([^\s/:@]*):([^\s/@]+)@/i.exec(value.trim());
  if (!m) return [];
  const password = decoded(m[2] as string);
  return [password, `${decoded(m[1] as string)}:${password}`];
}

/** Credential values of an environment: credential-named variables, and passwords in any URL value. */
export function environmentSecrets(env: NodeJS.ProcessEnv): string[] {
  const out: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (!value) continue;
    if (CREDENTIAL_ENV.test(name)) {
      out.push(value);
      // `id:base64,id:base64` (DURABLE_AGENT_KEYS) and other lists: each part too.
      for (const part of value.split(',')) out.push(part.trim(), part.slice(part.indexOf(':') + 1).trim());
    }
    out.push(...urlCredentials(value));
  }
  return out;
}

/** Values of an MCP server that stay in the worker: its headers (and the credential after an auth scheme) and env. */
export function mcpSecrets(server: McpServer): string[] {
  const headers = 'headers' in server && server.headers ? Object.values(server.headers) : [];
  const env = 'env' in server && server.env ? Object.values(server.env) : [];
  return [...headers.flatMap((v) => [v, v.replace(/^(?:Bearer|Basic)\s+/i, '')]), ...env];
}

/** Where a worker's secrets are. */
export interface SecretSources {
  providers: readonly ModelProvider[];
  /** The agents (their MCP servers). */
  registry: AgentRegistry;
  /** The store setting, when the store was opened from one (its URL's password). */
  storeSetting?: string;
  keyring?: Keyring;
  /** More values to redact (credentials the worker cannot see, e.g. inside a tool's own client). */
  extra?: readonly string[];
  /** Default `process.env`. */
  env?: NodeJS.ProcessEnv;
}

/** The secrets providers hold now (keys read lazily, AI SDK models resolved at their first call). */
export function providerSecrets(providers: readonly ModelProvider[]): string[] {
  const out: string[] = [];
  for (const p of providers) {
    try {
      out.push(...(p.secrets?.() ?? []));
    } catch {
      // A provider that cannot list its secrets leaves them to the environment and the key shapes.
    }
  }
  return out;
}

/** Every secret value of `sources` (unfiltered: the {@link Redactor} drops blank and short ones). */
export function workerSecrets(sources: SecretSources): string[] {
  const out = [...environmentSecrets(sources.env ?? process.env), ...(sources.extra ?? []), ...providerSecrets(sources.providers)];
  for (const name of sources.registry.names()) {
    for (const s of sources.registry.get(name).mcp ?? []) out.push(...mcpSecrets(s.kind === 'mcp_tools' ? s.server : s));
  }
  if (sources.storeSetting) out.push(...urlCredentials(sources.storeSetting));
  for (const id of sources.keyring?.ids ?? []) {
    const key = sources.keyring?.key(id);
    if (key) out.push(key.toString('base64'), key.toString('base64url'), key.toString('hex'));
  }
  return out;
}

/**
 * The worker's current {@link Redactor}. The environment, MCP servers, store setting, keyring and extra
 * values are read once (at worker start); providers are asked at each use (a few microseconds), and the
 * redactor is rebuilt only when what they hold changed (an AI SDK model resolved, a key set later).
 */
export class WorkerRedaction {
  private readonly fixed: readonly string[];
  private last: string | undefined;
  private redactor = new Redactor();

  constructor(private readonly sources: SecretSources) {
    this.fixed = workerSecrets({ ...sources, providers: [] });
  }

  /** The redactor for the secrets held now. */
  current(): Redactor {
    const held = providerSecrets(this.sources.providers);
    const key = held.join('\u0000');
    if (key !== this.last) {
      this.redactor = new Redactor([...this.fixed, ...held]);
      this.last = key;
    }
    return this.redactor;
  }
}
