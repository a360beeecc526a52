/** The command line: commands, options and how parse errors are reported (one line, non-zero exit). */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import { DEFAULT_TASK_QUEUE } from '../../src/entry/client';
import { METRICS_ENV, parseMetricsAddress } from './metrics-endpoint';
import { packageRoot } from './dev-server/temporal-cli';
import { oneLine } from './errors';
import { DEMO_AGENT_NAME } from './served';
import { collectPolicy } from './policy-flag';
import { DEFAULT_UI_PORT, REDIS_URL_ENV } from './target';
import type * as ApprovalsModule from './commands/approvals';
import type * as DeferModule from './commands/defer';
import type * as CancelModule from './commands/cancel';
import type * as CodecServerModule from './commands/codec-server';
import type * as DevModule from './commands/dev';
import type * as MessagesModule from './commands/messages';
import type * as AuditModule from './commands/audit';
import type * as ReportModule from './commands/report';
import type * as RulesModule from './commands/rules';
import type * as ReplayModule from './commands/replay';
import type * as ResultModule from './commands/result';
import type * as RunModule from './commands/run';
import type * as RunsModule from './commands/runs';
import type * as ScheduleModule from './commands/schedule';
import type * as ServeModule from './commands/serve';
import type * as TailModule from './commands/tail';
import type * as WorkerModule from './commands/worker';

/*
 * Each command's module is loaded when the command runs, so `--help`, `--version` and the commands that
 * only talk to the server never load what the others need (the worker runtime, the demo's model SDKs).
 */
/* eslint-disable @typescript-eslint/no-require-imports -- lazy loading, typed by the modules' own types */
const commands = {
  approvals: () => require('./commands/approvals') as typeof ApprovalsModule,
  defer: () => require('./commands/defer') as typeof DeferModule,
  audit: () => require('./commands/audit') as typeof AuditModule,
  cancel: () => require('./commands/cancel') as typeof CancelModule,
  codecServer: () => require('./commands/codec-server') as typeof CodecServerModule,
  dev: () => require('./commands/dev') as typeof DevModule,
  messages: () => require('./commands/messages') as typeof MessagesModule,
  report: () => require('./commands/report') as typeof ReportModule,
  replay: () => require('./commands/replay') as typeof ReplayModule,
  result: () => require('./commands/result') as typeof ResultModule,
  rules: () => require('./commands/rules') as typeof RulesModule,
  run: () => require('./commands/run') as typeof RunModule,
  runs: () => require('./commands/runs') as typeof RunsModule,
  schedule: () => require('./commands/schedule') as typeof ScheduleModule,
  serve: () => require('./commands/serve') as typeof ServeModule,
  tail: () => require('./commands/tail') as typeof TailModule,
  worker: () => require('./commands/worker') as typeof WorkerModule,
};
/* eslint-enable @typescript-eslint/no-require-imports */

/** The `--metrics <host:port>` option of the commands that host a worker. */
function metricsOption(cmd: Command): Command {
  return cmd.addOption(
    new Option(
      '--metrics <host:port>',
      "serve Prometheus metrics (Temporal's and the agents': tokens, cost, steps, tool latency, approvals) at http://<host:port>/metrics",
    )
      .env(METRICS_ENV)
      .argParser((value: string) => {
        try {
          return parseMetricsAddress(value);
        } catch (err) {
          throw new InvalidArgumentError((err as Error).message);
        }
      }),
  );
}

/** `--policy tool=rule`, repeatable. */
const POLICY_OPTION = [
  '--policy <tool=rule>',
  "run policy entry, repeatable or comma-separated: <tool>=allow|ask|deny, *=<rule> for the other tools, or on arguments <tool>:<condition>=<rule> (one per flag, e.g. 'refund:amount<=50=allow'; first match wins); only tightens approvals unless --approval-waiver; every tool must exist",
  collectPolicy,
] as const;
/** `--approval-waiver <identity>`. */
const WAIVER_OPTION = [
  '--approval-waiver <identity>',
  'the identity (e.g. ops:alice) allowed to approve, which lets --policy allow tools that need approval (recorded in the run)',
] as const;

/** The `--agents <file>` option. */
function agentsOption(cmd: Command, what: string): Command {
  return cmd.option('--agents <file>', `module (.ts, .js, .mjs or .cjs) exporting your agents (and optionally providers); ${what}`);
}

function positiveInt(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < 1) throw new InvalidArgumentError('must be a positive integer.');
  return n;
}

function nonNegativeInt(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n))
    throw new InvalidArgumentError('must be a whole number (0 or more): the seq of the last event already seen.');
  return n;
}

function port(value: string): number {
  const n = positiveInt(value);
  if (n > 65535) throw new InvalidArgumentError('must be a port number (1-65535).');
  return n;
}

/** A browser origin (`scheme://host[:port]`, a trailing path dropped) or `*`. */
function corsOrigin(value: string): string {
  const v = value.trim();
  if (v === '*') return v;
  try {
    const url = new URL(v);
    if (url.protocol === 'http:' || url.protocol === 'https:') return url.origin;
  } catch {
    // reported below
  }
  throw new InvalidArgumentError('must be an origin such as http://localhost:8233 (the Temporal UI), or *.');
}

function version(): string {
  try {
    return (JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version?: string }).version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
}

/** What `--redis-url` does on a command that hosts a worker or follows runs. */
const REDIS_HOSTS = 'a worker this command hosts publishes live deltas there';
const REDIS_FOLLOWS = 'the live answer is read from there';

/**
 * The connection options: `--address`, `--port`, `--task-queue` when `withTaskQueue`, and `--redis-url`
 * when `redis` says what it does on this command (checked when the command runs: `resolveTarget`).
 */
function connectionOptions(cmd: Command, withTaskQueue: boolean, redis?: string): Command {
  cmd
    .addOption(new Option('--address <host:port>', 'Temporal frontend address (default: localhost:<port>)').env('TEMPORAL_ADDRESS'))
    .addOption(new Option('--namespace <name>', 'Temporal namespace (default: default)').env('TEMPORAL_NAMESPACE'))
    .addOption(
      new Option('--port <port>', 'port of the embedded dev server, when the CLI starts one (default: 7233)')
        .env('DURABLE_AGENT_DEV_PORT')
        .argParser(port),
    );
  if (withTaskQueue) {
    cmd.addOption(
      new Option('--task-queue <name>', `task queue of the agent workers (default: each agent's own, ${DEFAULT_TASK_QUEUE}.<agent>)`).env(
        'DURABLE_AGENT_TASK_QUEUE',
      ),
    );
  }
  if (redis) {
    cmd.addOption(
      new Option(
        '--redis-url <url>',
        `Redis for live deltas over Redis Streams, redis://[user:password@]host:port (rediss:// for TLS): ${redis}`,
      ).env(REDIS_URL_ENV),
    );
  }
  return cmd;
}

/** Where commands report their exit code. */
export interface ProgramContext {
  exitCode: number;
  /** Aborted on Ctrl-C / SIGTERM. */
  signal: AbortSignal;
}

/** Build the `durable-agent` program. Commander errors are printed as one line and thrown (exitOverride). */
export function buildProgram(ctx: ProgramContext): Command {
  const program = new Command('durable-agent')
    .description('Run LLM agents durably on Temporal.')
    .version(version(), '-v, --version')
    .exitOverride()
    .configureOutput({ outputError: (str, write) => write(`${oneLine(str)}\n`) })
    .showSuggestionAfterError(true);

  connectionOptions(
    agentsOption(
      metricsOption(program.command('dev'))
        .description(
          'Start a Temporal dev server (unless one is reachable) and a worker hosting the demo agents (or yours); runs until Ctrl-C.',
        )
        .addOption(
          new Option('--ui-port <port>', 'port of the Temporal UI of the embedded server').default(DEFAULT_UI_PORT).argParser(port),
        )
        .addOption(new Option('--server-only', 'start (or find) the dev server only, without a worker: for your own workers')),
      'the worker hosts them instead of the demo agents',
    ),
    true,
    'the worker publishes live deltas there (besides its heartbeats)',
  ).action(async (flags) => {
    ctx.exitCode = await commands.dev().devCommand(flags, ctx.signal);
  });

  connectionOptions(
    agentsOption(
      metricsOption(
        program
          .command('worker')
          .description('Run a worker hosting the demo agents (or yours) against a running Temporal server; runs until Ctrl-C.'),
      ),
      'the worker hosts them instead of the demo agents',
    ),
    true,
    'the worker publishes live deltas there (besides its heartbeats)',
  ).action(async (flags) => {
    ctx.exitCode = await commands.worker().workerCommand(flags, ctx.signal);
  });

  connectionOptions(
    agentsOption(
      program
        .command('run')
        .description(
          'Start a run of an agent (the demo agent unless told otherwise), show it live (events, the answer as it streams, running tools), then its summary and run report.',
        )
        .argument('<prompt...>', 'what to ask the agent')
        .option('--agent <name>', `agent to run (default: ${DEMO_AGENT_NAME}, or the only agent of --agents)`)
        .option('--max-steps <n>', 'lower the step cap of this run', positiveInt)
        .option('--workflow-id <id>', 'workflow id of the run (default: <agent>-<uuid>)')
        .option('--json', 'print one stream event per line (deltas included), then {"type":"result","result":…} (the AgentRunResult)')
        .option(
          '--local-model',
          'run the demo agent on a tiny local model (Gemma 3 270M on llama.cpp, started for this run; install with `npm run setup:llama`): a real model, no key',
        )
        .option(...POLICY_OPTION)
        .option(...WAIVER_OPTION),
      'an in-process worker hosts them instead of the demo agents',
    ),
    true,
    `${REDIS_FOLLOWS}; ${REDIS_HOSTS}`,
  ).action(async (prompt: string[], flags) => {
    ctx.exitCode = await commands.run().runCommand(prompt, flags, ctx.signal);
  });

  const hostsFor =
    "when no worker polls the run's task queue, an in-process worker is started only for a run of one of these (or of the demo agents without --agents) on the --task-queue given";
  connectionOptions(
    agentsOption(
      program
        .command('tail')
        .alias('watch')
        .description(
          "Follow a run live until it ends (its events, the model's answer as it streams, running tools), then print its summary.",
        )
        .argument('<workflowId>', 'workflow id of the run')
        .option('--after <seq>', 'show only events after this seq (where an interrupted tail or run left off)', nonNegativeInt)
        .option('--json', 'print one stream event per line (deltas included), then {"type":"result","result":…}'),
      hostsFor,
    ),
    true,
    `${REDIS_FOLLOWS}; ${REDIS_HOSTS}`,
  ).action(async (workflowId: string, flags) => {
    ctx.exitCode = await commands.tail().tailCommand(workflowId, flags, ctx.signal);
  });

  connectionOptions(
    agentsOption(
      program
        .command('result')
        .description("Print a run's result (waiting for it to end).")
        .argument('<workflowId>', 'workflow id of the run')
        .option('--json', 'print only the result as JSON'),
      hostsFor,
    ),
    true,
    REDIS_HOSTS,
  ).action(async (workflowId: string, flags) => {
    ctx.exitCode = await commands.result().resultCommand(workflowId, flags, ctx.signal);
  });

  connectionOptions(
    agentsOption(
      program
        .command('cancel')
        .description('Cancel a run; it ends with status cancelled and its partial transcript.')
        .argument('<workflowId>', 'workflow id of the run'),
      hostsFor,
    ),
    true,
    REDIS_HOSTS,
  ).action(async (workflowId: string, flags) => {
    ctx.exitCode = await commands.cancel().cancelCommand(workflowId, flags, ctx.signal);
  });

  connectionOptions(
    program
      .command('approvals')
      .description(
        'List every tool call waiting for a person, across runs (with when it was deferred until, escalated to whom, and its assignee).',
      )
      .option('--json', 'print the list as JSON (with --watch: one change per line)')
      .option('--deferred', 'list deferred requests ("not now") too')
      .option(
        '--watch',
        'keep the list current until Ctrl-C (redrawn on a terminal; otherwise only changes are printed: + waiting, - gone)',
      ),
    false,
  ).action(async (flags) => {
    ctx.exitCode = await commands.approvals().approvalsCommand(flags, ctx.signal);
  });

  connectionOptions(
    program
      .command('runs')
      .description('List agent runs, newest first: workflow id, agent, status, start, steps and cost (— when unknown).')
      .option('--agent <name>', 'only runs of this agent')
      .option('--status <status>', 'only runs with this status (running, awaiting_approval, success, max_steps, …)')
      .option('--since <duration>', 'only runs started within this long, e.g. 30m, 24h, 7d')
      .option('--limit <n>', 'at most this many runs (default: 20)', positiveInt)
      .option('--json', 'print the list as JSON'),
    false,
  ).action(async (flags) => {
    ctx.exitCode = await commands.runs().runsCommand(flags);
  });

  connectionOptions(
    program
      .command('report')
      .description(
        "Print a finished run's report as tables: its steps, its tool calls and the totals (a running run: what its snapshot knows; exit code 2).",
      )
      .argument('<workflowId>', 'workflow id of the run')
      .option('--json', 'print the report as JSON'),
    false,
  ).action(async (workflowId: string, flags) => {
    ctx.exitCode = await commands.report().reportCommand(workflowId, flags);
  });

  connectionOptions(
    program
      .command('audit')
      .description(
        "Print a run's approval audit trail: who decided what on which call, when, through which path (sdk, cli, http, console, chat, temporal, rule, timeout, policy, parent), with reason and rule. Without a workflow id: the records across runs, as a table.",
      )
      .argument('[workflowId]', 'workflow id of the run (none: across runs)')
      .option('--children', "add the sub-agents' records")
      .option('--since <duration>', 'across runs: runs started and records made within this long', '24h')
      .option('--agent <name>', 'across runs: only runs of this agent')
      .option('--by <identity>', 'across runs: only records by this identity')
      .option('--tool <name>', 'across runs: only records of this tool')
      .option('--decision <decision>', 'across runs: approve, deny, skip, allow or fail')
      .option('--path <path>', 'across runs: sdk, cli, http, console, chat, temporal, rule, timeout, policy or parent')
      .option('--limit <n>', 'across runs: at most this many records')
      .option('--runs <n>', 'across runs: read at most this many of the newest runs (default 20)')
      .option('--json', 'print the records as JSON'),
    false,
  ).action(async (workflowId: string | undefined, flags) => {
    ctx.exitCode = await commands.audit().auditCommand(workflowId, flags);
  });

  const collect = (value: string, previous: string[] = []): string[] => [...previous, value];
  const rules = program
    .command('rules')
    .description(
      "The namespace's standing approval rules (session, agent, namespace scopes): list, add, remove, editors, history. Changes are made by an editor (--by).",
    );
  const change = (cmd: Command): Command =>
    connectionOptions(
      cmd
        .option('--by <identity>', 'who makes the change, an editor, e.g. ops:alice (default: cli:<user>)')
        .option('--reason <text>', 'why (kept in the change log)')
        .option('--expected-version <n>', 'refuse the change unless the rules are at this version (compare-and-set)')
        .option('--json', 'print the result as JSON'),
      false,
    );
  connectionOptions(
    rules.command('list').description('List the standing rules, their version and editors.').option('--json', 'print them as JSON'),
    false,
  ).action(async (flags) => {
    ctx.exitCode = await commands.rules().rulesListCommand(flags);
  });
  change(
    rules
      .command('add')
      .description(
        'Add a standing rule (or replace the one with --id): allow, ask or deny calls of a tool, optionally only when a condition on its arguments holds.',
      )
      .requiredOption('--tool <name>', 'the tool, or * for every tool')
      .requiredOption('--action <action>', 'allow, ask or deny')
      .option('--scope <scope>', 'namespace (default), agent (with --agent) or session (with --session)')
      .option('--agent <name>', 'the agent an agent rule applies to (implies --scope agent)')
      .option('--session <workflowId>', 'the conversation a session rule applies to (implies --scope session)')
      .option('--when <expr>', 'a condition on the arguments, e.g. amount<=50 or env=staging (repeat: all must hold)', collect)
      .option('--when-json <json>', 'a condition as JSON, e.g. {"path":"amount","op":"lte","value":50}')
      .option('--until <when>', 'the rule ends: a duration from now (8h) or an ISO date-time')
      .option('--id <id>', 'the rule id (replaces that rule; default: a new id r-<n>)'),
  ).action(async (flags) => {
    ctx.exitCode = await commands.rules().rulesAddCommand(flags);
  });
  change(rules.command('remove').description('Remove a standing rule.').argument('<id>', 'the rule id (see rules list)')).action(
    async (id: string, flags) => {
      ctx.exitCode = await commands.rules().rulesRemoveCommand(id, flags);
    },
  );
  change(
    rules
      .command('editors')
      .description('Print who may change the rules, or replace them with --set (an editor must make the change).')
      .option('--set <identities>', 'comma-separated identities, e.g. ops:alice,ops:bob'),
  ).action(async (flags) => {
    ctx.exitCode = await commands.rules().rulesEditorsCommand(flags);
  });
  connectionOptions(
    rules.command('history').description('Print the log of rule changes (who, what, when, how, why).').option('--json', 'print it as JSON'),
    false,
  ).action(async (flags) => {
    ctx.exitCode = await commands.rules().rulesHistoryCommand(flags);
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
      .option('--json', 'print what happened as JSON')
      .option(
        '--queue',
        "with no worker running: send the decision even for a call the run's recorded history does not hold yet (the run checks it when a worker starts)",
      );
    if (decision === 'approve') cmd.option('--all-calls', 'also approve every other call of this tool for the rest of the run');
    if (decision !== 'skip')
      cmd
        .option(
          '--for-run',
          decision === 'approve'
            ? 'approve and stop asking: also every waiting and later call of this tool in the run (see --match)'
            : 'always reject: also every waiting and later call of this tool in the run (see --match)',
        )
        .option('--match <what>', 'with --for-run: tool (every call of the tool, the default) or args (calls with the same arguments)');
    connectionOptions(cmd, false).action(async (workflowId: string, callId: string, flags) => {
      ctx.exitCode = await commands.approvals().decideCommand(decision, workflowId, callId, flags);
    });
  }
  connectionOptions(
    program
      .command('defer')
      .description('Defer a pending tool call ("not now"): it leaves the inbox until a time, then returns; not a decision.')
      .argument('<workflowId>', 'workflow id of the run')
      .argument('<callId>', 'id of the tool call (see durable-agent approvals)')
      .requiredOption('--until <when>', 'a duration from now (2h, 30m) or an ISO date-time; not after the request expires')
      .option('--by <identity>', 'who defers it, e.g. ops:alice (default: cli:<user>)')
      .option('--reason <text>', 'why, for the record')
      .option('--json', 'print what happened as JSON'),
    false,
  ).action(async (workflowId: string, callId: string, flags) => {
    ctx.exitCode = await commands.defer().deferCommand(workflowId, callId, flags);
  });
  connectionOptions(
    program
      .command('delegate')
      .description('Delegate a pending tool call to someone else: they may decide it (its approvers still may).')
      .argument('<workflowId>', 'workflow id of the run')
      .argument('<callId>', 'id of the tool call (see durable-agent approvals)')
      .requiredOption('--to <identity>', 'who it is delegated to, e.g. ops:bob')
      .option('--by <identity>', 'who delegates it, e.g. ops:alice (default: cli:<user>)')
      .option('--reason <text>', 'why, for the record')
      .option('--json', 'print what happened as JSON'),
    false,
  ).action(async (workflowId: string, callId: string, flags) => {
    ctx.exitCode = await commands.defer().delegateCommand(workflowId, callId, flags);
  });

  const schedule = program
    .command('schedule')
    .description('Scheduled agents on Temporal Schedules: each firing starts a run of the agent (a worker runs it).');
  connectionOptions(
    schedule
      .command('create')
      .description(
        'Create a schedule that starts a run of an agent on a cron expression or every interval (overlapping firings are skipped).',
      )
      .argument('<scheduleId>', 'id of the schedule; its runs are named <scheduleId>-<time>')
      .argument('<prompt...>', 'what each run asks the agent')
      .requiredOption('--agent <name>', 'agent each run starts')
      .option('--cron <expression>', 'when to fire, e.g. "0 9 * * *" (UTC; 5-7 fields, @daily, @hourly)')
      .option('--every <duration>', 'fire every this long, e.g. 30s, 5m, 1h (at least 1s)')
      .option('--max-steps <n>', 'lower the step cap of each run', positiveInt)
      .option('--paused', 'create it paused (durable-agent schedule unpause <id> starts it)')
      .option('--note <text>', 'a note for people, shown by schedule list')
      .option('--json', 'print the created schedule as JSON')
      .option(...POLICY_OPTION)
      .option(...WAIVER_OPTION)
      .option(
        '--agents <file>',
        'module exporting your agents: the --policy is checked against the agent now (without it, each run checks it)',
      ),
    true,
  ).action(async (scheduleId: string, prompt: string[], flags) => {
    ctx.exitCode = await commands.schedule().scheduleCreateCommand(scheduleId, prompt, flags);
  });
  connectionOptions(
    schedule
      .command('list')
      .description('List the schedules of agent runs on the task queue, with their next run times and recent runs.')
      .option('--json', 'print the list as JSON'),
    true,
  ).action(async (flags) => {
    ctx.exitCode = await commands.schedule().scheduleListCommand(flags);
  });
  connectionOptions(
    schedule
      .command('trigger')
      .description('Start a run of a schedule now (even while paused).')
      .argument('<scheduleId>', 'id of the schedule')
      .option('--json', 'print what happened as JSON'),
    true,
  ).action(async (scheduleId: string, flags) => {
    ctx.exitCode = await commands.schedule().scheduleTriggerCommand(scheduleId, flags, ctx.signal);
  });
  for (const action of ['pause', 'unpause'] as const) {
    connectionOptions(
      schedule
        .command(action)
        .description(action === 'pause' ? 'Stop a schedule firing (runs already started go on).' : 'Let a paused schedule fire again.')
        .argument('<scheduleId>', 'id of the schedule')
        .option('--json', 'print what happened as JSON'),
      true,
    ).action(async (scheduleId: string, flags) => {
      ctx.exitCode = await commands.schedule().schedulePauseCommand(action, scheduleId, flags);
    });
  }
  connectionOptions(
    schedule
      .command('delete')
      .description('Delete a schedule (runs already started go on).')
      .argument('<scheduleId>', 'id of the schedule')
      .option('--json', 'print what happened as JSON'),
    true,
  ).action(async (scheduleId: string, flags) => {
    ctx.exitCode = await commands.schedule().scheduleDeleteCommand(scheduleId, flags);
  });

  connectionOptions(
    program
      .command('send')
      .description('Send a running agent a message (a session answers it next; a busy run reads it at its next model call).')
      .argument('<workflowId>', 'workflow id of the run (the conversation id with --agent)')
      .argument('<text...>', 'the message')
      .option('--by <identity>', 'who writes, e.g. user:42 (with --agent, also recorded as the starter of a session it starts)')
      .option('--agent <name>', 'start a session of this agent under the workflow id if none runs (send-or-start)')
      .option('--json', 'print what happened as JSON'),
    true,
  ).action(async (workflowId: string, text: string[], flags) => {
    ctx.exitCode = await commands.messages().sendCommand(workflowId, text, flags);
  });

  connectionOptions(
    program
      .command('serve')
      .description(
        'Serve the HTTP API (start runs, read them, stream their events, send messages, cancel, decide approvals) with bearer tokens; runs until Ctrl-C.',
      )
      .addOption(
        new Option(
          '--tokens <file>',
          'JSON file of bearer tokens: { "tokens": { "<token>": { "identity": "ops:alice", "permissions": ["read", "start", "decide"] } } } (or DURABLE_AGENT_HTTP_TOKENS holding that JSON)',
        ).env('DURABLE_AGENT_HTTP_TOKENS_FILE'),
      )
      .addOption(new Option('--http-port <port>', 'port of the HTTP API (default: 8080)').env('DURABLE_AGENT_HTTP_PORT').argParser(port))
      .addOption(
        new Option('--host <host>', 'interface to listen on (default: 127.0.0.1; 0.0.0.0 for every interface)').env(
          'DURABLE_AGENT_HTTP_HOST',
        ),
      )
      .option(
        '--metrics-public',
        'serve GET /metrics (approvals waiting and their age, runs by phase, in Prometheus format) without a bearer token',
      )
      .option(
        '--agents <file>',
        "module exporting your agents: POST /runs checks a run's policy against the agent's tools before starting it (400)",
      ),
    true,
    "the event streams (GET /runs/:id/events) read runs' live deltas from there (the workers must publish them there)",
  ).action(async (flags) => {
    ctx.exitCode = await commands.serve().serveCommand(flags, ctx.signal);
  });

  program
    .command('codec-server')
    .description(
      'Serve the codec endpoint (POST /encode, /decode) that decrypts runs for the Temporal UI and CLI (temporal --codec-endpoint), with the keys of DURABLE_AGENT_KEYS; runs until Ctrl-C.',
    )
    .addOption(new Option('--port <port>', 'port to listen on (default: 8888)').env('DURABLE_AGENT_CODEC_PORT').argParser(port))
    .addOption(new Option('--host <host>', 'interface to listen on (default: 127.0.0.1)').env('DURABLE_AGENT_CODEC_HOST'))
    .addOption(
      new Option(
        '--cors-origin <origin>',
        'browser origin allowed to call it, e.g. http://localhost:8233 (the Temporal UI); repeat for more, * for any',
      ).argParser((value: string, previous: string[] | undefined) => [...(previous ?? []), corsOrigin(value)]),
    )
    .action(async (flags) => {
      ctx.exitCode = await commands.codecServer().codecServerCommand(flags, ctx.signal);
    });

  connectionOptions(
    program
      .command('replay')
      .description(
        'Replay the histories of recent agent runs against this code and print every run that would break (a CI step before deploying a worker): exit 0 when all replay, 1 when any would break, 2 when the check could not run.',
      )
      .option('--since <duration>', 'runs started within this long, e.g. 30m, 24h, 7d', '24h')
      .option('--agent <name>', 'only runs of this agent')
      .option('--query <query>', 'a visibility query the runs must also match, e.g. "ExecutionStatus = \'Running\'"')
      .option('--limit <n>', 'at most this many runs, newest first', positiveInt, 100)
      .option(
        '--workflows <path>',
        "replay against these workflows (a module exporting agentWorkflow, e.g. the entry your worker bundles) instead of durable-agent's own",
      ),
    false,
  ).action(async (flags) => {
    ctx.exitCode = await commands.replay().replayCommand(flags);
  });

  connectionOptions(
    program
      .command('end')
      .description('End a session once the model has answered what it was sent.')
      .argument('<workflowId>', 'workflow id of the session'),
    false,
  ).action(async (workflowId: string, flags) => {
    ctx.exitCode = await commands.messages().endCommand(workflowId, flags);
  });

  return program;
}
