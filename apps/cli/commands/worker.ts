/** `durable-agent worker`: a worker only (no dev server), hosting the demo agents or the user's, until Ctrl-C. */
import { aborted, untilAborted } from '../abort';
import { CliError } from '../errors';
import { OFFLINE_NOTE } from '../follow';
import { Output } from '../terminal-output';
import type { ServedAgents } from '../served';
import { servedAgents } from '../served';
import type { SessionOptions } from '../session';
import { Session } from '../session';
import { cliTracing } from '../tracing';
import { serveMetricsAt } from '../metrics-endpoint';
import type { ConnectionFlags, Target } from '../target';
import { redisLine, resolveTarget, taskQueueLabel } from '../target';
import type { AgentWorker } from '../../../src/entry/worker';

/** Options of `worker`. */
export interface WorkerFlags extends ConnectionFlags {
  /** A module of the user's agents, served instead of the demo agents. */
  agents?: string;
  /** Serve Prometheus metrics at this `host:port` (checked by the option's parser). */
  metrics?: string;
}

/** The banner line about the model, for the demo agents (nothing for the user's: their agents name their models). */
export function modelLine(agents: ServedAgents): string[] {
  const demo = agents.load().demo;
  if (!demo) return [];
  return [`  Model:             ${demo.offline ? OFFLINE_NOTE : `${demo.model.provider}/${demo.model.model}`}`];
}

/**
 * Wait until `signal` aborts (true: a clean stop) or the hosted worker stops by itself.
 * @throws {CliError} when the worker stopped unexpectedly (with its error when it had one).
 */
export async function serveUntilStopped(session: Session, out: Output, signal: AbortSignal): Promise<boolean> {
  await Promise.race([aborted(signal), session.workerStopped()]);
  if (!signal.aborted) {
    session.checkWorker();
    throw new CliError('the worker stopped unexpectedly');
  }
  out.line('', 'stopping the worker...');
  return true;
}

/** What a serving command (`worker`, `dev`) runs with. */
export interface Serving {
  target: Target;
  agents: ServedAgents;
  session: Session;
}

/**
 * Open the session of a serving command (`worker`, `dev`): the agents the flags name, Prometheus metrics
 * when asked for (before the runtime is installed, server or worker) and tracing.
 */
export async function openServing(flags: WorkerFlags, out: Output, options: Pick<SessionOptions, 'embed' | 'uiPort'>): Promise<Serving> {
  const target = resolveTarget(flags);
  const agents = await servedAgents(flags.agents);
  if (flags.metrics) serveMetricsAt(flags.metrics);
  const tracing = cliTracing(out);
  const session = await Session.open(target, { ...options, agents, log: (l) => out.note(l), ...(tracing ? { tracing } : {}) });
  return { target, agents, session };
}

/** Host the served agents' worker (each agent on its own task queue unless `--task-queue` is given). */
export async function startWorker(session: Session, out: Output, signal: AbortSignal): Promise<AgentWorker> {
  out.note('starting the worker...');
  const worker = await untilAborted(session.hostWorker(), signal);
  if (worker.workflowCode.kind === 'bundled') out.note(`bundled the workflow code at start: ${worker.workflowCode.reason}`);
  return worker;
}

/** Run a worker until `signal` aborts; returns the exit code. */
export async function workerCommand(flags: WorkerFlags, signal: AbortSignal): Promise<number> {
  const out = new Output();
  const { target, agents, session } = await openServing(flags, out, { embed: 'never' });
  try {
    const worker = await startWorker(session, out, signal);
    out.line(
      '',
      out.styles.bold('durable-agent worker'),
      `  Temporal address:  ${session.address}`,
      `  Worker:            ${taskQueueLabel(worker.taskQueues)}, agents: ${worker.registry.names().join(', ')}`,
      ...modelLine(agents),
      ...redisLine(target, 'published to'),
      '',
      'Press Ctrl-C to stop.',
    );
    await serveUntilStopped(session, out, signal);
  } finally {
    await session.close();
  }
  out.line('stopped');
  return 0;
}
