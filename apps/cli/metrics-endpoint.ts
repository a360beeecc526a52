/**
 * The CLI's `--metrics`, the worker's Prometheus endpoint: Temporal's runtime serves its own SDK metrics and the agent metrics
 * (recorded through Temporal's metric meters) at `http://<host:port>/metrics`. Set by the CLI's
 * `--metrics <host:port>` or `DURABLE_AGENT_METRICS`; read when the process installs Temporal's runtime
 * (once per process).
 */
import { DurableAgentError } from '../../src/entry/client';

/** Environment variable of the Prometheus endpoint's address (`host:port`). */
export const METRICS_ENV = 'DURABLE_AGENT_METRICS';

let chosen: string | undefined;

/**
 * `address` checked as `host:port` (a port 0-65535, a host or IP; `[::1]:9464` for IPv6).
 *
 * @throws {DurableAgentError} code `invalid_config` naming the value and the expected form.
 */
export function parseMetricsAddress(address: string, from = '--metrics'): string {
  const m = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.exec(address.trim());
  if (!m || Number(m[2]) > 65535) {
    throw new DurableAgentError(
      'invalid_config',
      `${from} "${address}" is not host:port; give where the Prometheus endpoint listens, e.g. 0.0.0.0:9464 or 127.0.0.1:9464`,
    );
  }
  return address.trim();
}

/** Serve metrics at `address` (`host:port`) when this process installs Temporal's runtime. @throws {DurableAgentError} as {@link parseMetricsAddress}. */
export function serveMetricsAt(address: string): void {
  chosen = parseMetricsAddress(address);
}

/**
 * Temporal's `telemetryOptions.metrics` for the chosen address (else `DURABLE_AGENT_METRICS`), or
 * nothing when neither is set.
 *
 * @throws {DurableAgentError} when `DURABLE_AGENT_METRICS` is not `host:port`.
 */
export function prometheusMetrics(): { metrics: { prometheus: { bindAddress: string } } } | Record<string, never> {
  const env = process.env[METRICS_ENV];
  const address = chosen ?? (env ? parseMetricsAddress(env, METRICS_ENV) : undefined);
  return address ? { metrics: { prometheus: { bindAddress: address } } } : {};
}
