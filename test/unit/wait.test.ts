/** The built-in wait tool's rules (core/wait.ts) and its definition (agents/wait.ts). */
import { describe, expect, it } from 'vitest';
import { waitTool } from '../../src/agents/wait';
import { toolSpec } from '../../src/agents/registry';
import { waitDuration, waitResultText } from '../../src/core/loop/wait';

const NOW = Date.parse('2026-01-01T00:00:00Z');
const DAY = 24 * 3600_000;

describe('waitDuration', () => {
  it('takes seconds or a future time', () => {
    expect(waitDuration({ seconds: 1.5 }, NOW, DAY)).toEqual({ ms: 1500 });
    expect(waitDuration({ until: '2026-01-01T00:01:00Z' }, NOW, DAY)).toEqual({ ms: 60_000 });
  });

  it('refuses what it cannot wait for, saying why', () => {
    expect(waitDuration({}, NOW, DAY)).toEqual({ error: 'give exactly one of "seconds" (a number) or "until" (an ISO 8601 time)' });
    expect(waitDuration({ seconds: 1, until: 'x' }, NOW, DAY)).toMatchObject({ error: expect.stringMatching(/exactly one/) });
    expect(waitDuration({ seconds: 0 }, NOW, DAY)).toEqual({ error: '"seconds" must be a positive number' });
    expect(waitDuration({ until: 'tomorrow' }, NOW, DAY)).toMatchObject({ error: expect.stringMatching(/ISO 8601/) });
    expect(waitDuration({ until: '2025-12-31T00:00:00Z' }, NOW, DAY)).toMatchObject({ error: expect.stringMatching(/not in the future/) });
    expect(waitDuration({ seconds: 2 * 86_400 }, NOW, DAY)).toEqual({ error: 'at most 24 h per call (asked for 48 h); wait again after' });
  });
});

describe('waitResultText', () => {
  it('says how long it slept and why it woke', () => {
    expect(waitResultText(2000, 2003, false)).toBe('Waited 2 s.');
    expect(waitResultText(60_000, 800, true)).toBe('Woke after 800 ms of 60 s: a new message arrived.');
    expect(waitResultText(7_200_000, 3_600_000, false)).toBe('Waited 60 min.');
  });
});

describe('waitTool', () => {
  it('is a read-only tool marked built-in, with its maximum in the spec the workflow gets', () => {
    const tool = waitTool({ maxWait: '1h' });
    expect(tool.name).toBe('wait');
    expect(toolSpec(tool)).toMatchObject({ name: 'wait', readOnly: true, builtin: { kind: 'wait', maxWaitMs: 3_600_000 } });
    expect(waitTool({ name: 'sleep' }).name).toBe('sleep');
    expect(() => waitTool({ maxWait: 0 })).toThrow(/maxWait must be a positive duration/);
  });
});
