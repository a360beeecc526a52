/**
 * Scheduled agents on the real dev server: a schedule's firings start normal agent runs that complete,
 * trigger starts one at once, pause stops firing, delete removes the schedule, the list shows it, and bad
 * specs are refused with clear errors. Every schedule made here is deleted afterwards.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentClient, ScheduleNotFoundError } from '../../src/client';
import type { AgentSchedule, AgentScheduleDescription } from '../../src/client';
import { DurableAgentError, isDurableAgentError } from '../../src/core/run/errors';
import { ScriptedAgents } from '../helpers/agents';
import type { Harness } from '../helpers/harness';
import { startHarness, testId } from '../helpers/harness';

const S = new ScriptedAgents();
const reporter = S.add('reporter', [{ text: 'report done' }]);

let h: Harness;
const created: string[] = [];

beforeAll(async () => {
  h = await startHarness({ agents: S.agents, providers: { scripted: S.provider } });
});
afterAll(async () => {
  for (const id of created) {
    await h.client
      .getSchedule(id)
      .delete()
      .catch(() => undefined);
  }
  await h?.stop();
});

/** Create a schedule of the reporter (remembered for cleanup). */
async function schedule(
  name: string,
  options: Omit<Parameters<AgentClient['schedule']>[1], 'input'> & { input?: string },
): Promise<AgentSchedule> {
  const scheduleId = testId(name);
  created.push(scheduleId);
  return h.client.schedule(reporter, { scheduleId, input: 'write the report', ...options });
}

/** Poll `read` until `done` holds of its value, at most `timeoutMs`. */
async function until<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T = await read();
  while (!done(last)) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; last: ${JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, 200));
    last = await read();
  }
  return last;
}

async function refusal(p: Promise<unknown>): Promise<DurableAgentError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(DurableAgentError);
  expect(isDurableAgentError(err, 'invalid_input')).toBe(true);
  return err as DurableAgentError;
}

describe('schedules', () => {
  it('fires on its interval; each firing is a normal run that completes success', async () => {
    const s = await schedule('every-second', { interval: '1s', maxSteps: 3, budget: { timeout: '5m', maxCostUsd: 1 }, note: 'test note' });
    const d = await until(
      'a first firing',
      () => s.describe(),
      (x) => x.recentRuns.length >= 1,
    );
    expect(d).toMatchObject<Partial<AgentScheduleDescription>>({
      scheduleId: s.scheduleId,
      agent: 'reporter',
      taskQueue: h.taskQueue,
      input: 'write the report',
      maxSteps: 3,
      budget: { timeoutMs: 300_000, maxCostUsd: 1 },
      overlap: 'skip',
      paused: false,
      note: 'test note',
    });
    expect(d.spec).toEqual({ intervalMs: 1000, text: 'every 1s' });
    const first = d.recentRuns[0]!;
    expect(first.workflowId.startsWith(`${s.scheduleId}-`)).toBe(true);
    const result = await h.client.get<typeof reporter>(first.workflowId).result();
    expect(result.status).toBe('success');
    expect(result.finalText).toBe('report done');
    const runs = await until(
      'the run to show success',
      () => s.runs(),
      (rs) => rs.some((r) => r.workflowId === first.workflowId && r.status === 'success'),
    );
    expect(runs.every((r) => r.workflowId.startsWith(`${s.scheduleId}-`))).toBe(true);
    await s.delete();
  });

  it('trigger() starts a run at once, even while paused; pause stops firing and unpause resumes it', async () => {
    const s = await schedule('paused-cron', { cron: '0 0 1 1 *', paused: true });
    const before = await s.describe();
    expect(before.paused).toBe(true);
    expect(before.spec).toEqual({ cron: '0 0 1 1 *', text: 'cron "0 0 1 1 *"' });
    expect(before.recentRuns).toEqual([]);

    await s.trigger();
    const d = await until(
      'the triggered run',
      () => s.describe(),
      (x) => x.recentRuns.length === 1,
      10_000,
    );
    const result = await h.client.get(d.recentRuns[0]!.workflowId).result();
    expect(result.status).toBe('success');

    const every = await schedule('pause-me', { interval: '1s' });
    await until(
      'a first firing',
      () => every.describe(),
      (x) => x.runsStarted >= 1,
    );
    await every.pause();
    // A firing already due when pause landed may still show up: settle, then watch for 3 s.
    await new Promise((r) => setTimeout(r, 1200));
    const paused = await every.describe();
    expect(paused.paused).toBe(true);
    await new Promise((r) => setTimeout(r, 3000));
    expect((await every.describe()).runsStarted).toBe(paused.runsStarted);

    await every.unpause();
    await until(
      'a firing after unpause',
      () => every.describe(),
      (x) => x.runsStarted > paused.runsStarted,
    );
  });

  it('delete removes it: using it then throws ScheduleNotFoundError', async () => {
    const s = await schedule('delete-me', { interval: '1h' });
    await s.delete();
    const err = await s.describe().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ScheduleNotFoundError);
    expect(isDurableAgentError(err, 'schedule_not_found')).toBe(true);
    expect((err as Error).message).toContain(`no schedule with id "${s.scheduleId}"`);
    await expect(h.client.getSchedule(`missing-${s.scheduleId}`).trigger()).rejects.toBeInstanceOf(ScheduleNotFoundError);
    await expect(s.delete()).rejects.toBeInstanceOf(ScheduleNotFoundError);
  });

  it('schedules() lists the schedules of its task queue, not those of others', async () => {
    const s = await schedule('listed', { interval: '1h', paused: true });
    const otherQueue = new AgentClient(h.temporal, `${h.taskQueue}-other`);
    const otherId = testId('other-queue');
    created.push(otherId);
    await otherQueue.schedule(reporter, { scheduleId: otherId, interval: '1h', input: 'x', paused: true });

    // One made without durable-agent (no memo): found by its action's workflow type and task queue.
    const foreignId = testId('made-elsewhere');
    created.push(foreignId);
    await h.temporal.schedule.create({
      scheduleId: foreignId,
      spec: { intervals: [{ every: '2h' }] },
      action: { type: 'startWorkflow', workflowType: 'agentWorkflow', taskQueue: h.taskQueue, args: [{ agent: 'reporter', prompt: 'x' }] },
      state: { paused: true },
    });

    const list = await until(
      'the schedules in the list',
      () => h.client.schedules(),
      (l) => [s.scheduleId, foreignId].every((id) => l.some((x) => x.scheduleId === id)),
    );
    const mine = list.find((x) => x.scheduleId === s.scheduleId)!;
    expect(mine).toMatchObject({ agent: 'reporter', paused: true, spec: { intervalMs: 3_600_000, text: 'every 1h' }, recentRuns: [] });
    expect(list.find((x) => x.scheduleId === foreignId)).toMatchObject({
      agent: 'reporter',
      spec: { intervalMs: 7_200_000, text: 'every 2h' },
    });
    await until(
      "the other queue's schedule in its list",
      () => otherQueue.schedules(),
      (l) => l.some((x) => x.scheduleId === otherId),
    );
    expect((await h.client.schedules()).some((x) => x.scheduleId === otherId)).toBe(false);
  });

  it('refuses bad specs and options with invalid_input errors that say what to fix', async () => {
    const id = testId('bad');
    created.push(id);
    const base = { scheduleId: id, input: 'hi' };
    expect((await refusal(h.client.schedule(reporter, { ...base }))).message).toContain('give exactly one of cron');
    expect((await refusal(h.client.schedule(reporter, { ...base, cron: '* * * * *', interval: '5m' }))).message).toContain('not both');
    expect((await refusal(h.client.schedule(reporter, { ...base, interval: '500ms' }))).message).toContain("at least '1s'");
    expect((await refusal(h.client.schedule(reporter, { ...base, interval: 'soon' }))).message).toContain('is not a duration');
    expect((await refusal(h.client.schedule(reporter, { ...base, interval: '1m', input: '  ' }))).message).toContain('input must be');
    expect((await refusal(h.client.schedule(reporter, { ...base, interval: '1m', maxSteps: 0 }))).message).toContain(
      'maxSteps must be a positive integer',
    );
    expect((await refusal(h.client.schedule(reporter, { ...base, interval: '1m', budget: { timeout: 'later' } }))).message).toContain(
      'options.budget',
    );
    // @ts-expect-error -- not an overlap policy
    expect((await refusal(h.client.schedule(reporter, { ...base, interval: '1m', overlap: 'sometimes' }))).message).toContain(
      'overlap "sometimes"',
    );
    expect((await refusal(h.client.schedule('', { ...base, interval: '1m' }))).message).toContain('agent must be');

    const badCron = await refusal(h.client.schedule(reporter, { ...base, cron: 'every tuesday' }));
    expect(badCron.message).toContain('invalid cron expression "every tuesday"');
    expect(badCron.message).toContain("'0 9 * * *'");
    await expect(h.client.getSchedule(id).describe()).rejects.toBeInstanceOf(ScheduleNotFoundError);

    await h.client.schedule(reporter, { ...base, interval: '1h', paused: true });
    const dup = await refusal(h.client.schedule(reporter, { ...base, interval: '1h' }));
    expect(dup.message).toContain(`a schedule with id "${id}" already exists`);
  });
});
