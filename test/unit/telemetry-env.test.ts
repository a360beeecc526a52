/** Tracing from the OpenTelemetry environment variables (`durable-agent/otel`, used by the CLI). */
import { BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it } from 'vitest';
import { tracingFromEnv, tracingSettingsFromEnv } from '../../src/integrations/telemetry/env';

describe('tracingSettingsFromEnv', () => {
  it('is off without an endpoint, with OTEL_TRACES_EXPORTER=none, or with OTEL_SDK_DISABLED=true', () => {
    expect(tracingSettingsFromEnv({})).toBeUndefined();
    expect(tracingSettingsFromEnv({ OTEL_SERVICE_NAME: 'x', OTEL_TRACES_EXPORTER: 'otlp' })).toBeUndefined();
    expect(tracingSettingsFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_TRACES_EXPORTER: 'none' })).toBeUndefined();
    expect(tracingSettingsFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'TRUE' })).toBeUndefined();
  });

  it('posts to <endpoint>/v1/traces, or to the traces endpoint as given (which wins)', () => {
    expect(tracingSettingsFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toEqual({
      url: 'http://collector:4318/v1/traces',
      serviceName: 'durable-agent',
      captureContent: false,
    });
    expect(tracingSettingsFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'https://c.example/otlp/' })?.url).toBe(
      'https://c.example/otlp/v1/traces',
    );
    expect(
      tracingSettingsFromEnv({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://b:4318/custom',
        OTEL_TRACES_EXPORTER: 'otlp',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
      })?.url,
    ).toBe('http://b:4318/custom');
  });

  it('takes the service name and the content flag', () => {
    const s = tracingSettingsFromEnv({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318',
      OTEL_SERVICE_NAME: 'support',
      DURABLE_AGENT_TRACE_CONTENT: '1',
    });
    expect(s).toMatchObject({ serviceName: 'support', captureContent: true });
    expect(
      tracingSettingsFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', DURABLE_AGENT_TRACE_CONTENT: 'false' })?.captureContent,
    ).toBe(false);
    // service.name from OTEL_RESOURCE_ATTRIBUTES when OTEL_SERVICE_NAME is not set (which wins when it is).
    const attrs = {
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318',
      OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=prod,service.name=support%20bot',
    };
    expect(tracingSettingsFromEnv(attrs)?.serviceName).toBe('support bot');
    expect(tracingSettingsFromEnv({ ...attrs, OTEL_SERVICE_NAME: 'ops' })?.serviceName).toBe('ops');
  });

  it('names the variable that is wrong', () => {
    const on = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' };
    expect(() => tracingSettingsFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' })).toThrow(
      /OTEL_EXPORTER_OTLP_ENDPOINT "collector:4318" must be an http:\/\/ or https:\/\/ URL/,
    );
    expect(() => tracingSettingsFromEnv({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'not a url' })).toThrow(
      /OTEL_EXPORTER_OTLP_TRACES_ENDPOINT "not a url" is not a URL/,
    );
    expect(() => tracingSettingsFromEnv({ ...on, OTEL_TRACES_EXPORTER: 'zipkin' })).toThrow(/OTEL_TRACES_EXPORTER "zipkin".*otlp only/);
    expect(() => tracingSettingsFromEnv({ ...on, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toThrow(
      /OTEL_EXPORTER_OTLP_PROTOCOL=grpc.*http\/json/,
    );
    expect(() => tracingSettingsFromEnv({ ...on, DURABLE_AGENT_TRACE_CONTENT: 'yes' })).toThrow(
      /DURABLE_AGENT_TRACE_CONTENT "yes" must be 1 or true/,
    );
  });
});

describe('tracingFromEnv', () => {
  const saved = { ...process.env };
  afterEach(() => {
    process.env = { ...saved };
  });

  it('builds a batch span processor and a resource with service.name and OTEL_RESOURCE_ATTRIBUTES', async () => {
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = 'http://127.0.0.1:1';
    process.env.OTEL_SERVICE_NAME = 'support';
    process.env.OTEL_RESOURCE_ATTRIBUTES = 'deployment.environment=test';
    const traced = tracingFromEnv();
    expect(traced?.options.spanProcessor).toBeInstanceOf(BatchSpanProcessor);
    expect(traced?.options.resource?.attributes).toMatchObject({ 'service.name': 'support', 'deployment.environment': 'test' });
    expect(traced?.options.captureContent).toBe(false);
    await traced?.options.spanProcessor.shutdown();
    delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
    expect(tracingFromEnv()).toBeUndefined();
  });
});
