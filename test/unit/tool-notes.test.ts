/**
 * A tool attempt's notes: progress and metrics bounds (core/tool-calls/{progress,metrics}.ts), the
 * per-attempt record, and how they reach the outcome, the event, the report, its views and the span.
 */
import { describe, expect, it } from 'vitest';
import { MAX_PROGRESS_DATA_BYTES, MAX_PROGRESS_MESSAGE_CHARS, boundProgress } from '../../src/core/tool-calls/progress';
import { MAX_TOOL_METRICS, MAX_TOOL_METRIC_STRING_CHARS, checkMetric } from '../../src/core/tool-calls/metrics';
import { ToolAttemptNotes } from '../../src/activities/tool-attempt';
import { fitted } from '../../src/activities/tool';
import { Redactor } from '../../src/core/messages/redact';
import { toolResultEvent } from '../../src/core/tool-calls/outcomes';
import type { Transition } from '../../src/core/loop/transitions';
import { applyModelStep, applyToolOutcomes } from '../../src/core/loop/transitions';
import { startLoop } from '../../src/core/loop/state';
import { agentSpec, modelStep, ok, use } from './core-fixtures';
import { ActivityFailure, ApplicationFailure, RetryState, TimeoutFailure, TimeoutType } from '@temporalio/common';
import type { ToolFailureDetails } from '../../src/core/run/contract';
import type { RunReport } from '../../src/core/run/result';
import { toolFailure } from '../../src/workflows/failures';
import { metricAttributes } from '../../src/integrations/telemetry/activity-spans';
import { toolCallNotes, toolCallsTable } from '../../apps/cli/report-format';
import { callOutcome, toolNotes } from '../../apps/console/src/format';
import { formatEvent } from '../../apps/cli/format';
import { stylesFor } from '../../apps/cli/terminal-output';
import type { AgentEvent } from '../../src/core/events/events';

const plainStyles = stylesFor({ isTTY: false });

describe('boundProgress', () => {
  it('keeps a progress report within its bounds as it is', () => {
    expect(boundProgress({ message: 'scanning', fraction: 0.4, data: { files: 3 } })).toEqual({
      message: 'scanning',
      fraction: 0.4,
      data: { files: 3 },
    });
    expect(boundProgress('just text')).toEqual({ message: 'just text' });
  });

  it('cuts a long message with an ellipsis, never inside a surrogate pair', () => {
    const long = boundProgress({ message: 'x'.repeat(1000) }).message;
    expect(long).toHaveLength(MAX_PROGRESS_MESSAGE_CHARS);
    expect(long.endsWith('…')).toBe(true);
    const emoji = boundProgress({ message: `${'x'.repeat(MAX_PROGRESS_MESSAGE_CHARS - 2)}😀😀` }).message;
    expect(emoji).toBe(`${'x'.repeat(MAX_PROGRESS_MESSAGE_CHARS - 2)}…`);
  });

  it('clamps the fraction to [0, 1] and drops one that is not a finite number', () => {
    expect(boundProgress({ message: 'm', fraction: 1.5 }).fraction).toBe(1);
    expect(boundProgress({ message: 'm', fraction: -2 }).fraction).toBe(0);
    for (const fraction of [Number.NaN, Infinity, '0.5', null]) expect(boundProgress({ message: 'm', fraction })).toEqual({ message: 'm' });
  });

  it('drops data that is too large or not JSON, and says why', () => {
    const big = boundProgress({ message: 'm', data: 'y'.repeat(MAX_PROGRESS_DATA_BYTES) });
    expect(big.data).toBeUndefined();
    expect(big.dataDropped).toMatch(/over the 4096-byte limit/);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(boundProgress({ message: 'm', data: cyclic }).dataDropped).toMatch(/not JSON/);
    expect(boundProgress({ message: 'm', data: 10n }).dataDropped).toMatch(/not JSON/);
    expect(boundProgress({ message: 'm', data: () => 1 }).dataDropped).toMatch(/not JSON \(function\)/);
    // What JSON keeps of it: an undefined field is dropped, NaN becomes null.
    expect(boundProgress({ message: 'm', data: { a: undefined, b: Number.NaN } }).data).toEqual({ b: null });
  });

  it('turns anything else into a message rather than throwing', () => {
    expect(boundProgress(undefined)).toEqual({ message: '' });
    expect(boundProgress(7)).toEqual({ message: '7' });
    expect(boundProgress({ message: 42 })).toEqual({ message: '42' });
    expect(boundProgress({})).toEqual({ message: '' });
  });
});

describe('checkMetric', () => {
  const none = new Set<string>();

  it('keeps numbers, booleans and strings, cutting long strings', () => {
    expect(checkMetric('rows', 3, none)).toBe(3);
    expect(checkMetric('cache.hit', true, none)).toBe(true);
    expect(checkMetric('source-url_1', 'https://x', none)).toBe('https://x');
    const cut = checkMetric('s', 'z'.repeat(1000), none) as string;
    expect(cut).toHaveLength(MAX_TOOL_METRIC_STRING_CHARS);
    expect(cut.endsWith('…')).toBe(true);
  });

  it('throws a TypeError for a bad name, a bad value or one name too many', () => {
    for (const name of ['', 'a b', 'x'.repeat(65), 'ü', 7]) expect(() => checkMetric(name, 1, none)).toThrow(/invalid metric name/);
    for (const value of [Number.NaN, Infinity, null, undefined, {}, [1], 1n])
      expect(() => checkMetric('m', value, none)).toThrow(TypeError);
    const full = new Set(Array.from({ length: MAX_TOOL_METRICS }, (_, i) => `m${i}`));
    expect(() => checkMetric('another', 1, full)).toThrow(/at most 32 metrics/);
    expect(checkMetric('m0', 2, full)).toBe(2); // replacing a name set already is fine
  });
});

describe('ToolAttemptNotes', () => {
  it('has nothing to say before the tool noted anything', () => {
    expect(new ToolAttemptNotes().snapshot()).toEqual({});
  });

  it('keeps the last value of each metric and the last progress, bounded and redacted', () => {
    const redactor = new Redactor(['s3cr3t-value']);
    const notes = new ToolAttemptNotes(() => redactor);
    notes.metrics.set('a', 1);
    notes.metrics.set('a', 2);
    notes.metrics.set('token', 'key s3cr3t-value');
    notes.setProgress({ message: 'first' });
    notes.setProgress({ message: 'using s3cr3t-value', fraction: 3 });
    const snap = notes.snapshot();
    expect(snap.metrics?.a).toBe(2);
    expect(snap.metrics?.token).not.toContain('s3cr3t-value');
    expect(snap.lastProgress?.fraction).toBe(1);
    expect(snap.lastProgress?.message).not.toContain('s3cr3t-value');
    expect(snap.lastProgress?.message).toMatch(/^using /);
    expect(() => notes.metrics.set('bad name', 1)).toThrow(TypeError);
  });
});

describe('metrics and last progress from the outcome to the event and the report', () => {
  it('copies them to the tool_result event and the report entry, and leaves them out when absent', () => {
    const spec = agentSpec();
    const t1: Transition = applyModelStep(startLoop(spec, 'go'), spec, modelStep([use('c1', 'read'), use('c2', 'read')]));
    if (t1.next.type !== 'run_tools') throw new Error('expected run_tools');
    const noted = { ...ok('c1', 'read', 'r'), metrics: { rows: 3, hit: true }, lastProgress: { message: 'done', fraction: 1 } };
    const plain = ok('c2', 'read', 'r');
    const t2 = applyToolOutcomes(t1.state, t1.next.plan, [noted, plain]);
    const [a, b] = t2.state.toolCalls;
    expect(a?.metrics).toEqual({ rows: 3, hit: true });
    expect(a?.lastProgress).toEqual({ message: 'done', fraction: 1 });
    expect(b).not.toHaveProperty('metrics');
    expect(b).not.toHaveProperty('lastProgress');
    expect(toolResultEvent(1, noted)).toMatchObject({ metrics: { rows: 3, hit: true }, lastProgress: { message: 'done', fraction: 1 } });
    expect(toolResultEvent(1, plain)).not.toHaveProperty('metrics');
  });
});

describe('a failed attempt carries its notes to the outcome', () => {
  it('toolFailure reads the metrics and last progress of the failure details; a timeout has none', () => {
    const details: ToolFailureDetails = { attempt: 2, latencyMs: 7, metrics: { a: 1 }, lastProgress: { message: 'half', fraction: 0.5 } };
    const cause = ApplicationFailure.create({ message: 'boom', type: 'Error', details: [details] });
    const activity = new ActivityFailure('activity failed', 'runTool', '1', RetryState.NON_RETRYABLE_FAILURE, 'w', cause);
    expect(toolFailure(activity)).toMatchObject({
      message: 'boom',
      attempts: 2,
      metrics: { a: 1 },
      lastProgress: { message: 'half', fraction: 0.5 },
    });
    const bare = ApplicationFailure.create({ message: 'boom', details: [{ attempt: 1, latencyMs: 0 }] });
    expect(toolFailure(bare)).not.toHaveProperty('metrics');
    expect(toolFailure(bare)).not.toHaveProperty('lastProgress');
    const timeout = new ActivityFailure(
      'x',
      'runTool',
      '1',
      RetryState.TIMEOUT,
      'w',
      new TimeoutFailure('t', undefined, TimeoutType.START_TO_CLOSE),
    );
    expect(toolFailure(timeout)).not.toHaveProperty('metrics');
  });
});

describe('metric span attributes', () => {
  it('names each metric durable_agent.tool.metric.<name>', () => {
    expect(metricAttributes({ rows: 3, 'cache.hit': true, source: 'db' })).toEqual({
      'durable_agent.tool.metric.rows': 3,
      'durable_agent.tool.metric.cache.hit': true,
      'durable_agent.tool.metric.source': 'db',
    });
    expect(metricAttributes(undefined)).toEqual({});
  });
});

describe('metrics and last progress in the report views', () => {
  const call = { step: 1, callId: 'c1', tool: 'scan', args: {}, latencyMs: 5, resultBytes: 2, stored: false, isError: false, attempts: 1 };
  const report = (toolCalls: RunReport['toolCalls']) => ({ toolCalls }) as RunReport;

  it('the CLI shows them in one cell, and the column only when a call has them', () => {
    const noted = { ...call, metrics: { rows: 3, hit: false }, lastProgress: { message: 'scanning\nfiles', fraction: 0.4 } };
    expect(toolCallNotes(noted)).toBe('rows=3 hit=false · last: scanning files (40%)');
    expect(toolCallNotes({ ...call, metrics: { long: 'x'.repeat(300) } })).toHaveLength(120);
    expect(toolCallsTable(report([noted, call])).join('\n')).toContain('metrics / progress');
    expect(toolCallsTable(report([noted, call]))[2]).toContain('rows=3 hit=false · last: scanning files (40%)');
    expect(toolCallsTable(report([call])).join('\n')).not.toContain('metrics / progress');
  });

  it('the console says the same in its notes cell', () => {
    expect(toolNotes({ metrics: { rows: 3 }, lastProgress: { message: 'done' } })).toBe('rows=3 · last: done');
    expect(toolNotes({})).toBe('');
  });

  it("the console outcome cell counts a consolidate call's child runs by how they ended", () => {
    const children = [
      { agent: 'a', status: 'success' },
      { agent: 'b', status: 'max_steps' },
      { agent: 'sum', status: 'success' },
    ];
    expect(callOutcome({ isError: false, children })).toBe('3 sub-agents: 2 success, 1 max_steps');
    expect(callOutcome({ isError: false, child: { status: 'success' } })).toBe('sub-agent success');
    expect(callOutcome({ isError: true, error: 'boom', children })).toBe('boom');
    expect(callOutcome({ isError: false })).toBe('ok');
  });
});

describe('metrics in the CLI event line', () => {
  it('a tool_result event line lists them after the size and latency', () => {
    const e = {
      type: 'tool_result',
      step: 1,
      callId: 'c1',
      tool: 'scan',
      isError: false,
      preview: 'found 3',
      bytes: 7,
      stored: false,
      latencyMs: 12,
      attempts: 1,
      metrics: { rows: 3, hit: true },
      at: '2026-01-01T00:00:00.000Z',
      seq: 1,
    } as AgentEvent;
    expect(formatEvent(e, plainStyles)[0]).toBe('[step 1] tool result scan ok (7 B, 12 ms, rows=3 hit=true): found 3');
  });
});

describe('a result too large to record keeps its notes', () => {
  it('fitted: the error result that replaces it carries the metrics and last progress', () => {
    const huge = { output: { type: 'text' as const, text: 'x'.repeat(400 * 1024) }, isError: false, latencyMs: 3, attempt: 1 };
    const r = fitted({ ...huge, metrics: { rows: 1 }, lastProgress: { message: 'done' } });
    expect(r.isError).toBe(true);
    expect(r.error).toMatch(/could not be recorded/);
    expect(r).toMatchObject({ metrics: { rows: 1 }, lastProgress: { message: 'done' } });
    expect(fitted(huge)).not.toHaveProperty('metrics');
  });
});
