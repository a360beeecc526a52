/**
 * The Temporal runtime's log in tests, kept in memory and shown only for a test that fails: a green run
 * stays quiet, a red one shows the warnings and errors logged while its failed test ran (and, at the end
 * of a file with a failure, those logged outside any test: its `beforeAll`/`afterAll` hooks).
 * `DURABLE_AGENT_TEST_LOGS=1` prints every warning and error as it comes instead (a level name, like
 * `INFO` or `debug`, prints from that level). test/setup/test-logs.ts wires it into vitest; the harness
 * installs it as the runtime's logger (`installTestRuntime`).
 */
import { formatWithOptions } from 'node:util';
import type { LogLevel, LogMetadata, Logger } from '@temporalio/common';

/** `LogTimestamp` of `@temporalio/worker` (not imported: this module loads in every test file, the worker's native bridge need not). */
const LogTimestamp = Symbol.for('log_timestamp');

const LEVELS: readonly LogLevel[] = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR'];
const severity = (level: LogLevel): number => LEVELS.indexOf(level);

/** One line of the log. */
export interface TestLogEntry {
  level: LogLevel;
  message: string;
  meta?: LogMetadata;
  at: Date;
}

/** How a {@link TestLogs} keeps and prints what it is given. */
export interface TestLogsOptions {
  /** Lowest level kept for a failed test. Default `WARN`. */
  keep?: LogLevel;
  /** Print from this level as entries come (and keep nothing); default: print only for failed tests. */
  live?: LogLevel;
  /** Entries kept per buffer (per test, and outside tests); older ones are dropped and counted. Default 500. */
  limit?: number;
  /** Where printed text goes. Default `console.error`. */
  write?: (text: string) => void;
}

/** Entries logged while one test (or no test) ran, with the count of those dropped past the limit. */
class LogBuffer {
  readonly entries: TestLogEntry[] = [];
  dropped = 0;
  constructor(private readonly limit: number) {}
  push(entry: TestLogEntry): void {
    this.entries.push(entry);
    if (this.entries.length > this.limit) {
      this.entries.shift();
      this.dropped++;
    }
  }
}

/** A Temporal `Logger` that keeps entries per running test and prints them when asked (a test failed). */
export class TestLogs implements Logger {
  /** The level printed as entries come, if any. */
  readonly live: LogLevel | undefined;
  private readonly keep: LogLevel;
  private readonly limit: number;
  private readonly write: (text: string) => void;
  /** The buffers of the tests running now (several with `describe.concurrent`: each gets every entry). */
  private readonly running = new Set<LogBuffer>();
  private outside: LogBuffer;

  constructor(options: TestLogsOptions = {}) {
    this.live = options.live;
    this.keep = options.keep ?? 'WARN';
    this.limit = options.limit ?? 500;
    this.write = options.write ?? ((text) => console.error(text));
    this.outside = new LogBuffer(this.limit);
  }

  /** Lowest level this logger does anything with (for the runtime's filter of core logs). */
  get level(): LogLevel {
    return this.live !== undefined && severity(this.live) < severity(this.keep) ? this.live : this.keep;
  }

  /**
   * Called before a test's entries are settled: the runtime's `flushLogs` (with core logs forwarded, the
   * runtime holds every entry about 100 ms to order them).
   */
  flushBeforeFinish: (() => void) | undefined;

  log(level: LogLevel, message: string, meta?: LogMetadata): void {
    const { [LogTimestamp]: nanos, ...rest } = meta ?? {};
    const at = typeof nanos === 'bigint' ? new Date(Number(nanos / 1_000_000n)) : new Date();
    const entry: TestLogEntry = { level, message, at, ...(Object.keys(rest).length > 0 ? { meta: rest } : {}) };
    if (this.live !== undefined) {
      if (severity(level) >= severity(this.live)) this.write(formatEntry(entry));
      return;
    }
    if (severity(level) < severity(this.keep)) return;
    if (this.running.size === 0) this.outside.push(entry);
    for (const buffer of this.running) buffer.push(entry);
  }
  trace(message: string, meta?: LogMetadata): void {
    this.log('TRACE', message, meta);
  }
  debug(message: string, meta?: LogMetadata): void {
    this.log('DEBUG', message, meta);
  }
  info(message: string, meta?: LogMetadata): void {
    this.log('INFO', message, meta);
  }
  warn(message: string, meta?: LogMetadata): void {
    this.log('WARN', message, meta);
  }
  error(message: string, meta?: LogMetadata): void {
    this.log('ERROR', message, meta);
  }

  /**
   * A test starts: entries logged until `finish` is called are kept for it. `finish(failed)` ends it and,
   * if it failed, prints them under `title`.
   */
  begin(title: string): (failed: boolean) => void {
    const buffer = new LogBuffer(this.limit);
    this.running.add(buffer);
    return (failed) => {
      this.flushBeforeFinish?.();
      this.running.delete(buffer);
      if (failed) this.print(buffer, `the Temporal runtime's log while "${title}" ran`);
    };
  }

  /** Print (if `failed`) and forget the entries logged while no test ran. */
  finishOutside(failed: boolean, title: string): void {
    this.flushBeforeFinish?.();
    const buffer = this.outside;
    this.outside = new LogBuffer(this.limit);
    if (failed) this.print(buffer, `the Temporal runtime's log outside tests in ${title}`);
  }

  private print(buffer: LogBuffer, title: string): void {
    if (buffer.entries.length === 0) return;
    const dropped = buffer.dropped > 0 ? `, the first ${buffer.dropped} dropped` : '';
    this.write(
      [`${title} (${count(buffer.entries.length + buffer.dropped)} from ${this.keep}${dropped}):`, ...buffer.entries.map(formatEntry)].join(
        '\n',
      ),
    );
  }
}

const count = (n: number): string => `${n} ${n === 1 ? 'entry' : 'entries'}`;

/** One entry as Temporal's `DefaultLogger` prints it: time, level, message, metadata (stacks included). */
export function formatEntry(entry: TestLogEntry): string {
  const meta = entry.meta ? ` ${formatWithOptions({ colors: false }, entry.meta)}` : '';
  return `${entry.at.toISOString()} [${entry.level}] ${entry.message}${meta}`;
}

/**
 * The options `DURABLE_AGENT_TEST_LOGS` asks for: unset, empty or `0` keep logs for failed tests; `1`
 * prints warnings and errors as they come; a level name prints from that level.
 */
export function testLogsOptionsFromEnv(value: string | undefined): TestLogsOptions {
  if (value === undefined || value === '' || value === '0') return {};
  if (value === '1') return { live: 'WARN' };
  const level = value.toUpperCase() as LogLevel;
  if (!LEVELS.includes(level))
    throw new Error(`DURABLE_AGENT_TEST_LOGS must be 0, 1 or one of ${LEVELS.join(', ')}; got ${JSON.stringify(value)}`);
  return { live: level };
}

/** This test process's log: the Temporal runtime's logger in tests (test/helpers/harness.ts). */
export const testLogs = new TestLogs(testLogsOptionsFromEnv(process.env.DURABLE_AGENT_TEST_LOGS));
