/**
 * `durableAgentsClient(...)`: the client side of the durable-agent plugin, for a Temporal `Client` (or
 * `Connection`) of your own: it adds the payload codec agent workers use, so the client reads and
 * writes agent runs (and your workflows that run agents) with the same keys. No worker code.
 */
import type { DataConverter } from '@temporalio/common';
import { SimplePlugin } from '@temporalio/plugin';
import { EncryptionCodec } from '../integrations/encryption/payload-codec';
import type { EncryptionSetting } from '../integrations/encryption/setting';
import { resolveKeyring } from '../integrations/encryption/setting';
import { tracingClientInterceptors } from '../integrations/telemetry/client-tracing';
import type { TracingOptions } from '../integrations/telemetry/tracing';

/** Options of {@link durableAgentsClient}. */
export interface DurableAgentsClientOptions {
  /** The keys the workers use. Default: `DURABLE_AGENT_KEYS` when set; `false`: none. */
  encryption?: EncryptionSetting;
  /** OpenTelemetry tracing: starting a run (and signals, updates, queries) opens a span the run's trace continues. */
  tracing?: TracingOptions;
}

/**
 * A Temporal client plugin that adds durable-agent's payload codec (decryption and encryption with the
 * workers' keys; payloads pass unchanged without keys). Build an `AgentClient` over that client.
 *
 * @throws {DurableAgentError} code `invalid_config` when `DURABLE_AGENT_KEYS` is set but unusable.
 * @example
 * ```ts
 * import { Client, Connection } from '@temporalio/client';
 * import { AgentClient, durableAgentsClient } from 'durable-agent/client';
 *
 * const temporal = new Client({ connection: await Connection.connect(), plugins: [durableAgentsClient()] });
 * const agents = await AgentClient.connect({ client: temporal, taskQueue: 'orders' });
 * ```
 */
export function durableAgentsClient(options: DurableAgentsClientOptions = {}): SimplePlugin {
  const codec = new EncryptionCodec(resolveKeyring(options.encryption));
  return new SimplePlugin({
    name: 'durable-agent-client',
    dataConverter: (existing) => withCodec(existing, codec),
    ...(options.tracing ? { clientInterceptors: { workflow: tracingClientInterceptors(options.tracing) } } : {}),
  });
}

/** `existing` with `codec` appended to its payload codecs (once). */
export function withCodec(existing: DataConverter | undefined, codec: EncryptionCodec): DataConverter {
  const codecs = existing?.payloadCodecs ?? [];
  return { ...existing, payloadCodecs: codecs.includes(codec) ? codecs : [...codecs, codec] };
}
