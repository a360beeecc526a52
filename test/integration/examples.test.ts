/**
 * The README's examples (examples/*.ts) run for real: each example's `main` against the shared dev
 * server, with a worker hosting that example's agents, and its outcome checked.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { Agent } from '../../src/agents/define';
import type { AgentRun } from '../../src/client';
import * as background from '../../examples/background-agent';
import * as schedule from '../../examples/schedule';
import * as session from '../../examples/session';
import type { ModelProvider } from '../../src/integrations/providers/types';
import { allEvents } from '../helpers/events';
import type { Harness } from '../helpers/harness';
import { startHarness, testId } from '../helpers/harness';

const harnesses: Harness[] = [];
afterAll(async () => {
  for (const h of harnesses) await h.stop();
});

/** A worker for one example's agents and providers, on a task queue of its own. */
async function host(example: { agents: Agent[]; providers: Record<string, ModelProvider> }): Promise<Harness> {
  const h = await startHarness({ agents: example.agents, providers: example.providers });
  harnesses.push(h);
  return h;
}

const lines: string[] = [];
const log = (line: string) => lines.push(line);

describe('examples', () => {
  it('session: three user turns sent on awaiting_message, each answered, then ended', async () => {
    const h = await host(session);
    const workflowId = testId('example-session');
    const result = await session.main(h.client, log, workflowId);
    expect(result.status).toBe('success');
    const said = result.messages
      .filter((m) => m.role === 'user')
      .flatMap((m) => m.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])));
    expect(said).toEqual(['Where is order 42?', 'And order 7?', 'Thanks, that is all.']);
    expect(result.report.steps.map((s) => s.turn)).toEqual([1, 1, 2, 2, 3]);
    expect(result.report.toolCalls.map((c) => c.args)).toEqual([{ orderId: '42' }, { orderId: '7' }]);
    expect(result.finalText).toBe('You are welcome. Goodbye!');
    expect(lines).toContain('agent: That order is waiting for stock.');
    const events = await allEvents(h.client.get(workflowId) as AgentRun);
    expect(events.filter((e) => e.type === 'awaiting_message')).toHaveLength(3);
  });

  it('background agent: pauses once on its token budget, is extended, continues as new, and finishes every page', async () => {
    const h = await host(background);
    const workflowId = testId('example-background');
    const { result, extensions, executions } = await background.main(h.client, log, workflowId);
    expect(result.status).toBe('success');
    expect(result.steps).toBe(background.PAGES + 1);
    expect(result.finalText).toBe(`Read all ${background.PAGES} pages of the manual.`);
    expect(extensions).toBe(1);
    expect(result.usage.inputTokens + result.usage.outputTokens).toBe((background.PAGES + 1) * 1_050);
    const events = await allEvents(h.client.get(workflowId) as AgentRun);
    expect(events.filter((e) => e.type === 'approval_decided')).toMatchObject([{ decision: 'approve', by: 'ops:alice' }]);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i));
    // Continue-as-new happened, and the client saw one run: the executions Temporal lists are the ones the events named.
    expect(executions).toBeGreaterThan(2);
    // (Visibility lags a little behind the last execution: poll.)
    let listed = 0;
    for (let i = 0; i < 50 && listed !== executions; i++, await new Promise((r) => setTimeout(r, 100))) {
      listed = 0;
      for await (const _ of h.temporal.workflow.list({ query: `WorkflowId = '${workflowId}'` })) listed++;
    }
    expect(listed).toBe(executions);
  });

  it('schedule: the schedule fires a normal run that succeeds, and is deleted afterwards', async () => {
    const h = await host(schedule);
    const scheduleId = testId('example-schedule');
    const { firstRun, result } = await schedule.main(h.client, log, scheduleId, '1s');
    expect(firstRun.workflowId.startsWith(`${scheduleId}-`)).toBe(true);
    expect(result.status).toBe('success');
    expect(result.finalText).toBe('Ticket report: 3 tickets are open.');
    expect(result.report.toolCalls.map((c) => c.tool)).toEqual(['open_tickets']);
    // The schedule list comes from visibility, which lags a deletion a little: poll.
    let listed = [scheduleId];
    for (let i = 0; i < 50 && listed.includes(scheduleId); i++, await new Promise((r) => setTimeout(r, 100))) {
      listed = (await h.client.schedules()).map((s) => s.scheduleId);
    }
    expect(listed).not.toContain(scheduleId);
  });
});
