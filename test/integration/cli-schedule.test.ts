/**
 * `durable-agent schedule …` as users run it, against the real dev server with a worker for the runs:
 * create, list (text and JSON, with recent runs and their status), trigger, pause/unpause, delete, and
 * the one-line errors of bad input. Every schedule made here is deleted afterwards.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { AgentScheduleSummary, ScheduledRunStatus } from '../../src/client';
import { ScriptedAgents } from '../helpers/agents';
import type { CliResult } from '../helpers/cli-run';
import { runCli, soleError, tempHome } from '../helpers/cli-run';
import type { Harness } from '../helpers/harness';
import { startHarness, testId } from '../helpers/harness';

const S = new ScriptedAgents();
S.add('reporter', [{ text: 'report done' }]);

const home = tempHome();
const address = inject('temporalAddress');
let h: Harness;
const created: string[] = [];

beforeAll(async () => {
  h = await startHarness({ agents: S.agents, providers: { scripted: S.provider } });
});
afterAll(async () => {
  for (const id of created)
    await h.client
      .getSchedule(id)
      .delete()
      .catch(() => undefined);
  await h?.stop();
});

/** `durable-agent schedule …args` against the test server and the harness's task queue. */
function schedule(...args: string[]): Promise<CliResult> {
  return runCli(['schedule', ...args, '--address', address, '--task-queue', h.taskQueue], { home });
}

type Listed = Omit<AgentScheduleSummary, 'recentRuns' | 'nextRunTimes'> & {
  nextRunTimes: string[];
  recentRuns: Array<Omit<ScheduledRunStatus, 'takenAt' | 'scheduledAt'>>;
};

/** `schedule list --json` until `done` holds, at most 20 s. */
async function listUntil(what: string, done: (list: Listed[]) => boolean): Promise<Listed[]> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const r = await schedule('list', '--json');
    expect(r.stderr).toBe('');
    const list = JSON.parse(r.stdout) as Listed[];
    if (done(list)) return list;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; last list: ${r.stdout}`);
    await new Promise((res) => setTimeout(res, 300));
  }
}

describe('durable-agent schedule', () => {
  it('create, list, trigger, pause, unpause and delete', async () => {
    const id = testId('cli-sched');
    created.push(id);
    const create = await schedule(
      'create',
      id,
      '--agent',
      'reporter',
      '--cron',
      '0 9 * * *',
      'write',
      'the',
      'report',
      '--max-steps',
      '4',
      '--paused',
    );
    expect(create.stderr).toBe('');
    expect(create.code).toBe(0);
    expect(create.stdout).toContain(
      `created schedule ${id}: agent reporter, cron "0 9 * * *", paused; runs are named ${id}-<time> on task queue "${h.taskQueue}"`,
    );
    const d = await h.client.getSchedule(id).describe();
    expect(d).toMatchObject({ agent: 'reporter', input: 'write the report', maxSteps: 4, paused: true, overlap: 'skip' });

    const listed = await listUntil('the new schedule', (l) => l.some((s) => s.scheduleId === id));
    expect(listed.find((s) => s.scheduleId === id)).toMatchObject({
      agent: 'reporter',
      paused: true,
      spec: { cron: '0 9 * * *' },
      recentRuns: [],
    });

    const trigger = await schedule('trigger', id);
    expect(trigger.stderr).toBe('');
    expect(trigger.code).toBe(0);
    const started = /started run (\S+) \(follow it with: durable-agent watch \1\)/.exec(trigger.stdout)?.[1];
    expect(started, trigger.stdout).toBeDefined();
    expect(started!.startsWith(`${id}-`)).toBe(true);
    expect((await h.client.get(started!).result()).status).toBe('success');

    await listUntil('the triggered run with status success', (l) =>
      l.some((s) => s.scheduleId === id && s.recentRuns.some((r) => r.workflowId === started && r.status === 'success')),
    );
    const text = await schedule('list');
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(`${id}  agent reporter  cron "0 9 * * *"  paused`);
    expect(text.stdout).toContain(`    ${started}  success  (started `);

    const unpause = await schedule('unpause', id);
    expect(unpause.stdout.trim()).toBe(`unpaused ${id}`);
    const active = await h.client.getSchedule(id).describe();
    expect(active.paused).toBe(false);
    expect(active.nextRunTimes.length).toBeGreaterThan(0);
    expect((await schedule('pause', id)).stdout.trim()).toBe(`paused ${id} (runs already started go on)`);
    expect((await h.client.getSchedule(id).describe()).paused).toBe(true);

    const del = await schedule('delete', id);
    expect(del.code).toBe(0);
    expect(del.stdout.trim()).toBe(`deleted ${id} (runs already started go on)`);
    await listUntil('the deleted schedule to leave the list', (l) => !l.some((s) => s.scheduleId === id));
  });

  it('an interval schedule fires on its own', async () => {
    const id = testId('cli-every');
    created.push(id);
    const create = await schedule('create', id, '--agent', 'reporter', '--every', '1s', 'tick');
    expect(create.stderr).toBe('');
    expect(create.stdout).toContain(`created schedule ${id}: agent reporter, every 1s, next run `);
    await listUntil('a firing that succeeded', (l) =>
      l.some((s) => s.scheduleId === id && s.recentRuns.some((r) => r.status === 'success')),
    );
    expect((await schedule('delete', id)).code).toBe(0);
  });

  it('bad input: one error line and a non-zero exit', async () => {
    const id = testId('cli-bad');
    created.push(id);
    expect(soleError(await schedule('create', id, '--agent', 'reporter', 'hi'))).toBe(
      'error: give exactly one of --cron "<expression>" (e.g. --cron "0 9 * * *") and --every <duration> (e.g. --every 5m)',
    );
    expect(soleError(await schedule('create', id, '--agent', 'reporter', '--cron', '* * * * *', '--every', '5m', 'hi'))).toContain(
      ', not both',
    );
    expect(soleError(await schedule('create', id, '--agent', 'reporter', '--every', 'soon', 'hi'))).toBe(
      'error: --every "soon" is not a duration: give one like 30s, 5m, 1h or "1 day"',
    );
    expect(soleError(await schedule('create', id, '--agent', 'reporter', '--every', '500ms', 'hi'))).toContain('is too short');
    expect(soleError(await schedule('create', id, '--every', '5m', 'hi'))).toBe("error: required option '--agent <name>' not specified");
    expect(soleError(await schedule('create', id, '--agent', 'reporter', '--every', '5m', ' '))).toContain('the prompt is empty');
    const cron = soleError(await schedule('create', id, '--agent', 'reporter', '--cron', 'every tuesday', 'hi'));
    expect(cron).toMatch(
      new RegExp(`^error: cannot create schedule "${id}": invalid cron expression "every tuesday": .+ \\(expected 5-7 fields`),
    );

    expect((await schedule('create', id, '--agent', 'reporter', '--every', '1h', '--paused', 'hi')).code).toBe(0);
    expect(soleError(await schedule('create', id, '--agent', 'reporter', '--every', '1h', 'hi'))).toBe(
      `error: cannot create schedule "${id}": a schedule with id "${id}" already exists: choose another scheduleId, or delete that schedule first`,
    );

    for (const cmd of ['trigger', 'pause', 'unpause', 'delete']) {
      expect(soleError(await schedule(cmd, `missing-${id}`))).toBe(
        `error: no schedule with id "missing-${id}" (list them with: durable-agent schedule list)`,
      );
    }
  });
});
