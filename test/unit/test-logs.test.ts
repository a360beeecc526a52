/** `TestLogs` (test/helpers/test-logs.ts): what it keeps per test, prints for a failed one, and reads from the environment. */
import { describe, expect, it } from 'vitest';
import { TestLogs, testLogsOptionsFromEnv } from '../helpers/test-logs';

function logs(options: ConstructorParameters<typeof TestLogs>[0] = {}) {
  const printed: string[] = [];
  return { printed, log: new TestLogs({ ...options, write: (t) => printed.push(t) }) };
}

describe('TestLogs', () => {
  it("prints a failed test's warnings and errors (stacks included), nothing for a passing one", () => {
    const { printed, log } = logs();
    const passing = log.begin('passing');
    log.warn('passing warning');
    passing(false);
    const failing = log.begin('failing');
    log.info('an info line');
    log.error('failing error', { error: new Error('boom') });
    failing(true);
    expect(printed).toHaveLength(1);
    expect(printed[0]).toContain('"failing" ran (1 entry from WARN)');
    expect(printed[0]).toContain('[ERROR] failing error');
    expect(printed[0]).toContain('Error: boom');
    expect(printed.join('\n')).not.toContain('passing warning');
    expect(printed.join('\n')).not.toContain('an info line');
  });

  it('gives every running test the entries logged while it ran (concurrent tests), and keeps those outside tests apart', () => {
    const { printed, log } = logs();
    log.warn('before any test');
    const a = log.begin('a');
    const b = log.begin('b');
    log.warn('while both ran');
    a(false);
    log.warn('while b ran');
    b(true);
    expect(printed).toHaveLength(1);
    expect(printed[0]).toContain('while both ran');
    expect(printed[0]).toContain('while b ran');
    expect(printed[0]).not.toContain('before any test');
    log.finishOutside(true, 'the file');
    expect(printed[1]).toContain('outside tests in the file');
    expect(printed[1]).toContain('before any test');
    log.finishOutside(true, 'the file');
    expect(printed).toHaveLength(2); // forgotten once settled
  });

  it('keeps the newest entries past its limit and says how many it dropped', () => {
    const { printed, log } = logs({ limit: 2 });
    const done = log.begin('t');
    for (let i = 1; i <= 5; i++) log.warn(`warning ${i}`);
    done(true);
    expect(printed[0]).toContain('5 entries from WARN, the first 3 dropped');
    expect(printed[0]).not.toContain('warning 3');
    expect(printed[0]).toContain('warning 5');
  });

  it('live: prints from its level as entries come, and nothing again when a test fails', () => {
    const { printed, log } = logs({ live: 'INFO' });
    const done = log.begin('t');
    log.debug('debug line');
    log.info('info line');
    done(true);
    expect(printed).toHaveLength(1);
    expect(printed[0]).toMatch(/^\S+ \[INFO\] info line$/);
    expect(log.level).toBe('INFO');
  });

  it('flushes the runtime before settling a test', () => {
    const { printed, log } = logs();
    const done = log.begin('t');
    log.flushBeforeFinish = () => log.warn('held by the runtime until flushed');
    done(true);
    expect(printed[0]).toContain('held by the runtime until flushed');
  });
});

describe('DURABLE_AGENT_TEST_LOGS', () => {
  it('unset, empty or 0: keep; 1: warnings live; a level name: that level live; anything else: a clear error', () => {
    expect(testLogsOptionsFromEnv(undefined)).toEqual({});
    expect(testLogsOptionsFromEnv('')).toEqual({});
    expect(testLogsOptionsFromEnv('0')).toEqual({});
    expect(testLogsOptionsFromEnv('1')).toEqual({ live: 'WARN' });
    expect(testLogsOptionsFromEnv('debug')).toEqual({ live: 'DEBUG' });
    expect(() => testLogsOptionsFromEnv('yes')).toThrow(
      'DURABLE_AGENT_TEST_LOGS must be 0, 1 or one of TRACE, DEBUG, INFO, WARN, ERROR; got "yes"',
    );
  });
});
