/** Entry point of the `durable-agent` command (see bin/durable-agent.js). */
import { CommanderError } from 'commander';
import { INTERRUPTED_EXIT } from './abort';
import { CliError, errorMessage } from './errors';
import { buildProgram } from './program';

/** Parse `argv` and run the command; returns the exit code. Errors become one `error: ` line on stderr. */
export async function main(argv: string[], signal: AbortSignal): Promise<number> {
  if (argv.length <= 2) {
    process.stderr.write('error: missing command (try: durable-agent --help)\n');
    return 1;
  }
  const ctx = { exitCode: 0, signal };
  try {
    await buildProgram(ctx).parseAsync(argv);
    return ctx.exitCode;
  } catch (err) {
    // Commander has printed its own one-line message (or the help/version) already.
    if (err instanceof CommanderError) return err.exitCode;
    // Whatever failed after Ctrl-C is a consequence of it (a terminal's Ctrl-C also stops the server).
    if (signal.aborted) return INTERRUPTED_EXIT;
    process.stderr.write(`error: ${errorMessage(err)}\n`);
    return err instanceof CliError ? err.exitCode : 1;
  }
}

function flush(stream: NodeJS.WriteStream): Promise<void> {
  if (stream.destroyed || !stream.writable) return Promise.resolve();
  return new Promise((resolve) => stream.write('', () => resolve()));
}

/** Run the CLI as a process: Ctrl-C / SIGTERM stop the command cleanly (twice: at once), then exit. */
export async function cli(argv: string[] = process.argv): Promise<never> {
  const controller = new AbortController();
  let signals = 0;
  const onSignal = () => {
    if (++signals > 1) process.exit(130);
    controller.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const code = await main(argv, controller.signal);
  await Promise.all([flush(process.stdout), flush(process.stderr)]);
  process.exit(code);
}
