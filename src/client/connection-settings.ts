/**
 * Where and how to connect to Temporal, shared by clients and workers: Temporal's environment
 * configuration (`@temporalio/envconfig`: `TEMPORAL_ADDRESS`, `TEMPORAL_NAMESPACE`, `TEMPORAL_API_KEY`,
 * `TEMPORAL_TLS*`, `TEMPORAL_GRPC_META_*`, profiles from `TEMPORAL_PROFILE` and the config file at
 * `TEMPORAL_CONFIG_FILE` or the default path), with explicit options winning over all of it.
 * Loads no Temporal connection code itself, so the client and the worker each bring their own.
 */
import { loadClientConnectConfig } from '@temporalio/envconfig';
import type { TLSConfig } from '@temporalio/client';
import { DurableAgentError } from '../core/run/errors';

/** Connection settings a user may give explicitly; each wins over the environment configuration. */
export interface ConnectionSettings {
  /** `host:port` of the Temporal frontend. Default: `TEMPORAL_ADDRESS`, the profile's address, else `localhost:7233`. */
  address?: string;
  /** Default: `TEMPORAL_NAMESPACE`, the profile's namespace, else `default`. */
  namespace?: string;
  /** API key (Temporal Cloud). Default: `TEMPORAL_API_KEY` or the profile's; turns TLS on unless `tls` says otherwise. */
  apiKey?: string;
  /** TLS: `true` for system roots, a config for certificates, `false` to turn it off. Default: from the environment configuration. */
  tls?: boolean | TLSConfig;
  /** Profile of the Temporal config file. Default: `TEMPORAL_PROFILE`, else `default`. */
  profile?: string;
  /** Path of the Temporal config file (TOML). Default: `TEMPORAL_CONFIG_FILE`, else Temporal's default path. */
  configFile?: string;
  /** Set false to ignore the environment and the config file entirely (only explicit options and defaults). */
  envConfig?: boolean;
}

/** The settings to connect with, after merging explicit options over the environment configuration. */
export interface ResolvedConnectionSettings {
  address: string;
  namespace: string;
  apiKey?: string;
  tls?: boolean | TLSConfig;
  /** gRPC metadata from the profile or `TEMPORAL_GRPC_META_*`. */
  metadata?: Record<string, string>;
}

/** Default address of a local Temporal server. */
export const DEFAULT_ADDRESS = 'localhost:7233';
/** Default namespace. */
export const DEFAULT_NAMESPACE = 'default';

/**
 * Merge `options` over Temporal's environment configuration (`env`, default `process.env`).
 *
 * @throws {DurableAgentError} code `invalid_input` when the config file cannot be read or parsed, or
 * names no profile called `profile` / `TEMPORAL_PROFILE`.
 */
export function resolveConnectionSettings(
  options: ConnectionSettings = {},
  env: NodeJS.ProcessEnv = process.env,
): ResolvedConnectionSettings {
  let fromEnv: ReturnType<typeof loadClientConnectConfig> = { connectionOptions: {} };
  if (options.envConfig !== false) {
    try {
      fromEnv = loadClientConnectConfig({
        ...(options.profile !== undefined ? { profile: options.profile } : {}),
        ...(options.configFile !== undefined ? { configSource: { path: options.configFile } } : {}),
        overrideEnvVars: definedOnly(env),
      });
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      throw new DurableAgentError(
        'invalid_input',
        `cannot load the Temporal connection settings: ${message} (check TEMPORAL_PROFILE, TEMPORAL_CONFIG_FILE and the config file, or pass address/namespace explicitly)`,
        { cause: err },
      );
    }
  }
  const c = fromEnv.connectionOptions;
  const apiKey = options.apiKey ?? c.apiKey;
  const metadata = textMetadata(c.metadata);
  const envTls = c.tls ?? undefined; // null in Temporal's type means "not set"
  const tls = options.tls ?? (options.apiKey !== undefined && envTls === undefined ? true : envTls);
  return {
    address: options.address ?? c.address ?? DEFAULT_ADDRESS,
    namespace: options.namespace ?? fromEnv.namespace ?? DEFAULT_NAMESPACE,
    ...(apiKey !== undefined ? { apiKey } : {}),
    ...(tls !== undefined ? { tls } : {}),
    ...(metadata ? { metadata } : {}),
  };
}

/** gRPC metadata as text (the environment configuration only ever produces text values). */
function textMetadata(meta: Record<string, unknown> | undefined): Record<string, string> | undefined {
  const entries = Object.entries(meta ?? {}).filter((e): e is [string, string] => typeof e[1] === 'string');
  return entries.length ? Object.fromEntries(entries) : undefined;
}

function definedOnly(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined) out[k] = v;
  return out;
}
