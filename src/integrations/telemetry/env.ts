/**
 * Tracing from the OpenTelemetry environment variables, for processes that take no code (the CLI):
 * `OTEL_EXPORTER_OTLP_ENDPOINT` or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` turns it on (unless
 * `OTEL_TRACES_EXPORTER=none` or `OTEL_SDK_DISABLED=true`); spans go over OTLP/HTTP (JSON) through a
 * batch span processor; `OTEL_SERVICE_NAME` / `OTEL_RESOURCE_ATTRIBUTES` describe the process;
 * `DURABLE_AGENT_TRACE_CONTENT=1` records prompts and outputs.
 */
import type * as OtlpModule from '@opentelemetry/exporter-trace-otlp-http';
import type * as ResourcesModule from '@opentelemetry/resources';
import type * as TraceBaseModule from '@opentelemetry/sdk-trace-base';
import { DurableAgentError } from '../../core/run/errors';
import { loadPeer, PEERS } from '../optional-peer';
import type { TracingOptions } from './tracing';

/** Environment variable that records prompts, outputs, tool arguments and results on spans (`1` or `true`). */
export const TRACE_CONTENT_ENV = 'DURABLE_AGENT_TRACE_CONTENT';

/** What the environment asks for. */
export interface EnvTracingSettings {
  /** Where spans are posted (the traces endpoint, or the general one + `/v1/traces`). */
  url: string;
  /** `service.name` of this process: `OTEL_SERVICE_NAME`, else `service.name` in `OTEL_RESOURCE_ATTRIBUTES`, else `durable-agent`. */
  serviceName: string;
  captureContent: boolean;
}

const bad = (message: string) => new DurableAgentError('invalid_config', message);

function checkedUrl(value: string, name: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw bad(`${name} "${value}" is not a URL; give the collector's OTLP/HTTP address, e.g. http://localhost:4318`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw bad(`${name} "${value}" must be an http:// or https:// URL (OTLP over HTTP), e.g. http://localhost:4318`);
  return url.toString();
}

function flag(value: string | undefined, name: string): boolean {
  const v = value?.trim().toLowerCase() ?? '';
  if (v === '' || v === '0' || v === 'false') return false;
  if (v === '1' || v === 'true') return true;
  throw bad(`${name} "${value}" must be 1 or true (or 0, false)`);
}

/**
 * The tracing the environment asks for, or undefined when it asks for none.
 *
 * @throws {DurableAgentError} code `invalid_config` naming the variable: an endpoint that is not an
 * http(s) URL, an exporter other than `otlp`/`none`, the `grpc` protocol, a bad content flag.
 */
export function tracingSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): EnvTracingSettings | undefined {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return undefined;
  const exporters = (env.OTEL_TRACES_EXPORTER ?? '')
    .split(',')
    .map((e) => e.trim().toLowerCase())
    .filter(Boolean);
  if (exporters.includes('none')) return undefined;
  const other = exporters.find((e) => e !== 'otlp');
  if (other)
    throw bad(`OTEL_TRACES_EXPORTER "${env.OTEL_TRACES_EXPORTER}": durable-agent's command line exports traces with otlp only (or none)`);
  const specific = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  const general = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  if (!specific && !general) return undefined;
  for (const name of ['OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', 'OTEL_EXPORTER_OTLP_PROTOCOL']) {
    if (env[name]?.trim().toLowerCase() === 'grpc') {
      throw bad(
        `${name}=grpc: durable-agent's command line exports OTLP over HTTP; set it to http/json (or unset it) and point the endpoint at the collector's HTTP port (usually 4318)`,
      );
    }
  }
  const url = specific
    ? checkedUrl(specific, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT')
    : `${checkedUrl(general as string, 'OTEL_EXPORTER_OTLP_ENDPOINT').replace(/\/$/, '')}/v1/traces`;
  const serviceName = env.OTEL_SERVICE_NAME?.trim() || resourceServiceName(env.OTEL_RESOURCE_ATTRIBUTES) || 'durable-agent';
  return { url, serviceName, captureContent: flag(env[TRACE_CONTENT_ENV], TRACE_CONTENT_ENV) };
}

/** `service.name` as `OTEL_RESOURCE_ATTRIBUTES` gives it (`key=value` pairs, comma-separated, values percent-encoded). */
function resourceServiceName(attributes: string | undefined): string | undefined {
  for (const pair of (attributes ?? '').split(',')) {
    const at = pair.indexOf('=');
    if (at < 0 || pair.slice(0, at).trim() !== 'service.name') continue;
    const raw = pair.slice(at + 1).trim();
    try {
      return decodeURIComponent(raw) || undefined;
    } catch {
      return raw || undefined;
    }
  }
  return undefined;
}

/** Tracing options built from the environment, and what they were built from. */
export interface EnvTracing {
  options: TracingOptions;
  settings: EnvTracingSettings;
}

/**
 * Tracing options from `process.env` ({@link tracingSettingsFromEnv}): an `OTLPTraceExporter` (which
 * also reads `OTEL_EXPORTER_OTLP_HEADERS`, `_TIMEOUT`, `_COMPRESSION`) behind a `BatchSpanProcessor`,
 * and a resource from `OTEL_RESOURCE_ATTRIBUTES` with `service.name`. Undefined when tracing is off.
 * `tracingFrom(options).shutdown()` flushes the spans left.
 *
 * @throws {DurableAgentError} as {@link tracingSettingsFromEnv}.
 */
export function tracingFromEnv(): EnvTracing | undefined {
  const settings = tracingSettingsFromEnv(process.env);
  if (!settings) return undefined;
  const { OTLPTraceExporter } = loadPeer<typeof OtlpModule>(PEERS.otelExporter);
  const { BatchSpanProcessor } = loadPeer<typeof TraceBaseModule>(PEERS.otelTraceBase);
  const { Resource, envDetectorSync } = loadPeer<typeof ResourcesModule>(PEERS.otelResources);
  const resource = envDetectorSync.detect().merge(new Resource({ 'service.name': settings.serviceName }));
  return {
    settings,
    options: {
      spanProcessor: new BatchSpanProcessor(new OTLPTraceExporter({ url: settings.url })),
      resource,
      captureContent: settings.captureContent,
    },
  };
}
