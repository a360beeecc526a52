/** The pure parts of telemetry/: the metrics address setting, GenAI message content, tool outcomes. */
import { afterEach, describe, expect, it } from 'vitest';
import { genAiMessages } from '../../src/integrations/telemetry/content';
import { toolOutcome } from '../../src/integrations/telemetry/activity-spans';
import { METRICS_ENV, parseMetricsAddress, prometheusMetrics } from '../../apps/cli/metrics-endpoint';
import { tracingFrom } from '../../src/integrations/telemetry/tracing';
import type { TracingOptions } from '../../src/integrations/telemetry/tracing';

describe('metrics address', () => {
  afterEach(() => {
    delete process.env[METRICS_ENV];
  });

  it('takes host:port, IPv6 in brackets', () => {
    expect(parseMetricsAddress('0.0.0.0:9464')).toBe('0.0.0.0:9464');
    expect(parseMetricsAddress('metrics.local:80')).toBe('metrics.local:80');
    expect(parseMetricsAddress('[::1]:9464')).toBe('[::1]:9464');
  });

  it('refuses anything else, naming the value and the form', () => {
    for (const bad of ['9464', 'localhost', ':9464', 'host:99999', 'http://host:9464']) {
      expect(() => parseMetricsAddress(bad), bad).toThrow(`--metrics "${bad}" is not host:port`);
    }
  });

  it('reads DURABLE_AGENT_METRICS when no address was chosen, naming the variable when it is bad', () => {
    expect(prometheusMetrics()).toEqual({});
    process.env[METRICS_ENV] = '127.0.0.1:9999';
    expect(prometheusMetrics()).toEqual({ metrics: { prometheus: { bindAddress: '127.0.0.1:9999' } } });
    process.env[METRICS_ENV] = 'nope';
    expect(() => prometheusMetrics()).toThrow(`${METRICS_ENV} "nope" is not host:port`);
  });
});

describe('GenAI message content', () => {
  it('maps text, reasoning, tool calls and results to the conventions parts; redacted thinking is left out', () => {
    const json = genAiMessages(
      [
        { role: 'user', content: [{ type: 'text', text: 'hi' }] },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'hmm', signature: 's' },
            { type: 'redacted_thinking', data: 'x' },
            { type: 'tool_use', id: 'c1', name: 'echo', input: { text: 'a' } },
          ],
        },
        { role: 'user', content: [{ type: 'tool_result', toolUseId: 'c1', output: { type: 'text', text: 'a' }, isError: false }] },
      ],
      'tool_use',
    );
    expect(JSON.parse(json)).toEqual([
      { role: 'user', parts: [{ type: 'text', content: 'hi' }] },
      {
        role: 'assistant',
        parts: [
          { type: 'reasoning', content: 'hmm' },
          { type: 'tool_call', id: 'c1', name: 'echo', arguments: { text: 'a' } },
        ],
        finish_reason: 'tool_use',
      },
      { role: 'user', parts: [{ type: 'tool_call_response', id: 'c1', response: 'a' }] },
    ]);
  });
});

describe('tool outcome', () => {
  const base = { output: { type: 'text' as const, text: '' }, isError: false, latencyMs: 1, attempt: 1 };
  it('is ok, error, blocked or unknown', () => {
    expect(toolOutcome(base)).toBe('ok');
    expect(toolOutcome({ ...base, isError: true })).toBe('error');
    expect(toolOutcome({ ...base, isError: true, hooks: [{ hook: 'beforeToolCall', action: 'blocked', reason: 'no' }] })).toBe('blocked');
    expect(toolOutcome({ ...base, outcomeUnknown: true })).toBe('unknown');
  });
});

describe('tracing options', () => {
  it('need a span processor, said with an example', () => {
    expect(() => tracingFrom({} as TracingOptions)).toThrow('tracing needs a spanProcessor');
  });
});
