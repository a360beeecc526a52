/**
 * `durable-agent schedule create|list|trigger|pause|unpause|delete`: scheduled agents on Temporal
 * Schedules. These only talk to the server (the schedule starts runs there; a worker runs them), so they
 * never host a worker.
 */
import { msToNumber } from '@temporalio/common';
import type { AgentScheduleSummary, ScheduledRunStatus } from '../../../src/entry/client';
import { DurableAgentError } from '../../../src/entry/client';
import { MIN_SCHEDULE_INTERVAL_MS, scheduledRunStatuses } from '../../../src/entry/client';
import { CliError } from '../errors';
import { Output } from '../terminal-output';
import { Session } from '../session';
import { definitionOf, parsePolicyFlag, withPolicyChecked } from '../policy-flag';
import { servedAgents } from '../served';
import type { ConnectionFlags } from '../target';
import { resolveTarget } from '../target';

/** Flags of `schedule create`. */
export interface ScheduleCreateFlags extends ConnectionFlags {
  agent: string;
  cron?: string;
  every?: string;
  maxSteps?: number;
  paused?: boolean;
  note?: string;
  json?: boolean;
  /** `--policy tool=rule` entries (repeatable, comma-separated). */
  policy?: string[];
  /** `--approval-waiver <identity>`: who may loosen approvals in the policy. */
  approvalWaiver?: string;
  /** A module of the user's agents: the policy is checked against the agent's definition before the schedule is created. */
  agents?: string;
}

/** Flags of the other `schedule` commands. */
export interface ScheduleFlags extends ConnectionFlags {
  json?: boolean;
}

async function withSession<T>(flags: ConnectionFlags, out: Output, body: (session: Session) => Promise<T>): Promise<T> {
  const session = await Session.open(resolveTarget(flags), { embed: 'if-state', log: (l) => out.note(l) });
  try {
    return await body(session);
  } finally {
    await session.close();
  }
}

/** The note printed when no worker polls the queue the schedule's runs go to. */
async function workerNote(session: Session, taskQueue: string, out: Output): Promise<void> {
  if (!(await session.hasWorker(taskQueue))) {
    out.note(`no worker polls task queue "${taskQueue}": its runs wait until one runs (durable-agent worker, or durable-agent dev)`);
  }
}

/** Milliseconds of `--every`, checked with the flag's name in the message. */
function everyMs(every: string): number {
  let ms: number;
  try {
    ms = msToNumber(every as Parameters<typeof msToNumber>[0]);
  } catch {
    throw new CliError(`--every "${every}" is not a duration: give one like 30s, 5m, 1h or "1 day"`);
  }
  if (!Number.isFinite(ms) || ms < MIN_SCHEDULE_INTERVAL_MS)
    throw new CliError(`--every "${every}" is too short: a schedule fires at most once a second (give at least 1s)`);
  return ms;
}

/** `schedule create <scheduleId> --agent NAME (--cron EXPR | --every DURATION) "<prompt>"`. */
export async function scheduleCreateCommand(scheduleId: string, prompt: string[], flags: ScheduleCreateFlags): Promise<number> {
  if (!scheduleId.trim()) throw new CliError('the schedule id is empty');
  if (!flags.agent?.trim()) throw new CliError('--agent must name the agent each run starts');
  if ((flags.cron === undefined) === (flags.every === undefined)) {
    throw new CliError(
      `give exactly one of --cron "<expression>" (e.g. --cron "0 9 * * *") and --every <duration> (e.g. --every 5m)${flags.cron !== undefined ? ', not both' : ''}`,
    );
  }
  const input = prompt.join(' ');
  if (!input.trim()) throw new CliError('the prompt is empty: say what each run should ask the agent');
  const when = flags.cron !== undefined ? { cron: flags.cron } : { interval: everyMs(flags.every as string) };
  const policy = parsePolicyFlag(flags.policy);
  // With --agents, the policy is checked against the agent's tools now; without, each run checks it.
  const definition = policy && flags.agents ? definitionOf((await servedAgents(flags.agents)).load().agents, flags.agent) : undefined;
  const out = new Output(Boolean(flags.json));
  return withSession(flags, out, async (session) => {
    const client = session.agentClient();
    try {
      const options = {
        scheduleId,
        input,
        ...when,
        ...(flags.maxSteps !== undefined ? { maxSteps: flags.maxSteps } : {}),
        ...(flags.paused ? { paused: true } : {}),
        ...(flags.note !== undefined ? { note: flags.note } : {}),
        ...(policy ? { policy } : {}),
        ...(flags.approvalWaiver !== undefined ? { approvalWaiver: { by: flags.approvalWaiver } } : {}),
      };
      await withPolicyChecked(() => (definition ? client.schedule(definition, options) : client.schedule(flags.agent, options)));
    } catch (err) {
      // The client's messages name its call (`schedule("x", options): …`); the CLI's user gave flags.
      if (err instanceof DurableAgentError && err.code === 'invalid_input') {
        throw new CliError(`cannot create schedule "${scheduleId}": ${err.message.replace(/^schedule\(".*?", options\): /, '')}`);
      }
      throw err;
    }
    const description = await client.getSchedule(scheduleId).describe();
    if (flags.json) {
      out.json(description);
      return 0;
    }
    const next = description.nextRunTimes[0];
    out.line(
      `created schedule ${scheduleId}: agent ${description.agent}, ${description.spec.text}${description.paused ? ', paused' : next ? `, next run ${next.toISOString()}` : ''}; ` +
        `runs are named ${scheduleId}-<time> on task queue "${description.taskQueue}"`,
    );
    await workerNote(session, description.taskQueue, out);
    return 0;
  });
}

function formatRun(run: ScheduledRunStatus): string {
  return `${run.workflowId}  ${run.status}  (started ${run.takenAt.toISOString()})`;
}

/** `schedule list [--json]`: the schedules of agent runs on the task queue, with their next and recent runs. */
export async function scheduleListCommand(flags: ScheduleFlags): Promise<number> {
  const out = new Output(Boolean(flags.json));
  return withSession(flags, out, async (session) => {
    const summaries = await session.agentClient().schedules();
    const schedules: Array<Omit<AgentScheduleSummary, 'recentRuns'> & { recentRuns: ScheduledRunStatus[] }> = await Promise.all(
      summaries.map(async (s) => ({ ...s, recentRuns: await scheduledRunStatuses(session.temporal, s.recentRuns) })),
    );
    if (flags.json) {
      out.json(schedules);
      return 0;
    }
    if (schedules.length === 0) {
      out.line(
        `no schedules of agent runs on ${session.target.taskQueue !== undefined ? `task queue "${session.target.taskQueue}"` : `their agents' own task queues`} (create one with: durable-agent schedule create)`,
      );
      return 0;
    }
    for (const s of schedules) {
      out.line(`${s.scheduleId}  agent ${s.agent}  ${s.spec.text}${s.paused ? '  paused' : ''}${s.note ? `  (${s.note})` : ''}`);
      out.line(
        `  next: ${
          s.nextRunTimes.length
            ? s.nextRunTimes
                .slice(0, 3)
                .map((d) => d.toISOString())
                .join(', ')
            : 'none'
        }`,
      );
      if (s.recentRuns.length === 0) out.line('  recent: none');
      else {
        out.line('  recent:');
        for (const r of s.recentRuns.slice(-5)) out.line(`    ${formatRun(r)}`);
      }
    }
    return 0;
  });
}

/** `schedule trigger <id>`: start a run now; prints its workflow id once the schedule reports it. */
export async function scheduleTriggerCommand(scheduleId: string, flags: ScheduleFlags, signal: AbortSignal): Promise<number> {
  const out = new Output(Boolean(flags.json));
  return withSession(flags, out, async (session) => {
    const schedule = session.agentClient().getSchedule(scheduleId);
    const before = await schedule.describe();
    const known = new Set(before.recentRuns.map((r) => r.workflowId));
    await schedule.trigger();
    // The schedule records the run a moment later; wait a bounded time for its id.
    const deadline = Date.now() + 10_000;
    let started: string | undefined;
    while (!started && Date.now() < deadline && !signal.aborted) {
      await new Promise((r) => setTimeout(r, 200));
      started = (await schedule.describe()).recentRuns.find((r) => !known.has(r.workflowId))?.workflowId;
    }
    if (flags.json) out.json({ scheduleId, triggered: true, workflowId: started ?? null });
    else if (started) out.line(`triggered ${scheduleId}: started run ${started} (follow it with: durable-agent watch ${started})`);
    else out.line(`triggered ${scheduleId}: the run starts in a moment (see: durable-agent schedule list)`);
    await workerNote(session, before.taskQueue, out);
    return 0;
  });
}

/** `schedule pause|unpause <id>`. */
export async function schedulePauseCommand(action: 'pause' | 'unpause', scheduleId: string, flags: ScheduleFlags): Promise<number> {
  const out = new Output(Boolean(flags.json));
  return withSession(flags, out, async (session) => {
    const schedule = session.agentClient().getSchedule(scheduleId);
    await schedule.describe(); // a schedule of something other than agent runs is refused, not changed
    if (action === 'pause') await schedule.pause();
    else await schedule.unpause();
    if (flags.json) out.json({ scheduleId, paused: action === 'pause' });
    else out.line(`${action}d ${scheduleId}${action === 'pause' ? ' (runs already started go on)' : ''}`);
    return 0;
  });
}

/** `schedule delete <id>`. */
export async function scheduleDeleteCommand(scheduleId: string, flags: ScheduleFlags): Promise<number> {
  const out = new Output(Boolean(flags.json));
  return withSession(flags, out, async (session) => {
    const schedule = session.agentClient().getSchedule(scheduleId);
    await schedule.describe(); // a schedule of something other than agent runs is refused, not deleted
    await schedule.delete();
    if (flags.json) out.json({ scheduleId, deleted: true });
    else out.line(`deleted ${scheduleId} (runs already started go on)`);
    return 0;
  });
}
