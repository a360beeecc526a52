/**
 * Optional peer dependencies: the packages only some parts of durable-agent need (model SDKs, stores,
 * Redis, OpenTelemetry, MCP, the CLI's). A team installs the ones it uses; this module is the one place
 * they are loaded, on first use, so a part whose package is missing fails with one clear error naming
 * the package and the command to install it, not a stack trace from deep in `require`.
 */
import { DurableAgentError } from '../core/run/errors';

/** An optional part of durable-agent and the package it needs. */
export interface OptionalPeer {
  /** What needs the package, as users know it: an entry (`durable-agent/anthropic`) or a feature. */
  readonly feature: string;
  /** The npm package to install. */
  readonly packageName: string;
}

/** The optional peers durable-agent's own parts load. */
export const PEERS = {
  worker: { feature: 'durable-agent/worker', packageName: '@temporalio/worker' },
  anthropic: { feature: 'durable-agent/anthropic', packageName: '@anthropic-ai/sdk' },
  openai: { feature: 'durable-agent/openai', packageName: 'openai' },
  aiSdk: { feature: 'durable-agent/ai-sdk', packageName: '@ai-sdk/provider' },
  postgres: { feature: 'durable-agent/postgres', packageName: 'pg' },
  s3: { feature: 'durable-agent/s3', packageName: '@aws-sdk/client-s3' },
  redis: { feature: 'durable-agent/redis', packageName: 'ioredis' },
  mcp: { feature: 'durable-agent/mcp', packageName: '@modelcontextprotocol/sdk' },
  otelTraceNode: { feature: 'durable-agent/otel (tracing)', packageName: '@opentelemetry/sdk-trace-node' },
  otelTraceBase: { feature: 'durable-agent/otel (tracing)', packageName: '@opentelemetry/sdk-trace-base' },
  otelResources: { feature: 'durable-agent/otel (tracing)', packageName: '@opentelemetry/resources' },
  otelExporter: { feature: 'durable-agent/otel (OTLP export)', packageName: '@opentelemetry/exporter-trace-otlp-http' },
  temporalOtel: { feature: 'durable-agent/otel (tracing)', packageName: '@temporalio/interceptors-opentelemetry' },
  tsx: { feature: 'durable-agent --agents <file>.ts', packageName: 'tsx' },
  ora: { feature: 'the durable-agent CLI', packageName: 'ora' },
} as const satisfies Record<string, OptionalPeer>;

/**
 * A feature needs an optional package that is not installed. The message is one line that names the
 * package and the command: `durable-agent/anthropic needs the package @anthropic-ai/sdk: npm install @anthropic-ai/sdk`.
 */
export class MissingPeerError extends DurableAgentError {
  /** The npm package to install. */
  readonly packageName: string;
  /** What needs it. */
  readonly feature: string;

  constructor(peer: OptionalPeer, options?: { cause?: unknown }) {
    super('missing_peer', missingPeerMessage(peer), options);
    this.packageName = peer.packageName;
    this.feature = peer.feature;
  }
}

/** The one-line message of a missing peer. */
export function missingPeerMessage(peer: OptionalPeer): string {
  return `${peer.feature} needs the package ${peer.packageName}: npm install ${peer.packageName}`;
}

/** True when `err` is Node's "cannot find module" for `specifier` itself (not for a module it requires). */
function notFound(err: unknown, specifier: string): boolean {
  const e = err as { code?: unknown; message?: unknown } | null;
  return e?.code === 'MODULE_NOT_FOUND' && typeof e.message === 'string' && e.message.includes(`'${specifier}'`);
}

/**
 * Load an optional peer (or one of its modules: `specifier`, default the package itself). Throws
 * {@link MissingPeerError} when the package is not installed; any other load failure as it is.
 * Typed by the caller from the package's own types (`loadPeer<typeof import('pg')>(PEERS.postgres)`).
 */
export function loadPeer<T>(peer: OptionalPeer, specifier: string = peer.packageName): T {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- the one place optional peers load (see above)
    return require(specifier) as T;
  } catch (err) {
    if (notFound(err, specifier)) throw new MissingPeerError(peer, { cause: err });
    throw err;
  }
}
