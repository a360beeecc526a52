/**
 * A scheduled agent: a Temporal Schedule starts a normal run of the agent on an interval (or a cron
 * expression); this example waits for the first firing, reads that run's result, and deletes the schedule.
 *
 *   npx tsx examples/schedule.ts   # TEMPORAL_ADDRESS, else localhost:7233, else an embedded dev server
 *
 * The model is a scripted stand-in (not an LLM): it counts the open tickets with its tool and reports.
 */
import { z } from 'zod';
import { defineAgent, defineTool } from '../src/entry/index'; // in your project: 'durable-agent'
import type { AgentClient, ScheduledRun } from '../src/entry/client'; // 'durable-agent/client'
import type { AgentRunResult, ModelRequest, ScriptedTurn } from '../src/entry/worker'; // 'durable-agent/worker'
import { ScriptedProvider } from '../src/entry/worker';
import { runExample } from './run-example';

const openTickets = defineTool({
  name: 'open_tickets',
  description: 'How many support tickets are open',
  input: z.object({}),
  readOnly: true,
  execute: () => '3 tickets are open',
});

/** The scripted model: asks the tool, then reports its answer. */
function reporterModel(request: ModelRequest): ScriptedTurn {
  const last = request.messages.at(-1);
  const result = last?.role === 'user' ? last.content.find((b) => b.type === 'tool_result') : undefined;
  if (result?.type === 'tool_result' && result.output.type === 'text') return { text: `Ticket report: ${result.output.text}.` };
  return { toolCalls: [{ name: 'open_tickets', args: {} }] };
}

export const reporter = defineAgent({
  name: 'example-reporter',
  model: { provider: 'scripted', model: 'example-reporter' },
  system: 'Report on the support queue.',
  tools: [openTickets],
  maxSteps: 5,
});

/** Worker side: the agents and the providers they call. */
export const agents = [reporter];
export const providers = { scripted: new ScriptedProvider({ 'example-reporter': reporterModel }) };

/** What the example saw: the schedule, its first run and that run's result. */
export interface ScheduleOutcome {
  scheduleId: string;
  firstRun: ScheduledRun;
  result: AgentRunResult;
}

/** Client side: schedule the reporter every `interval`, wait for its first run, then delete the schedule. */
export async function main(
  client: AgentClient,
  log: (line: string) => void = console.log,
  scheduleId = `ticket-report-${Date.now()}`,
  interval = '5s',
): Promise<ScheduleOutcome> {
  const schedule = await client.schedule(reporter, {
    scheduleId,
    interval, // or cron: '0 9 * * *' (UTC)
    input: 'How many tickets are open?',
    budget: { maxCostUsd: 0.5, timeout: '10m' }, // per run
    overlap: 'skip', // a firing while the previous run still runs is skipped
  });
  try {
    log(
      `schedule ${scheduleId}: next runs at ${(await schedule.describe()).nextRunTimes
        .slice(0, 3)
        .map((t) => t.toISOString())
        .join(', ')}`,
    );
    let firstRun: ScheduledRun | undefined;
    for (const deadline = Date.now() + 60_000; !firstRun; await new Promise((r) => setTimeout(r, 250))) {
      if (Date.now() > deadline) throw new Error(`schedule ${scheduleId} did not fire within a minute`);
      firstRun = (await schedule.describe()).recentRuns[0];
    }
    log(`fired: run ${firstRun.workflowId}`);
    const result = await client.get<typeof reporter>(firstRun.workflowId).result(); // a normal run
    log(`${result.status}: ${result.finalText}`);
    return { scheduleId, firstRun, result };
  } finally {
    await schedule.delete();
  }
}

if (require.main === module) void runExample({ agents, providers, main: (client, log) => main(client, log) });
