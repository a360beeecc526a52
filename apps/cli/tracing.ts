/** The CLI's tracing: from the OpenTelemetry environment variables (`durable-agent/otel` `tracingFromEnv`), announced in one line. */
import { tracingFromEnv } from '../../src/entry/otel';
import type { TracingOptions } from '../../src/entry/client';
import { CliError, errorMessage } from './errors';
import type { Output } from './terminal-output';

/**
 * The tracing options the environment asks for (undefined when none), after one line saying where
 * traces go. The session that gets them flushes the last spans when it closes.
 *
 * @throws {CliError} naming the variable that is wrong.
 */
export function cliTracing(out: Output): TracingOptions | undefined {
  let traced;
  try {
    traced = tracingFromEnv();
  } catch (err) {
    throw new CliError(errorMessage(err));
  }
  if (!traced) return undefined;
  const { url, serviceName, captureContent } = traced.settings;
  out.note(`traces: OTLP/HTTP to ${url} (service.name ${serviceName}${captureContent ? ', with prompts and outputs' : ''})`);
  return traced.options;
}
