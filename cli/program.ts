/** The command line: commands, options and how parse errors are reported (one line, non-zero exit). */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import { DEFAULT_TASK_QUEUE } from '../core/contract';
import { DEMO_AGENT } from '../demo';
import { packageRoot } from '../server/temporal-cli';
import { approvalsCommand, decideCommand } from './commands/approvals';
import { cancelCommand } from './commands/cancel';
import { devCommand } from './commands/dev';
import { resultCommand } from './commands/result';
import { runCommand } from './commands/run';
import { watchCommand } from './commands/watch';
import { oneLine } from './errors';
import { DEFAULT_UI_PORT } from './target';

function positiveInt(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < 1) throw new InvalidArgumentError('must be a positive integer.');
  return n;
}

function port(value: string): number {
  const n = positiveInt(value);
  if (n > 65535) throw new InvalidArgumentError('must be a port number (1-65535).');
  return n;
}

function version(): string {
  try {
    return (JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version?: string }).version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
}

function connectionOptions(cmd: Command, withTaskQueue: boolean): Command {
  cmd
    .addOption(new Option('--address <host:port>', 'Temporal frontend address (default: localhost:<port>)').env('TEMPORAL_ADDRESS'))
    .addOption(
      new Option('--port <port>', 'port of the embedded dev server, when the CLI starts one (default: 7233)').env('DURABLE_AGENT_DEV_PORT').argParser(port),
    );
  if (withTaskQueue) {
    cmd.addOption(new Option('--task-queue <name>', `task queue of the agent workers (default: ${DEFAULT_TASK_QUEUE})`).env('DURABLE_AGENT_TASK_QUEUE'));
  }
  return cmd;
}

/** Where commands report their exit code. */
export interface ProgramContext {
  exitCode: number;
  /** Aborted on Ctrl-C / SIGTERM. */
  signal: AbortSignal;
  /** Called once before a command's action runs. */
  beforeAction?: () => void;
}

/** Build the `durable-agent` program. Commander errors are printed as one line and thrown (exitOverride). */
export function buildProgram(ctx: ProgramContext): Command {
  const program = new Command('durable-agent')
    .description('Run LLM agents durably on Temporal.')
    .version(version(), '-v, --version')
    .exitOverride()
    .configureOutput({ outputError: (str, write) => write(`${oneLine(str)}\n`) })
    .showSuggestionAfterError(true);
  program.hook('preAction', () => ctx.beforeAction?.());

  connectionOptions(
    program
      .command('dev')
      .description('Start a Temporal dev server (unless one is reachable) and a worker hosting the demo agents; runs until Ctrl-C.')
      .addOption(new Option('--ui-port <port>', 'port of the Temporal UI of the embedded server').default(DEFAULT_UI_PORT).argParser(port)),
    true,
  ).action(async (flags) => {
    ctx.exitCode = await devCommand(flags, ctx.signal);
  });

  connectionOptions(
    program
      .command('run')
      .description('Start a run of a demo agent, print its events as they arrive, then its result and run report.')
      .argument('<prompt...>', 'what to ask the agent')
      .option('--agent <name>', 'agent to run', DEMO_AGENT)
      .option('--max-steps <n>', 'lower the step cap of this run', positiveInt)
      .option('--workflow-id <id>', 'workflow id of the run (default: <agent>-<uuid>)')
      .option('--json', 'print only the result (AgentRunResult) as JSON'),
    true,
  ).action(async (prompt: string[], flags) => {
    ctx.exitCode = await runCommand(prompt, flags, ctx.signal);
  });

  connectionOptions(
    program
      .command('watch')
      .description("Follow a run's events until it ends, then print its result.")
      .argument('<workflowId>', 'workflow id of the run')
      .option('--json', 'print only the result as JSON'),
    false,
  ).action(async (workflowId: string, flags) => {
    ctx.exitCode = await watchCommand(workflowId, flags, ctx.signal);
  });

  connectionOptions(
    program
      .command('result')
      .description("Print a run's result (waiting for it to end).")
      .argument('<workflowId>', 'workflow id of the run')
      .option('--json', 'print only the result as JSON'),
    false,
  ).action(async (workflowId: string, flags) => {
    ctx.exitCode = await resultCommand(workflowId, flags, ctx.signal);
  });

  connectionOptions(
    program.command('cancel').description('Cancel a run; it ends with status cancelled and its partial transcript.').argument('<workflowId>', 'workflow id of the run'),
    false,
  ).action(async (workflowId: string, flags) => {
    ctx.exitCode = await cancelCommand(workflowId, flags, ctx.signal);
  });

  connectionOptions(
    program.command('approvals').description('List every tool call waiting for a person, across runs.').option('--json', 'print the list as JSON'),
    false,
  ).action(async (flags) => {
    ctx.exitCode = await approvalsCommand(flags);
  });

  const decisions = [
    ['approve', 'Approve a pending tool call: it runs (once).'],
    ['deny', 'Deny a pending tool call: the model is told it was denied, and why.'],
    ['skip', 'Skip a pending tool call: the model is told it was skipped.'],
  ] as const;
  for (const [decision, description] of decisions) {
    const cmd = program
      .command(decision)
      .description(description)
      .argument('<workflowId>', 'workflow id of the run')
      .argument('<callId>', 'id of the tool call (see durable-agent approvals)')
      .option('--by <identity>', 'who decides, e.g. ops:alice (default: cli:<user>)')
      .option('--reason <text>', 'why, for the model and the record')
      .option('--json', 'print what happened as JSON');
    if (decision === 'approve') cmd.option('--all-calls', 'also approve every other call of this tool for the rest of the run');
    connectionOptions(cmd, false).action(async (workflowId: string, callId: string, flags) => {
      ctx.exitCode = await decideCommand(decision, workflowId, callId, flags);
    });
  }

  return program;
}
