/**
 * `durable-agent tail <workflowId>` (alias `watch`): follow a run live until it ends — its events and the
 * model's answer as it streams, from the start or `--after` a cursor — then print its summary.
 */
import type { AgentRunResult } from '../../../src/entry/client';
import { aborted, INTERRUPTED_EXIT, untilAborted } from '../abort';
import { exitCodeOf, followRun, printSummary, resumeHint } from '../follow';
import { definitionLine } from '../format';
import { Output } from '../terminal-output';
import { repeatEvery } from '../repeat';
import { ensureRunWorker, noWorkerLine } from '../run-worker';
import { servedAgents } from '../served';
import { Session } from '../session';
import type { ConnectionFlags } from '../target';
import { resolveTarget } from '../target';
import type { ExistingRun } from './existing';
import { findRun } from './existing';

/** Options of `tail`. */
export interface TailFlags extends ConnectionFlags {
  /** A module of the user's agents: the CLI may host a worker for runs of these. */
  agents?: string;
  /** One `run.stream()` event a line (deltas included), then the result. */
  json?: boolean;
  /** Show only durable events after this `seq` (where an interrupted follower left off). */
  after?: number;
}

/** How often `tail` looks for a worker when none polls the run's task queue. */
const WORKER_CHECK_MS = 2000;

/**
 * With no worker to answer queries: wait for whichever comes first, the run's result (through the
 * server) or a worker on its task queue. Returns the result, or 'worker', or undefined when interrupted.
 */
async function waitForWorkerOrResult(
  session: Session,
  existing: ExistingRun,
  signal: AbortSignal,
): Promise<AgentRunResult | 'worker' | undefined> {
  const stop = new AbortController();
  const both = AbortSignal.any([signal, stop.signal]);
  const result = existing.run.result();
  result.catch(() => undefined);
  let workerSeen = false;
  const worker = repeatEvery(WORKER_CHECK_MS, both, async () => {
    workerSeen = await session.hasWorker(existing.description.taskQueue).catch(() => false);
    return workerSeen;
  });
  try {
    const first = await Promise.race([result, worker.then(() => undefined), aborted(signal).then(() => undefined)]);
    if (first) return first;
    return workerSeen ? 'worker' : undefined;
  } finally {
    stop.abort();
    await worker;
  }
}

/** Follow the run and return the exit code. */
export async function tailCommand(workflowId: string, flags: TailFlags, signal: AbortSignal): Promise<number> {
  const out = new Output(flags.json);
  const agents = await servedAgents(flags.agents);
  const session = await Session.open(resolveTarget(flags), { embed: 'if-state', agents, log: (l) => out.note(l) });
  try {
    const existing = await findRun(session, workflowId);
    const { run, description } = existing;
    const definition = definitionLine(description.memo);
    out.line(out.styles.bold(`run ${workflowId} (${description.status.name.toLowerCase()})${definition ? ` — ${definition}` : ''}`));
    // Reading events is a query, which needs a worker for the run's task queue even after it ended.
    const worker = await untilAborted(ensureRunWorker(session, description), signal);
    if (worker.kind === 'hosted') out.note(`worker: started an in-process worker on task queue "${description.taskQueue}"`);
    if (worker.kind === 'none') {
      out.note(noWorkerLine(description.taskQueue, worker.reason));
      out.note(
        `The run ${existing.running ? 'continues when a worker for it runs' : 'has ended'}. Its events are read by a query, which needs a worker to answer: ` +
          `waiting for its result through the server meanwhile; the events are printed once a worker answers.`,
      );
      const first = await waitForWorkerOrResult(session, existing, signal);
      if (first === undefined) return INTERRUPTED_EXIT;
      if (first !== 'worker') {
        out.note('(no worker answered, so the events of the run are not shown; its result follows)');
        printSummary(out, first);
        return exitCodeOf(first);
      }
      out.note(`worker: a worker now polls task queue "${description.taskQueue}"; its events follow`);
    }
    const followed = await followRun(run, out, {
      signal,
      check: () => session.checkWorker(),
      ...(flags.after !== undefined ? { after: flags.after } : {}),
    });
    if (!followed.result) {
      out.line('', `interrupted; go on from here with: ${resumeHint(workflowId, followed.lastSeq)}`);
      return INTERRUPTED_EXIT;
    }
    printSummary(out, followed.result, { finalTextShown: followed.finalTextShown });
    return exitCodeOf(followed.result);
  } finally {
    await session.close();
  }
}
